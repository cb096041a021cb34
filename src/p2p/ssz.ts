/**
 * SSZ of OP execution payloads as gossip and req-resp carry them (OP specs rollup-node-p2p.md,
 * op-service/eth/ssz.go; the SSZ spec for offsets and lists). Payloads stay in their Engine API
 * JSON shape (`PayloadJson`, what the engine client sends and receives), so a gossiped block goes to
 * newPayload without another conversion.
 *
 * Versions are the gossip topic index N:
 * - 0: ExecutionPayload V1 (before Canyon), fixed part 508 bytes;
 * - 1: V2, adds the withdrawals offset (Canyon, Delta), 512;
 * - 2: V3, adds blobGasUsed and excessBlobGas (Ecotone … Holocene), 528; the envelope puts the
 *   parent beacon block root (32 bytes) first;
 * - 3: V3 plus withdrawalsRoot (32) at the end of the fixed part (Isthmus and later), 560.
 *
 * Decoding is bounded by the input: offsets must start right after the fixed part, increase and stay
 * inside the input; extraData ≤ 32 bytes, ≤ 2^20 transactions, ≤ 16 withdrawals of 44 bytes; no
 * trailing bytes. Failures are `SszError` values.
 */
import type { PayloadJson } from "../engine/payload.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";

export type BlockVersion = 0 | 1 | 2 | 3;

export class SszError extends Error {
  override readonly name = "SszError";
}

export interface PayloadEnvelopeJson {
  readonly executionPayload: PayloadJson;
  readonly parentBeaconBlockRoot: string | null;
}

const MAX_EXTRA_DATA = 32;
const MAX_TXS = 1 << 20;
const MAX_TX_BYTES = 1 << 30;
const MAX_WITHDRAWALS = 16;
const WITHDRAWAL_SIZE = 44;

export function fixedSize(v: BlockVersion): number {
  return v === 0 ? 508 : v === 1 ? 512 : v === 2 ? 528 : 560;
}

// --- encoding ---

/**
 * `0x`-prefixed even-length hex. A plain character class, not `(..)*`: a group repeated per byte
 * overflows V8's regexp backtrack stack on multi-megabyte transactions.
 */
function isHexData(v: unknown): v is string {
  return typeof v === "string" && v.length % 2 === 0 && /^0x[0-9a-fA-F]*$/.test(v);
}

function hexField(p: PayloadJson, k: string, size?: number): Uint8Array {
  const v = p[k];
  if (!isHexData(v)) throw new SszError(`${k}: want hex data`);
  const b = hexToBytes(v);
  if (size !== undefined && b.length !== size) throw new SszError(`${k}: want ${size} bytes, got ${b.length}`);
  return b;
}

function qtyField(p: PayloadJson | Record<string, unknown>, k: string): bigint {
  const v = p[k];
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]+$/.test(v)) throw new SszError(`${k}: want a quantity`);
  return BigInt(v);
}

function putU64(out: Uint8Array, at: number, v: bigint): void {
  if (v < 0n || v >= 1n << 64n) throw new SszError("value does not fit 64 bits");
  new DataView(out.buffer, out.byteOffset).setBigUint64(at, v, true);
}

function putU32(out: Uint8Array, at: number, v: number): void {
  new DataView(out.buffer, out.byteOffset).setUint32(at, v, true);
}

