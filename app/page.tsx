export default function Home() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 640, margin: "4rem auto", lineHeight: 1.5 }}>
      <h1>Sieve</h1>
      <p>Self-hosted media moderation and delivery.</p>
      <p>
        The REST API lives under <code>/v1</code>; its OpenAPI document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.
        The reviewer portal arrives with a later release.
      </p>
    </main>
  );
}
