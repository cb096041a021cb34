/**
 * Sequential reader over the items of one RLP list, for the tx decoders. Each read checks the item
 * kind and width and throws a TxError naming the field; framing errors come from rlp/decode.ts
 * (RlpError) and are wrapped by the envelope. No tree is built: fields are read in place and byte
 * strings are views into the input.
 */
import { bytesToBigint } from "../primitives/u256.js";
import { decodeHeader } from "../rlp/decode.js";
import { TxError } from "./errors.js";

export class RlpCursor {
  pos: number;

  constructor(
    readonly input: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  /** True when every item of the list has been read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  private next(what: string): { list: boolean; start: number; length: number } {
    if (this.pos >= this.end) throw new TxError("TOO_FEW_FIELDS", `${what}: missing`);
    const h = decodeHeader(this.input, this.pos, this.end);
    this.pos = h.start + h.length;
    return h;
  }

  /** Next item as a byte string (view). */
  bytes(what: string): Uint8Array {
    const h = this.next(what);
    if (h.list) throw new TxError("EXPECTED_BYTES", `${what}: expected a byte string, got a list`);
    return this.input.subarray(h.start, h.start + h.length);
  }

  /** Next item as a list; returns a cursor over its items. */
  list(what: string): RlpCursor {
    const h = this.next(what);
    if (!h.list) throw new TxError("EXPECTED_LIST", `${what}: expected a list, got a byte string`);
    return new RlpCursor(this.input, h.start, h.start + h.length);
  }

  /** Whether the next item is a list (without consuming it); false at the end. */
  nextIsList(): boolean {
    if (this.pos >= this.end) return false;
    return decodeHeader(this.input, this.pos, this.end).list;
  }

  private int(what: string, maxBytes: number): Uint8Array {
    const b = this.bytes(what);
    if (b.length > 0 && b[0] === 0) throw new TxError("INT_LEADING_ZERO", `${what}: integer has leading zero bytes`);
    if (b.length > maxBytes) throw new TxError("INT_OVERFLOW", `${what}: integer wider than ${maxBytes} bytes`);
    return b;
  }

  u64(what: string): bigint {
    return bytesToBigint(this.int(what, 8));
  }

  u256(what: string): bigint {
    return bytesToBigint(this.int(what, 32));
  }

  u8(what: string): number {
    const b = this.int(what, 1);
    return b.length === 0 ? 0 : b[0];
  }

  /** RLP bool: 0x80 = false, 0x01 = true; anything else is rejected (as op-geth's rlp does). */
  bool(what: string): boolean {
    const b = this.bytes(what);
    if (b.length === 0) return false;
    if (b.length === 1 && b[0] === 1) return true;
    throw new TxError("BOOL_INVALID", `${what}: boolean must be 0x80 or 0x01`);
  }

  address(what: string): Uint8Array {
    const b = this.bytes(what);
    if (b.length !== 20) throw new TxError("ADDRESS_LENGTH", `${what}: address has ${b.length} bytes, want 20`);
    return b;
  }

  /** Empty string (contract creation) → null, else a 20-byte address. */
  optionalAddress(what: string): Uint8Array | null {
    const b = this.bytes(what);
    if (b.length === 0) return null;
    if (b.length !== 20) throw new TxError("ADDRESS_LENGTH", `${what}: address has ${b.length} bytes, want 0 or 20`);
    return b;
  }

  hash32(what: string): Uint8Array {
    const b = this.bytes(what);
    if (b.length !== 32) throw new TxError("HASH_LENGTH", `${what}: has ${b.length} bytes, want 32`);
    return b;
  }

  /** Throws when items remain after the last expected field. */
  finish(what: string): void {
    if (this.pos < this.end) throw new TxError("TOO_MANY_FIELDS", `${what}: more fields than the type defines`);
  }
}