/** SSZ of `payload` (Engine API JSON) in `version`'s layout. Throws SszError on a malformed payload. */
export function encodePayload(version: BlockVersion, payload: PayloadJson): Uint8Array {
  const extra = hexField(payload, "extraData");
  if (extra.length > MAX_EXTRA_DATA) throw new SszError(`extraData: ${extra.length} bytes, max ${MAX_EXTRA_DATA}`);
  const txsJson = payload.transactions;
  if (!Array.isArray(txsJson)) throw new SszError("transactions: want an array");
  const txs = txsJson.map((t, i) => {
    if (!isHexData(t)) throw new SszError(`transactions[${i}]: want hex`);
    return hexToBytes(t);
  });
  let withdrawals: Record<string, unknown>[] = [];
  if (version >= 1) {
    const w = payload.withdrawals;
    if (!Array.isArray(w)) throw new SszError("withdrawals: want an array from Canyon");
    if (w.length > MAX_WITHDRAWALS) throw new SszError(`withdrawals: ${w.length}, max ${MAX_WITHDRAWALS}`);
    withdrawals = w as Record<string, unknown>[];
  }
  if (txs.length > MAX_TXS) throw new SszError(`transactions: ${txs.length}, max ${MAX_TXS}`);
  for (const t of txs) if (t.length > MAX_TX_BYTES) throw new SszError("transactions: one over 1 GiB");
  const fixed = fixedSize(version);
  const txBytes = txs.reduce((n, t) => n + 4 + t.length, 0);
  const size = fixed + extra.length + txBytes + withdrawals.length * WITHDRAWAL_SIZE;
  const out = new Uint8Array(size);
  let o = 0;
  const put = (b: Uint8Array) => {
    out.set(b, o);
    o += b.length;
  };
  put(hexField(payload, "parentHash", 32));
  put(hexField(payload, "feeRecipient", 20));
  put(hexField(payload, "stateRoot", 32));
  put(hexField(payload, "receiptsRoot", 32));
  put(hexField(payload, "logsBloom", 256));
  put(hexField(payload, "prevRandao", 32));
  for (const k of ["blockNumber", "gasLimit", "gasUsed", "timestamp"]) {
    putU64(out, o, qtyField(payload, k));
    o += 8;
  }
  const extraOffset = fixed;
  const txOffset = extraOffset + extra.length;
  const wdOffset = txOffset + txBytes;
  putU32(out, o, extraOffset);
  o += 4;
  let fee = qtyField(payload, "baseFeePerGas");
  if (fee >= 1n << 256n) throw new SszError("baseFeePerGas: over 256 bits");
  for (let i = 0; i < 32; i++) {
    out[o + i] = Number(fee & 0xffn);
    fee >>= 8n;
  }
  o += 32;
  put(hexField(payload, "blockHash", 32));
  putU32(out, o, txOffset);
  o += 4;
  if (version >= 1) {
    putU32(out, o, wdOffset);
    o += 4;
  }
  if (version >= 2) {
    putU64(out, o, qtyField(payload, "blobGasUsed"));
    putU64(out, o + 8, qtyField(payload, "excessBlobGas"));
    o += 16;
  }
  if (version === 3) put(hexField(payload, "withdrawalsRoot", 32));
  put(extra);
  let rel = txs.length * 4;
  for (const t of txs) {
    putU32(out, o, rel);
    o += 4;
    rel += t.length;
  }
  for (const t of txs) put(t);
  for (const w of withdrawals) {
    putU64(out, o, qtyField(w, "index"));
    putU64(out, o + 8, qtyField(w, "validatorIndex"));
    o += 16;
    const addr = w.address;
    if (typeof addr !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(addr)) throw new SszError("withdrawal address");
    put(hexToBytes(addr));
    putU64(out, o, qtyField(w, "amount"));
    o += 8;
  }
  return out;
}

/** The envelope bytes: `parentBeaconBlockRoot ‖ payload` from version 2, the payload alone before. */
export function encodeEnvelope(version: BlockVersion, env: PayloadEnvelopeJson): Uint8Array {
  const payload = encodePayload(version, env.executionPayload);
  if (version < 2) return payload;
  const root = env.parentBeaconBlockRoot;
  if (root === null || !/^0x[0-9a-fA-F]{64}$/.test(root)) {
    throw new SszError("parentBeaconBlockRoot: required from Ecotone");
  }
  const out = new Uint8Array(32 + payload.length);
  out.set(hexToBytes(root), 0);
  out.set(payload, 32);
  return out;
}

// --- decoding ---

const q = (v: bigint | number): string => `0x${v.toString(16)}`;

