/**
 * Receipt log (Yellow Paper §4.3.1 log entry): `rlp([address, [topic…], data])`. Topics are 32
 * bytes; the EVM emits at most 4, but the codec, like geth's, does not limit the count. Decoded
 * fields are views.
 */
import { encodedLength, encodeRlpInto, headerLength, writeHeader } from "../rlp/encode.js";
import { BlockError } from "./errors.js";
import { ListReader } from "./listReader.js";

/** One log of a receipt (geth `types.Log`, reth `Log`): not to be confused with util/log.ts `Logger`. */
export interface ReceiptLog {
  /** 20-byte emitting contract. */
  address: Uint8Array;
  /** 32-byte topics, LOG0–LOG4. */
  topics: Uint8Array[];
  data: Uint8Array;
}

/** Reads the next log list item from `r`. */
export function readLog(r: ListReader): ReceiptLog {
  const l = r.list("log");
  const address = l.fixed(20, "log.address");
  const t = l.list("log.topics");
  const topics: Uint8Array[] = [];
  while (t.hasMore()) topics.push(t.fixed(32, "log.topic"));
  const data = l.bytes("log.data");
  l.finish("log");
  return { address, topics, data };
}

/** Decodes one RLP log spanning all of `input`. */
export function decodeLog(input: Uint8Array): ReceiptLog {
  const r = ListReader.whole(input, "log");
  const address = r.fixed(20, "log.address");
  const t = r.list("log.topics");
  const topics: Uint8Array[] = [];
  while (t.hasMore()) topics.push(t.fixed(32, "log.topic"));
  const data = r.bytes("log.data");
  r.finish("log");
  return { address, topics, data };
}

function checkLog(log: ReceiptLog): void {
  if (log.address.length !== 20) {
    throw new BlockError("FIELD_LENGTH", `log.address: expected 20 bytes, got ${log.address.length}`);
  }
  for (const t of log.topics) {
    if (t.length !== 32) throw new BlockError("FIELD_LENGTH", `log.topic: expected 32 bytes, got ${t.length}`);
  }
}

function topicsPayload(log: ReceiptLog): number {
  return 33 * log.topics.length;
}

function logPayload(log: ReceiptLog): number {
  const tp = topicsPayload(log);
  return 21 + headerLength(tp) + tp + encodedLength(log.data);
}

/** Encoded size of `log` as an RLP list item (validates field sizes). */
export function logEncodedLength(log: ReceiptLog): number {
  checkLog(log);
  const p = logPayload(log);
  return headerLength(p) + p;
}

/** Writes the encoding of `log` at `pos`; returns the end position. Size it with `logEncodedLength`. */
export function writeLog(out: Uint8Array, pos: number, log: ReceiptLog): number {
  pos = writeHeader(out, pos, logPayload(log), 0xc0);
  out[pos++] = 0x94; // 20-byte string
  out.set(log.address, pos);
  pos += 20;
  pos = writeHeader(out, pos, topicsPayload(log), 0xc0);
  for (const t of log.topics) {
    out[pos++] = 0xa0; // 32-byte string
    out.set(t, pos);
    pos += 32;
  }
  return encodeRlpInto(out, pos, log.data);
}

/** RLP encoding of one log. */
export function encodeLog(log: ReceiptLog): Uint8Array {
  const out = new Uint8Array(logEncodedLength(log));
  writeLog(out, 0, log);
  return out;
}
