import { expect } from "vitest";
import { ProviderError } from "@/lib/core/provider-error";

/** The ProviderError a classification (or a chat request) rejects with; fails the test otherwise. */
export async function providerError(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}
