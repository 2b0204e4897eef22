/**
 * An append-only byte buffer that grows by doubling. Capacity comes from `Buffer.allocUnsafe`, so
 * space reserved but never written is not resident memory (the kernel maps pages on first write).
 */
export class GrowableBuffer {
  private buffer: Buffer;
  length = 0;

  constructor(initialCapacity = 16 * 1024) {
    this.buffer = Buffer.allocUnsafe(initialCapacity);
  }

  /** Makes room for `extra` more bytes. */
  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  append(source: Uint8Array, start = 0, end = source.length): void {
    this.reserve(end - start);
    this.buffer.set(source.subarray(start, end), this.length);
    this.length += end - start;
  }

  appendByte(byte: number): void {
    if (this.length === this.buffer.length) this.reserve(1);
    this.buffer[this.length++] = byte;
  }

  /** Appends a string's UTF-8 bytes (a lone surrogate becomes U+FFFD, as `Buffer.from` does). */
  appendString(text: string): void {
    this.reserve(text.length * 3);
    this.length += this.buffer.write(text, this.length, "utf8");
  }

  /** The bytes written; copied into a right-sized buffer when more than half the capacity is unused. */
  take(): Buffer {
    const bytes = this.buffer.subarray(0, this.length);
    return this.length * 2 < this.buffer.length ? Buffer.from(bytes) : bytes;
  }
}
