import { GrowableBuffer } from "@/lib/http/growable-buffer";

/**
 * Streaming decoders for one large JSON value, fed the raw body chunk by chunk, that write the
 * value's bytes straight into one buffer: neither the body as a string, nor the parsed string, nor
 * an array of numbers ever exists. Used by lib/http/json-reader.ts.
 */

/** A syntax error, or (byte arrays) an element that is not an integer from 0 to 255. */
export class LargeValueRefused extends Error {
  constructor(
    readonly reason: "syntax" | "not-a-byte",
    readonly detail: string,
    /** Index in the chunk being fed where the offending input starts (it is not consumed). */
    readonly index: number,
    /** Byte arrays: the index of the offending element. */
    readonly element = 0,
    /** Strings: the refused byte follows a backslash (a scanner resuming there must skip it). */
    readonly afterBackslash = false,
  ) {
    super(detail);
  }
}

export interface LargeValueDecoder {
  readonly out: GrowableBuffer;
  /** Consumes `chunk` from `start`; returns the index just past the value's end, or -1 when it goes on. */
  feed(chunk: Uint8Array, start: number): number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SIMPLE_ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };
const REPLACEMENT = [0xef, 0xbf, 0xbd];
const NO_ESCAPE = -2;
const AFTER_BACKSLASH = -1;

/**
 * A JSON string's contents (after the opening quote) as the UTF-8 bytes `Buffer.from(JSON.parse(
 * body.toString()))` would give: invalid UTF-8 becomes U+FFFD as `toString` does (the same WHATWG
 * decoder), escapes are decoded, surrogate pairs joined and lone surrogates become U+FFFD.
 */
export class JsonStringDecoder implements LargeValueDecoder {
  readonly out = new GrowableBuffer();
  /** NO_ESCAPE, AFTER_BACKSLASH, or how many hex digits of a \u escape have been read. */
  private escape = NO_ESCAPE;
  private codeUnit = 0;
  private pendingHighSurrogate = -1;
  /** Decodes runs holding non-ASCII bytes; kept across chunks so a sequence may straddle them. */
  private utf8: TextDecoder | null = null;

  feed(chunk: Uint8Array, start: number): number {
    let i = start;
    while (i < chunk.length) {
      if (this.escape !== NO_ESCAPE) {
        this.escapeByte(chunk[i] as number, i);
        i++;
        continue;
      }
      let end = i;
      let ascii = true;
      for (; end < chunk.length; end++) {
        const byte = chunk[end] as number;
        if (byte === QUOTE || byte === BACKSLASH || byte < 0x20) break;
        if (byte >= 0x80) ascii = false;
      }
      if (end > i) this.run(chunk, i, end, ascii);
      if (end === chunk.length) return -1;
      const byte = chunk[end] as number;
      if (byte < 0x20) throw new LargeValueRefused("syntax", "control character in a string", end);
      this.endUtf8();
      if (byte === QUOTE) {
        this.endSurrogate();
        return end + 1;
      }
      this.escape = AFTER_BACKSLASH; // a pending high surrogate waits: a \u escape may complete it
      i = end + 1;
    }
    return -1;
  }

  private run(chunk: Uint8Array, start: number, end: number, ascii: boolean) {
    this.endSurrogate();
    if (ascii && this.utf8 === null) return this.out.append(chunk, start, end);
    // An ASCII run after a non-ASCII one still goes through the decoder: it may complete or end a sequence.
    this.utf8 ??= new TextDecoder("utf-8", { ignoreBOM: true });
    this.out.appendString(this.utf8.decode(chunk.subarray(start, end), { stream: true }));
    if (ascii) this.endUtf8();
  }

  /** Flushes the UTF-8 decoder: an unfinished sequence becomes U+FFFD, as before any ASCII byte. */
  private endUtf8() {
    if (this.utf8 === null) return;
    this.out.appendString(this.utf8.decode());
    this.utf8 = null;
  }

  private escapeByte(byte: number, index: number) {
    if (this.escape === AFTER_BACKSLASH) {
      const simple = SIMPLE_ESCAPES[byte];
      if (simple !== undefined) {
        this.escape = NO_ESCAPE;
        this.endSurrogate();
        this.out.appendByte(simple);
      } else if (byte === 0x75) {
        this.escape = 0;
        this.codeUnit = 0;
      } else {
        throw new LargeValueRefused("syntax", "bad escape in a string", index, 0, true);
      }
      return;
    }
    const digit = hexDigit(byte);
    if (digit < 0) throw new LargeValueRefused("syntax", "bad \\u escape in a string", index);
    this.codeUnit = this.codeUnit * 16 + digit;
    if (++this.escape === 4) {
      this.escape = NO_ESCAPE;
      this.unit(this.codeUnit);
    }
  }

