/**
 * EIP-7685 execution-layer requests: EIP-6110 deposits read from the deposit contract's logs, and the
 * requestsHash commitment sha256(‖ sha256(type ‖ data) for each type with data).
 */
import type { ReceiptLog } from "../block/log.js";
import { sha256 } from "../crypto/sha256.js";
import { equalBytes } from "../primitives/bytes.js";
import { hexToBytes } from "../primitives/hex.js";

/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)"). */
export const DEPOSIT_EVENT_TOPIC: Uint8Array = hexToBytes(
  "0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5",
);

export const DEPOSIT_REQUEST_TYPE = 0x00;
export const WITHDRAWAL_REQUEST_TYPE = 0x01;
export const CONSOLIDATION_REQUEST_TYPE = 0x02;

/** ABI layout of DepositEvent data: [offset, length] of pubkey, withdrawal credentials, amount, signature, index. */
const DEPOSIT_FIELDS: readonly [number, number][] = [
  [160, 48],
  [256, 32],
  [320, 8],
  [384, 96],
  [512, 8],
];
const DEPOSIT_DATA_LENGTH = 576;

/** The 32-byte big-endian word at `pos` when it is below 2^48, else -1. */
function readSmallWord(b: Uint8Array, pos: number): number {
  for (let i = pos; i < pos + 26; i++) if (b[i] !== 0) return -1;
  let n = 0;
  for (let i = pos + 26; i < pos + 32; i++) n = n * 256 + b[i];
  return n;
}

/**
 * Appends the request bytes of one DepositEvent log to `out`; false when the log's layout is not the
 * deposit contract's (EIP-6110: the block is then invalid).
 */
export function appendDepositRequest(log: ReceiptLog, out: number[]): boolean {
  const d = log.data;
  if (d.length !== DEPOSIT_DATA_LENGTH) return false;
  for (let i = 0; i < DEPOSIT_FIELDS.length; i++) {
    const [offset, size] = DEPOSIT_FIELDS[i];
    if (readSmallWord(d, i * 32) !== offset) return false;
    if (readSmallWord(d, offset) !== size) return false;
  }
  for (const [offset, size] of DEPOSIT_FIELDS) {
    for (let j = 0; j < size; j++) out.push(d[offset + 32 + j]);
  }
  return true;
}

/** Deposit requests of a block's logs (deposit contract, DepositEvent topic), or null on a malformed log. */
export function depositRequests(logs: readonly ReceiptLog[], depositContract: Uint8Array): Uint8Array | null {
  const out: number[] = [];
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i];
    if (!equalBytes(l.address, depositContract) || l.topics.length === 0) continue;
    if (!equalBytes(l.topics[0], DEPOSIT_EVENT_TOPIC)) continue;
    if (!appendDepositRequest(l, out)) return null;
  }
  return Uint8Array.from(out);
}

/** EIP-7685 requestsHash over `requests` given as [type, data] in type order. */
export function requestsHash(requests: readonly [number, Uint8Array][]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [type, data] of requests) {
    if (data.length === 0) continue;
    const b = new Uint8Array(1 + data.length);
    b[0] = type;
    b.set(data, 1);
    parts.push(sha256(b));
  }
  const all = new Uint8Array(parts.length * 32);
  for (let i = 0; i < parts.length; i++) all.set(parts[i], i * 32);
  return sha256(all);
}
