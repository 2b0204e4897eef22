import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "@/lib/core/errors";
import {
  decodeBody,
  decodeEntities,
  entityNames,
  fetchWebsiteText,
  htmlToText,
  parseContentType,
  UnsupportedContentTypeError,
  type WebsiteTextOptions,
} from "./website";

// `he` (a dev dependency through s3rver) is the reference for character references.
const he = createRequire(import.meta.url)("he") as {
  decode(text: string, options?: { isAttributeValue?: boolean }): string;
};

const NEWS_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>
    Local News &ndash; Caf&eacute; &amp; Bakery reopens
  </title>
  <meta name="viewport" content="width=device-width">
  <meta property="og:description" content="OG fallback">
  <meta name="description" content="The corner caf&eacute; is back &quot;for good&quot;.">
  <link rel="stylesheet" href="/main.css">
  <style>body { font-family: sans-serif } .ad::after { content: "BUY NOW" }</style>
  <script>window.dataLayer = []; if (a < b && c > d) { document.write("<p>injected</p>"); }</script>
  <script type="application/ld+json">{"@type": "NewsArticle", "headline": "json headline"}</script>
</head>
<body class="article">
  <header><nav><ul><li><a href="/">Home</a></li><li><a href="/sport">Sport</a></li></ul></nav></header>
  <main>
    <article>
      <h1>Caf&eacute; &amp; Bakery reopens after&nbsp;renovation</h1>
      <p class="byline">By <a href="/authors/jo">Jo&nbsp;Smith</a> &middot; 3&#160;min read</p>
      <p>The   owners said
         the new <em>oven</em> bakes 200 loaves a day.<br>Prices start at &euro;2.</p>
      <figure><img src="bread.jpg" alt="Bread's crust"><figcaption>Fresh bread &mdash; still warm</figcaption></figure>
      <svg viewBox="0 0 10 10"><title>share icon</title><text x="0" y="5">svg label</text></svg>
      <noscript><p>Please enable JavaScript</p></noscript>
      <template><p>template row</p></template>
      <table><tr><th>Day</th><th>Hours</th></tr><tr><td>Mon</td><td>8&ndash;18</td></tr></table>
      <!-- <p>commented out</p> -->
    </article>
  </main>
  <footer><p>&copy; 2024 Local News &lt;news@example.test&gt;</p></footer>
  <script src="/app.js"></script>
</body>
</html>`;

describe("htmlToText", () => {
  it("keeps the visible text of a realistic page and nothing else", () => {
    const page = htmlToText(NEWS_PAGE);
    expect(page.title).toBe("Local News – Café & Bakery reopens");
    expect(page.description).toBe('The corner café is back "for good".');
    expect(page.truncated).toBe(false);
    expect(page.text).toBe(
      [
        "Home",
        "Sport",
        "",
        "Café & Bakery reopens after renovation",
        "",
        "By Jo Smith · 3 min read",
        "",
        "The owners said the new oven bakes 200 loaves a day.",
        "Prices start at €2.",
        "",
        "Fresh bread — still warm",
        "",
        "Day Hours",
        "Mon 8–18",
        "",
        "© 2024 Local News <news@example.test>",
      ].join("\n"),
    );
    for (const hidden of ["BUY NOW", "injected", "json headline", "svg label", "share icon", "enable JavaScript", "template row", "commented", "viewport"]) {
      expect(page.text).not.toContain(hidden);
    }
  });

  it("falls back to og:description and og:title", () => {
    const page = htmlToText(
      `<html><head><meta property="og:title" content="OG Title"><meta property="og:description" content="From &lt;OG&gt;"></head><body>x</body></html>`,
    );
    expect(page).toMatchObject({ title: "OG Title", description: "From <OG>", text: "x" });
    expect(htmlToText("<p>no head</p>")).toMatchObject({ title: null, description: null, text: "no head" });
  });

  it("handles a head that is never closed and text without a body tag", () => {
    const page = htmlToText("<html><head><title>T</title><meta name=description content=unquoted>\n<p>Body text");
    expect(page).toMatchObject({ title: "T", description: "unquoted", text: "Body text" });
    expect(htmlToText("<head><title>T</title>Stray text").text).toBe("Stray text");
  });

  it("turns block elements and <br> into line breaks, paragraphs into blank lines", () => {
    expect(htmlToText("<div>one</div><div>two</div><span>three</span> <b>four</b>").text).toBe("one\ntwo\nthree four");
    expect(htmlToText("<p>a</p><p>b</p>").text).toBe("a\n\nb");
    expect(htmlToText("line<br>break<br/><br />after two").text).toBe("line\nbreak\n\nafter two");
    expect(htmlToText("<ul><li>x</li><li>y</li></ul><h2>Title</h2>z").text).toBe("x\ny\n\nTitle\n\nz");
    expect(htmlToText("<pre>  code\n    indented\n\nend</pre>").text).toBe("code\nindented\n\nend");
  });

  it("decodes entities like a browser", () => {
    const text = htmlToText("<p>&lt;b&gt; &amp;amp; &quot;q&quot; &#39;s&#x27; &apos; &hellip; &#x1F600; &#128; &#0; &copy2024 &notit; &bogus; AT&T</p>").text;
    expect(text).toBe("<b> &amp; \"q\" 's' ' … 😀 € \ufffd ©2024 ¬it; &bogus; AT&T");
    // Attribute rules: a legacy name without ";" before "=" or a letter is not a reference.
    expect(decodeEntities("?a=1&copy=2&amp;b", true)).toBe("?a=1&copy=2&b");
    expect(decodeEntities("?a=1&copy=2", false)).toBe("?a=1©=2");
  });

  it("agrees with the `he` package on every name it knows", () => {
    const samples = entityNames().map((name) => `&${name};`);
    expect(samples.length).toBeGreaterThan(250);
    for (const sample of samples) {
      expect(sample).toMatch(/^&[A-Za-z0-9]+;$/);
      expect([sample, decodeEntities(sample, false)]).toEqual([sample, he.decode(sample)]);
    }
    for (const tricky of ["&copy2024", "&notit;", "&amp", "&ampx", "&#150;", "&#65", "&#xD800;", "&#x110000;", "&#0;", "&AMP;", "&Amp;"]) {
      expect([tricky, decodeEntities(tricky, false)]).toEqual([tricky, he.decode(tricky)]);
      expect([tricky, decodeEntities(tricky, true)]).toEqual([tricky, he.decode(tricky, { isAttributeValue: true })]);
    }
  });

  it("copes with broken markup without losing text or hanging", () => {
    expect(htmlToText("a < b and c <3 d").text).toBe("a < b and c <3 d");
    expect(htmlToText(`<img alt=Joe's src=x>kept 'text' <b>bold</b>`).text).toBe("kept 'text' bold");
    expect(htmlToText("<script>never closed <p>hidden").text).toBe("");
    expect(htmlToText("<p>before<svg><svg><text>x</text></svg></svg>after</p>").text).toBe("beforeafter");
    expect(htmlToText("<![CDATA[ cdata  text ]]><?xml-stylesheet x?>ok").text).toBe("cdata text ok");

    const started = performance.now();
    htmlToText(`<a title="${"x".repeat(500_000)}`);
    htmlToText("<".repeat(200_000) + "<a ".repeat(100_000) + "= '".repeat(50_000));
    htmlToText(`<div ${"a=1 ".repeat(100_000)}`);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it("caps the text length at a word boundary", () => {
    const html = `<p>${"word ".repeat(1000)}</p>`;
    const page = htmlToText(html, { maxChars: 103 });
    expect(page.truncated).toBe(true);
    expect(page.text.length).toBeLessThanOrEqual(103);
    expect(page.text).toMatch(/^(word )+word$/);
    expect(htmlToText(html).truncated).toBe(false);
  });
});