/** Decodes `version`'s payload SSZ into Engine API JSON. */
export function decodePayload(version: BlockVersion, b: Uint8Array): PayloadJson | SszError {
  const fixed = fixedSize(version);
  if (b.length < fixed) return new SszError(`payload: ${b.length} bytes, fixed part is ${fixed}`);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let o = 0;
  const take = (n: number): string => {
    const s = bytesToHex(b.subarray(o, o + n));
    o += n;
    return s;
  };
  const u64 = (): string => {
    const v = dv.getBigUint64(o, true);
    o += 8;
    return q(v);
  };
  const u32 = (): number => {
    const v = dv.getUint32(o, true);
    o += 4;
    return v;
  };
  const p: Record<string, unknown> = {};
  p.parentHash = take(32);
  p.feeRecipient = take(20);
  p.stateRoot = take(32);
  p.receiptsRoot = take(32);
  p.logsBloom = take(256);
  p.prevRandao = take(32);
  p.blockNumber = u64();
  p.gasLimit = u64();
  p.gasUsed = u64();
  p.timestamp = u64();
  const extraOffset = u32();
  let fee = 0n;
  for (let i = 31; i >= 0; i--) fee = (fee << 8n) | BigInt(b[o + i]!);
  o += 32;
  p.baseFeePerGas = q(fee);
  p.blockHash = take(32);
  const txOffset = u32();
  let wdOffset = b.length;
  if (version >= 1) wdOffset = u32();
  if (version >= 2) {
    p.blobGasUsed = u64();
    p.excessBlobGas = u64();
  }
  if (version === 3) p.withdrawalsRoot = take(32);
  if (extraOffset !== fixed) return new SszError(`payload: extraData offset ${extraOffset}, want ${fixed}`);
  if (txOffset < extraOffset || txOffset > wdOffset || wdOffset > b.length) {
    return new SszError("payload: offsets out of order or past the input");
  }
  if (txOffset - extraOffset > MAX_EXTRA_DATA) return new SszError("payload: extraData over 32 bytes");
  p.extraData = bytesToHex(b.subarray(extraOffset, txOffset));
  // Transactions: a list of byte lists (offset table, then the bodies).
  const txs = b.subarray(txOffset, wdOffset);
  const list: string[] = [];
  if (txs.length > 0) {
    if (txs.length < 4) return new SszError("payload: transactions section too short");
    const tdv = new DataView(txs.buffer, txs.byteOffset, txs.byteLength);
    const first = tdv.getUint32(0, true);
    if (first % 4 !== 0 || first === 0 || first > txs.length) return new SszError("payload: bad first tx offset");
    const count = first / 4;
    if (count > MAX_TXS) return new SszError("payload: too many transactions");
    let prev = first;
    for (let i = 0; i < count; i++) {
      const start = i === 0 ? first : prev;
      const end = i + 1 < count ? tdv.getUint32((i + 1) * 4, true) : txs.length;
      if (end < start || end > txs.length) return new SszError(`payload: tx ${i} offset out of range`);
      if (end - start > MAX_TX_BYTES) return new SszError(`payload: tx ${i} too large`);
      list.push(bytesToHex(txs.subarray(start, end)));
      prev = end;
    }
  }
  p.transactions = list;
  if (version >= 1) {
    const wd = b.subarray(wdOffset);
    if (wd.length % WITHDRAWAL_SIZE !== 0) return new SszError("payload: withdrawals section is not a multiple of 44");
    const n = wd.length / WITHDRAWAL_SIZE;
    if (n > MAX_WITHDRAWALS) return new SszError(`payload: ${n} withdrawals, max ${MAX_WITHDRAWALS}`);
    const wdv = new DataView(wd.buffer, wd.byteOffset, wd.byteLength);
    const out: Record<string, string>[] = [];
    for (let i = 0; i < n; i++) {
      const at = i * WITHDRAWAL_SIZE;
      out.push({
        index: q(wdv.getBigUint64(at, true)),
        validatorIndex: q(wdv.getBigUint64(at + 8, true)),
        address: bytesToHex(wd.subarray(at + 16, at + 36)),
        amount: q(wdv.getBigUint64(at + 36, true)),
      });
    }
    p.withdrawals = out;
  } else if (wdOffset !== b.length) {
    return new SszError("payload: trailing bytes");
  }
  return p;
}

/** Decodes an envelope: the parent beacon block root first from version 2. */
export function decodeEnvelope(version: BlockVersion, b: Uint8Array): PayloadEnvelopeJson | SszError {
  if (version < 2) {
    const p = decodePayload(version, b);
    return p instanceof SszError ? p : { executionPayload: p, parentBeaconBlockRoot: null };
  }
  if (b.length < 32) return new SszError("envelope: shorter than the parent beacon block root");
  const p = decodePayload(version, b.subarray(32));
  return p instanceof SszError ? p : { executionPayload: p, parentBeaconBlockRoot: bytesToHex(b.subarray(0, 32)) };
}
