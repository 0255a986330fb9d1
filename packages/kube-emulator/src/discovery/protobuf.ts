/** A minimal protocol buffers writer: just what encoding the OpenAPI v2 document needs. */
export class ProtoWriter {
  private readonly chunks: Buffer[] = [];

  private varint(value: number): void {
    const bytes: number[] = [];
    let rest = BigInt.asUintN(64, BigInt(Math.trunc(value)));
    do {
      let byte = Number(rest & 0x7fn);
      rest >>= 7n;
      if (rest > 0n) byte |= 0x80;
      bytes.push(byte);
    } while (rest > 0n);
    this.chunks.push(Buffer.from(bytes));
  }

  private key(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  string(field: number, value: string | undefined): this {
    if (value === undefined || value === '') return this;
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  strings(field: number, values: readonly string[] | undefined): this {
    for (const value of values ?? []) this.bytes(field, Buffer.from(value, 'utf8'));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    if (!value) return this;
    this.key(field, 0);
    this.varint(1);
    return this;
  }

  int(field: number, value: number | undefined): this {
    if (value === undefined) return this;
    this.key(field, 0);
    this.varint(value);
    return this;
  }

  double(field: number, value: number | undefined): this {
    if (value === undefined) return this;
    this.key(field, 1);
    const buffer = Buffer.alloc(8);
    buffer.writeDoubleLE(value);
    this.chunks.push(buffer);
    return this;
  }

  /** An embedded message, written by `build` into its own writer. */
  message(field: number, build: (writer: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks);
  }

  private bytes(field: number, value: Buffer): this {
    this.key(field, 2);
    this.varint(value.length);
    this.chunks.push(value);
    return this;
  }
}