describe("content type and charset", () => {
  it("parses Content-Type", () => {
    expect(parseContentType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ mediaType: "text/html", charset: "iso-8859-1" });
    expect(parseContentType("text/plain")).toEqual({ mediaType: "text/plain", charset: null });
    expect(parseContentType(null)).toEqual({ mediaType: null, charset: null });
  });

  it("uses BOM, then header, then <meta>, then UTF-8; latin1 means windows-1252", () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]); // "café €" in windows-1252
    expect(decodeBody(latin1, "iso-8859-1", false)).toEqual({ text: "café €", encoding: "windows-1252" });
    const meta = Buffer.concat([Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'), latin1]);
    expect(decodeBody(meta, null, true).encoding).toBe("windows-1252");
    expect(decodeBody(meta, null, false).encoding).toBe("utf-8"); // no <meta> sniffing for text/plain
    const utf8 = Buffer.from("<meta charset=latin1>café", "utf8");
    expect(decodeBody(utf8, "utf-8", true)).toEqual({ text: "<meta charset=latin1>café", encoding: "utf-8" });
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("é", "utf8")]);
    expect(decodeBody(bom, "windows-1252", true)).toEqual({ text: "é", encoding: "utf-8" });
    expect(decodeBody(Buffer.from("é", "utf8"), "no-such-charset", true).encoding).toBe("utf-8");
  });
});

// ---------------------------------------------------------------------------------------------
// fetchWebsiteText against a local server (safeFetch refuses loopback unless allowPrivateNetworks)

