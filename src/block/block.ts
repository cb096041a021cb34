/**
 * Block and block body codecs: `rlp([header, transactions, ommers])`, plus `withdrawals` from Shanghai
 * (EIP-4895). Prague's EIP-7685 requests are not in the body (only `requestsHash` in the header).
 *
 * Transactions stay as their EIP-2718 bytes, so this layer needs no tx decoder: in the block RLP a
 * legacy tx is an RLP list (its 2718 form is that list's encoding) and a typed tx is a byte string
 * holding `type ‖ payload`. Decoding checks only that outer shape (tx/ checks the inside); encoding
 * writes each back in the same form, so decode → encode reproduces canonical input byte for byte.
 *
 * Decoding is bounded by the input: every length is checked before use, tx payloads are skipped by
 * length without recursion, and the only nesting followed is header/withdrawal lists. Byte fields of
 * the result are views into the input. The body's consistency with the header (roots, withdrawals
 * present iff `withdrawalsRoot`) is block validation, not decoding.
 */
import { keccak256 } from "../crypto/keccak.js";
import { headerLength, writeHeader } from "../rlp/encode.js";
import { BlockError } from "./errors.js";
import { encodeHeader, type Header, readHeader } from "./header.js";
import { ListReader } from "./listReader.js";
import { encodeWithdrawal, readWithdrawal, type Withdrawal } from "./withdrawal.js";

export interface BlockBody {
  /** EIP-2718 encodings: a legacy tx is its RLP list, a typed tx is `type ‖ payload`. */
  transactions: Uint8Array[];
  /** Uncle headers; empty after the merge. */
  ommers: Header[];
  /** Shanghai+ withdrawals; null when the body has no withdrawals list (before Shanghai). */
  withdrawals: Withdrawal[] | null;
}

export interface Block {
  header: Header;
  body: BlockBody;
}

/** Reads the transactions list, normalising each entry to its EIP-2718 bytes (views). */
function readTransactions(r: ListReader): Uint8Array[] {
  const list = r.list("block.transactions");
  const txs: Uint8Array[] = [];
  while (list.hasMore()) {
    const it = list.item("block.transaction");
    if (it.list) {
      txs.push(it.raw);
      continue;
    }
    const b = it.payload;
    // SPEC: EIP-2718 TransactionType is in [0, 0x7f]; type 0 is legacy, which is never wrapped.
    if (b.length < 2 || b[0] === 0 || b[0] > 0x7f) {
      throw new BlockError("TX_ENCODING", `block.transactions[${txs.length}]: not a typed transaction envelope`);
    }
    txs.push(b);
  }
  return txs;
}

function readOmmers(r: ListReader): Header[] {
  const list = r.list("block.ommers");
  const ommers: Header[] = [];
  while (list.hasMore()) ommers.push(readHeader(list.list("block.ommer")));
  return ommers;
}

function readWithdrawals(r: ListReader): Withdrawal[] {
  const list = r.list("block.withdrawals");
  const out: Withdrawal[] = [];
  while (list.hasMore()) out.push(readWithdrawal(list));
  return out;
}

function readBodyParts(r: ListReader, what: string): BlockBody {
  const transactions = readTransactions(r);
  const ommers = readOmmers(r);
  const withdrawals = r.hasMore() ? readWithdrawals(r) : null;
  r.finish(what);
  return { transactions, ommers, withdrawals };
}

/** Decodes a block spanning all of `input`. Byte fields are views into `input`. */
export function decodeBlock(input: Uint8Array): Block {
  const r = ListReader.whole(input, "block");
  const header = readHeader(r.list("block.header"));
  const body = readBodyParts(r, "block");
  return { header, body };
}

/** Decodes a body `rlp([transactions, ommers, withdrawals?])` (eth/66 BlockBodies entries, storage). */
export function decodeBody(input: Uint8Array): BlockBody {
  return readBodyParts(ListReader.whole(input, "body"), "body");
}