  /** One UTF-16 code unit from a \u escape. */
  private unit(unit: number) {
    if (this.pendingHighSurrogate >= 0 && unit >= 0xdc00 && unit <= 0xdfff) {
      const codePoint = 0x10000 + ((this.pendingHighSurrogate - 0xd800) << 10) + (unit - 0xdc00);
      this.pendingHighSurrogate = -1;
      this.out.appendString(String.fromCodePoint(codePoint));
      return;
    }
    this.endSurrogate();
    if (unit >= 0xd800 && unit <= 0xdbff) this.pendingHighSurrogate = unit;
    else if (unit >= 0xdc00 && unit <= 0xdfff) for (const byte of REPLACEMENT) this.out.appendByte(byte);
    else if (unit < 0x80) this.out.appendByte(unit);
    else this.out.appendString(String.fromCharCode(unit));
  }

  /** A high surrogate not followed by a low one is lone: U+FFFD. */
  private endSurrogate() {
    if (this.pendingHighSurrogate < 0) return;
    this.pendingHighSurrogate = -1;
    for (const byte of REPLACEMENT) this.out.appendByte(byte);
  }
}

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

const START = 0;
const AFTER_COMMA = 1;
const IN_NUMBER = 2;
const AFTER_ELEMENT = 3;
const MAX_NUMBER_TEXT = 64;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A JSON array of byte numbers (after its `[`) as a Buffer. Elements follow zod's `byte`: JSON
 * numbers that are integers from 0 to 255 (`1.0`, `1e2` and `-0` included). Anything else is
 * refused before it is consumed, so the caller can hand the array to the ordinary parser.
 */
export class JsonByteArrayDecoder implements LargeValueDecoder {
  readonly out = new GrowableBuffer();
  private state = START;
  private elements = 0;
  // The number being read: plain digits are summed; anything else is kept as text.
  private digits = 0;
  private leadingZero = false;
  private value = 0;
  private text: string | null = null;

  feed(chunk: Uint8Array, start: number): number {
    for (let i = start; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (this.state === IN_NUMBER) {
        if (byte >= 0x30 && byte <= 0x39) {
          if (this.text === null) {
            this.value = this.value * 10 + (byte - 0x30);
            this.digits++;
          } else {
            this.text += String.fromCharCode(byte);
            if (this.text.length > MAX_NUMBER_TEXT) throw new LargeValueRefused("not-a-byte", "number too long", i, this.elements);
          }
          continue;
        }
        if (byte === 0x2e || byte === 0x65 || byte === 0x45 || byte === 0x2b || byte === 0x2d) {
          this.text = (this.text ?? this.digitsText(i)) + String.fromCharCode(byte);
          if (this.text.length > MAX_NUMBER_TEXT) throw new LargeValueRefused("not-a-byte", "number too long", i, this.elements);
          continue;
        }
        this.endNumber(i);
      }
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
      if (byte === 0x5d && this.state !== AFTER_COMMA) return i + 1;
      if (byte === 0x2c && this.state === AFTER_ELEMENT) {
        this.state = AFTER_COMMA;
        continue;
      }
      if (this.state === AFTER_ELEMENT) throw new LargeValueRefused("syntax", "expected , or ] in an array", i);
      if ((byte >= 0x30 && byte <= 0x39) || byte === 0x2d) {
        this.state = IN_NUMBER;
        this.leadingZero = byte === 0x30;
        this.digits = byte === 0x2d ? 0 : 1;
        this.value = byte === 0x2d ? 0 : byte - 0x30;
        this.text = byte === 0x2d ? "-" : null;
        continue;
      }
      const reason = byte === 0x22 || byte === 0x5b || byte === 0x7b || byte === 0x74 || byte === 0x66 || byte === 0x6e;
      throw new LargeValueRefused(reason ? "not-a-byte" : "syntax", reason ? "not a number" : "unexpected character in an array", i, this.elements);
    }
    return -1;
  }

  private digitsText(index: number): string {
    if (this.digits > 1 && this.leadingZero) throw new LargeValueRefused("syntax", "leading zero in a number", index);
    if (this.digits > 15) throw new LargeValueRefused("not-a-byte", "number too long", index, this.elements);
    return String(this.value);
  }

  /** Ends the number before `index`; its text is already consumed, so a refusal points after it. */
  private endNumber(index: number) {
    let byte: number;
    if (this.text === null) {
      if (this.digits > 1 && this.leadingZero) throw new LargeValueRefused("syntax", "leading zero in a number", index);
      byte = this.value;
    } else {
      if (!JSON_NUMBER.test(this.text)) throw new LargeValueRefused("syntax", "malformed number", index);
      byte = Number(this.text);
    }
    if (!(Number.isInteger(byte) && byte >= 0 && byte <= 255)) {
      throw new LargeValueRefused("not-a-byte", "not an integer from 0 to 255", index, this.elements);
    }
    this.out.appendByte(byte);
    this.elements++;
    this.state = AFTER_ELEMENT;
  }
}