let server: http.Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.push(path);
    switch (path) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(NEWS_PAGE);
        return;
      case "/moved":
        res.writeHead(302, { location: "/page" }).end();
        return;
      case "/latin1":
        res.writeHead(200, { "content-type": "text/html; charset=ISO-8859-1" });
        res.end(Buffer.from("<title>Caf\xe9</title><p>Cr\xe8me br\xfbl\xe9e \x80 5</p>", "latin1"));
        return;
      case "/meta-charset":
        res.writeHead(200, { "content-type": "text/html" });
        res.end(Buffer.from('<meta charset="windows-1252"><p>\x93quoted\x94 na\xefve</p>', "latin1"));
        return;
      case "/xhtml":
        res.writeHead(200, { "content-type": "application/xhtml+xml" });
        res.end('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head><body><p>xhtml body</p></body></html>');
        return;
      case "/plain":
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Line one\r\n\r\n\r\n\r\nLine   two <b>not a tag</b>\n");
        return;
      case "/pdf":
        res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4 ...");
        return;
      case "/json":
        res.writeHead(200, { "content-type": "application/json" }).end('{"a": 1}');
        return;
      case "/no-type":
        res.removeHeader("content-type");
        res.writeHead(200).end("<p>no content type</p>");
        return;
      case "/big":
        res.writeHead(200, { "content-type": "text/html", "content-length": String(50_000) }).end("x".repeat(50_000));
        return;
      case "/big-chunked": {
        res.writeHead(200, { "content-type": "text/html" }); // no Content-Length
        for (let i = 0; i < 50; i++) res.write(`<p>${"y".repeat(1000)}</p>`);
        res.end();
        return;
      }
      case "/slow": {
        res.writeHead(200, { "content-type": "text/html" });
        const timer = setInterval(() => res.write("<p>drip</p>"), 50);
        res.on("close", () => clearInterval(timer));
        return;
      }
      case "/status":
        res.writeHead(404, { "content-type": "text/html" }).end("<p>not found</p>");
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  hits.length = 0;
});

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
const allowed: WebsiteTextOptions = { timeoutMs: 3000, maxBytes: 20_000, allowPrivateNetworks: true };

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    return error as ApiError;
  }
  throw new Error("expected a rejection");
}

describe("fetchWebsiteText", () => {
  it("refuses loopback unless private networks are allowed, without contacting the server", async () => {
    const err = await rejection(fetchWebsiteText(url("/page"), { ...allowed, allowPrivateNetworks: false }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe("asset/url-not-allowed");
    expect(err.status).toBe(422);
    expect(err.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    const viaName = await rejection(fetchWebsiteText(`http://localhost:${port}/page`, { ...allowed, allowPrivateNetworks: false }));
    expect(viaName.code).toBe("asset/url-not-allowed");
    expect(hits).toEqual([]);
  });

  it("fetches a page when allowed, following redirects", async () => {
    const page = await fetchWebsiteText(url("/moved"), allowed);
    expect(page).toMatchObject({
      finalUrl: url("/page"),
      contentType: "text/html",
      charset: "utf-8",
      title: "Local News – Café & Bakery reopens",
      description: 'The corner café is back "for good".',
      truncated: false,
    });
    expect(page.text).toContain("Café & Bakery reopens after renovation");
    expect(page.text).not.toContain("injected");
    expect(hits).toEqual(["/moved", "/page"]);
  });

  it("honours the charset of the Content-Type header and of <meta>", async () => {
    const latin1 = await fetchWebsiteText(url("/latin1"), allowed);
    expect(latin1).toMatchObject({ title: "Café", text: "Crème brûlée € 5", charset: "windows-1252" });
    const meta = await fetchWebsiteText(url("/meta-charset"), allowed);
    expect(meta).toMatchObject({ text: "“quoted” naïve", charset: "windows-1252" });
  });

  it("reads XHTML and plain text", async () => {
    expect(await fetchWebsiteText(url("/xhtml"), allowed)).toMatchObject({
      contentType: "application/xhtml+xml",
      title: "X",
      text: "xhtml body",
    });
    expect(await fetchWebsiteText(url("/plain"), allowed)).toMatchObject({
      contentType: "text/plain",
      title: null,
      description: null,
      text: "Line one\n\nLine two <b>not a tag</b>",
    });
  });

  it("refuses other content types with a typed error", async () => {
    for (const path of ["/pdf", "/json", "/no-type"]) {
      const err = await rejection(fetchWebsiteText(url(path), allowed));
      expect(err).toBeInstanceOf(UnsupportedContentTypeError);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe("asset/url-fetch-failed");
      expect((err as UnsupportedContentTypeError).contentType).toBe(path === "/no-type" ? null : path === "/pdf" ? "application/pdf" : "application/json");
    }
  });

  it("enforces the size cap, declared or streamed", async () => {
    const declared = await rejection(fetchWebsiteText(url("/big"), allowed));
    expect(declared.code).toBe("upload/too-large");
    const streamed = await rejection(fetchWebsiteText(url("/big-chunked"), allowed));
    expect(streamed.code).toBe("upload/too-large");
    expect((await fetchWebsiteText(url("/big-chunked"), { ...allowed, maxBytes: 100_000 })).text).toMatch(/^y+\n\ny+/);
  });

  it("caps the text length", async () => {
    const page = await fetchWebsiteText(url("/page"), { ...allowed, maxChars: 30 });
    expect(page.truncated).toBe(true);
    expect(page.text.length).toBeLessThanOrEqual(30);
  });

  it("fails on HTTP errors and on a body that does not finish in time", async () => {
    const status = await rejection(fetchWebsiteText(url("/status"), allowed));
    expect(status.code).toBe("asset/url-fetch-failed");
    expect(status.message).toMatch(/HTTP 404/);
    const started = Date.now();
    const slow = await rejection(fetchWebsiteText(url("/slow"), { ...allowed, timeoutMs: 400, maxBytes: 1_000_000 }));
    expect(slow.code).toBe("asset/url-fetch-failed");
    expect(slow.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