/** The header's RLP inside a block's RLP (a view), e.g. to hash a block without decoding its body. */
export function blockHeaderRlp(blockRlp: Uint8Array): Uint8Array {
  const r = ListReader.whole(blockRlp, "block");
  const start = r.pos;
  r.list("block.header");
  return blockRlp.subarray(start, r.pos);
}

/** Hash of a block given as RLP: keccak256 of its header item, without decoding anything else. */
export function blockHashFromRlp(blockRlp: Uint8Array): Uint8Array {
  return keccak256(blockHeaderRlp(blockRlp));
}

// ---- encoding: measure every part, then write one buffer ----

/** Encoded size of one tx as a block-body list item. */
function txItemLength(tx: Uint8Array): number {
  if (tx.length === 0) throw new BlockError("TX_ENCODING", "empty transaction bytes");
  const t = tx[0];
  if (t >= 0xc0) return tx.length; // legacy: already an RLP list
  if (t === 0 || t > 0x7f || tx.length < 2) throw new BlockError("TX_ENCODING", "not an EIP-2718 transaction");
  return headerLength(tx.length) + tx.length;
}

function listLength(payload: number): number {
  return headerLength(payload) + payload;
}

function writeList(out: Uint8Array, pos: number, payload: number, items: readonly Uint8Array[]): number {
  pos = writeHeader(out, pos, payload, 0xc0);
  for (const it of items) {
    out.set(it, pos);
    pos += it.length;
  }
  return pos;
}

interface BodyParts {
  txPayload: number;
  ommers: Uint8Array[];
  ommersPayload: number;
  withdrawals: Uint8Array[] | null;
  withdrawalsPayload: number;
  /** Sum of the three or four encoded list items. */
  length: number;
}

function measureBody(body: BlockBody): BodyParts {
  let txPayload = 0;
  for (const tx of body.transactions) txPayload += txItemLength(tx);
  const ommers = body.ommers.map(encodeHeader);
  let ommersPayload = 0;
  for (const o of ommers) ommersPayload += o.length;
  let withdrawals: Uint8Array[] | null = null;
  let withdrawalsPayload = 0;
  if (body.withdrawals !== null) {
    withdrawals = body.withdrawals.map(encodeWithdrawal);
    for (const w of withdrawals) withdrawalsPayload += w.length;
  }
  const length =
    listLength(txPayload) + listLength(ommersPayload) + (withdrawals === null ? 0 : listLength(withdrawalsPayload));
  return { txPayload, ommers, ommersPayload, withdrawals, withdrawalsPayload, length };
}

function writeBodyParts(out: Uint8Array, pos: number, body: BlockBody, m: BodyParts): number {
  pos = writeHeader(out, pos, m.txPayload, 0xc0);
  for (const tx of body.transactions) {
    if (tx[0] < 0xc0) pos = writeHeader(out, pos, tx.length, 0x80);
    out.set(tx, pos);
    pos += tx.length;
  }
  pos = writeList(out, pos, m.ommersPayload, m.ommers);
  if (m.withdrawals !== null) pos = writeList(out, pos, m.withdrawalsPayload, m.withdrawals);
  return pos;
}

/** RLP encoding of a block: the exact bytes a decoded canonical block came from. */
export function encodeBlock(block: Block): Uint8Array {
  const header = encodeHeader(block.header);
  const m = measureBody(block.body);
  const payload = header.length + m.length;
  const out = new Uint8Array(listLength(payload));
  let pos = writeHeader(out, 0, payload, 0xc0);
  out.set(header, pos);
  pos += header.length;
  writeBodyParts(out, pos, block.body, m);
  return out;
}

/** RLP encoding of a body `[transactions, ommers, withdrawals?]`. */
export function encodeBody(body: BlockBody): Uint8Array {
  const m = measureBody(body);
  const out = new Uint8Array(listLength(m.length));
  const pos = writeHeader(out, 0, m.length, 0xc0);
  writeBodyParts(out, pos, body, m);
  return out;
}
