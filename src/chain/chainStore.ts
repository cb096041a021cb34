/**
 * The chain's stored data over a KvStore: headers, bodies and receipts by block hash, total
 * difficulty, the canonical number → hash index, canonical tx positions, and the named heads in
 * `meta`. Reads decode on demand; writes go into a caller's WriteBatch so a block's data, its state
 * and the head pointer land in one atomic write (storage/tables.ts documents every layout).
 */
import { type BlockBody, decodeBody, encodeBody } from "../block/block.js";
import { decodeHeader, encodeHeader, type Header } from "../block/header.js";
import { decodeReceipt, encodeReceipt, type Receipt } from "../block/receipt.js";
import { bytesKey, compareBytes, equalBytes } from "../primitives/bytes.js";
import { bigintToBytes } from "../primitives/u256.js";
import { decodeRlp, expectBytes, expectList } from "../rlp/decode.js";
import { encodeRlp } from "../rlp/encode.js";
import { joinEncodedBatches } from "../storage/batchCodec.js";
import type { KvReader, WriteBatch } from "../storage/kv.js";

const enc = new TextEncoder();
export const META_HEAD = enc.encode("head");
export const META_SAFE = enc.encode("safe");
export const META_FINALIZED = enc.encode("finalized");
/** The block whose post-state the flat tables hold (can differ from head between newPayload and forkchoice). */
export const META_STATE = enc.encode("stateBlock");
/**
 * Undo record of a state write in flight (crash recovery): the undo of the import's first state
 * write. The undos of its later writes, newest first, are in META_PENDING_TAIL, so that a later
 * write does not write the first one's (a row per written slot) again; `pendingUndo` joins them.
 */
export const META_PENDING = enc.encode("pendingUndo");
export const META_PENDING_TAIL = enc.encode("pendingUndoTail");
/** The chain config JSON given at init. */
export const META_CONFIG = enc.encode("chainConfig");

/**
 * The undo record of a state write in flight (every undo of the import so far, newest first, as one
 * encoded batch), or undefined when none is.
 */
export function pendingUndo(kv: KvReader): Uint8Array | undefined {
  const head = kv.get("meta", META_PENDING);
  if (head === undefined) return undefined;
  const tail = kv.get("meta", META_PENDING_TAIL);
  return tail === undefined ? head : joinEncodedBatches([tail, head]);
}

/** Adds to `b` the deletes of the in-flight undo record's keys. */
export function clearPendingUndo(b: WriteBatch): WriteBatch {
  return b.del("meta", META_PENDING).del("meta", META_PENDING_TAIL);
}

export function numberKey(n: number): Uint8Array {
  const k = new Uint8Array(8);
  new DataView(k.buffer).setBigUint64(0, BigInt(n));
  return k;
}

/** Invalid blocks kept (geth core/rawdb badBlockToKeep): the ones with the highest numbers. */
export const BAD_BLOCK_LIMIT = 10;

/** Key of a kept invalid block: number (u64 BE) ‖ hash, so the table is in block-number order. */
export function badBlockKey(number: number, hash: Uint8Array): Uint8Array {
  const k = new Uint8Array(40);
  k.set(numberKey(number), 0);
  k.set(hash, 8);
  return k;
}

/** A kept invalid block: its hash, number and RLP as it was given. */
export interface BadBlock {
  readonly hash: Uint8Array;
  readonly number: number;
  readonly rlp: Uint8Array;
}

export interface TxLocation {
  readonly blockHash: Uint8Array;
  readonly index: number;
}

/** Decoded headers by hash, bounded (oldest dropped first). */
export class HeaderCache {
  private readonly map = new Map<string, Header>();
  constructor(private readonly limit = 256) {}
  get(key: string): Header | undefined {
    return this.map.get(key);
  }
  put(key: string, h: Header): void {
    if (this.map.size >= this.limit) this.map.delete(this.map.keys().next().value as string);
    this.map.set(key, h);
  }
}

export class ChainStore {
  /**
   * `decoded`: a cache of decoded headers by hash that outlives this store (a header never changes
   * under its hash); the evmCall workers keep one across calls. Callers must not mutate headers.
   */
  constructor(
    readonly kv: KvReader,
    private readonly decoded: HeaderCache | null = null,
  ) {}

  headerRlp(hash: Uint8Array): Uint8Array | undefined {
    return this.kv.get("headers", hash);
  }

  /**
   * Puts `header` (hash `hash`, its state already stored) into `b` as the chain's base block: stored
   * with an empty body and no receipts, canonical, every head pointing at it, and the chain config
   * stored. Genesis (`Blockchain.init`) and `opal-exec init-state` write their first block so.
   */
  putBaseBlock(b: WriteBatch, hash: Uint8Array, header: Header, configJson: unknown): void {
    const body: BlockBody = { transactions: [], ommers: [], withdrawals: header.withdrawalsRoot === null ? null : [] };
    this.putBlock(b, hash, header, body, header.difficulty);
    this.putReceipts(b, hash, []);
    this.setCanonical(b, header.number, hash, []);
    for (const k of [META_HEAD, META_SAFE, META_FINALIZED, META_STATE]) this.putMeta(b, k, hash);
    this.putMeta(b, META_CONFIG, new TextEncoder().encode(JSON.stringify(configJson)));
  }

  header(hash: Uint8Array): Header | null {
    const c = this.decoded;
    if (c === null) {
      const rlp = this.headerRlp(hash);
      return rlp === undefined ? null : decodeHeader(rlp);
    }
    const k = bytesKey(hash);
    const hit = c.get(k);
    if (hit !== undefined) return hit;
    const rlp = this.headerRlp(hash);
    if (rlp === undefined) return null;
    const h = decodeHeader(rlp);
    c.put(k, h);
    return h;
  }

  bodyRlp(hash: Uint8Array): Uint8Array | undefined {
    return this.kv.get("bodies", hash);
  }

  body(hash: Uint8Array): BlockBody | null {
    const rlp = this.bodyRlp(hash);
    return rlp === undefined ? null : decodeBody(rlp);
  }

  receiptsRlp(hash: Uint8Array): Uint8Array | undefined {
    return this.kv.get("receipts", hash);
  }

  receipts(hash: Uint8Array): Receipt[] | null {
    const rlp = this.receiptsRlp(hash);
    if (rlp === undefined) return null;
    return expectList(decodeRlp(rlp), "receipts").map((r) => decodeReceipt(expectBytes(r, "receipt")));
  }

  totalDifficulty(hash: Uint8Array): bigint | null {
    const v = this.kv.get("difficulty", hash);
    if (v === undefined) return null;
    let n = 0n;
    for (const b of v) n = (n << 8n) | BigInt(b);
    return n;
  }

  canonicalHash(n: number): Uint8Array | null {
    return this.kv.get("canonical", numberKey(n)) ?? null;
  }

  txLocation(txHash: Uint8Array): TxLocation | null {
    const v = this.kv.get("txLookup", txHash);
    if (v === undefined || v.length !== 36) return null;
    return { blockHash: v.subarray(0, 32), index: new DataView(v.buffer, v.byteOffset + 32, 4).getUint32(0) };
  }

  meta(key: Uint8Array): Uint8Array | null {
    return this.kv.get("meta", key) ?? null;
  }

  /** The kept invalid blocks, highest number first (geth ReadAllBadBlocks order). */
  badBlocks(): BadBlock[] {
    const out: BadBlock[] = [];
    for (const [k, v] of this.kv.iterate("badBlocks", { reverse: true })) {
      if (k.length !== 40) continue;
      const number = Number(new DataView(k.buffer, k.byteOffset, 8).getBigUint64(0));
      out.push({ hash: k.subarray(8), number, rlp: v });
    }
    return out;
  }

  /** A kept invalid block by hash (geth ReadBadBlock), or null. */
  badBlock(hash: Uint8Array): BadBlock | null {
    for (const b of this.badBlocks()) if (equalBytes(b.hash, hash)) return b;
    return null;
  }

  // ---- writes into a batch -------------------------------------------------------------------

  putBlock(b: WriteBatch, hash: Uint8Array, header: Header, body: BlockBody, td: bigint): void {
    b.put("headers", hash, encodeHeader(header));
    b.put("bodies", hash, encodeBody(body));
    b.put("difficulty", hash, bigintToBytes(td));
  }

  /**
   * Stores a block's receipts (their consensus encodings as one RLP list). `encoded[i]`, when given,
   * is receipt i's encoding already made (ImportedBlock.receiptsEncoded) and is stored as it is.
   */
  putReceipts(
    b: WriteBatch,
    hash: Uint8Array,
    receipts: readonly Receipt[],
    encoded?: readonly (Uint8Array | null)[],
  ): void {
    b.put("receipts", hash, encodeRlp(receipts.map((r, i) => encoded?.[i] ?? encodeReceipt(r))));
  }

  /** Makes `hash` canonical at `number` and indexes its txs. */
  setCanonical(b: WriteBatch, number: number, hash: Uint8Array, txHashes: readonly Uint8Array[]): void {
    b.put("canonical", numberKey(number), hash);
    for (let i = 0; i < txHashes.length; i++) {
      const v = new Uint8Array(36);
      v.set(hash, 0);
      new DataView(v.buffer).setUint32(32, i);
      b.put("txLookup", txHashes[i], v);
    }
  }

  /** Removes the canonical entry at `number` and its tx index (a reorg unwinding it). */
  unsetCanonical(b: WriteBatch, number: number, txHashes: readonly Uint8Array[]): void {
    b.del("canonical", numberKey(number));
    for (const h of txHashes) b.del("txLookup", h);
  }

  /**
   * Keeps an invalid block as geth's WriteBadBlock does: a block already kept is skipped, and past
   * BAD_BLOCK_LIMIT the lowest-numbered ones are dropped. Returns false when nothing is to be written.
   */
  putBadBlock(b: WriteBatch, number: number, hash: Uint8Array, rlp: Uint8Array): boolean {
    const kept = this.badBlocks();
    if (kept.some((x) => x.number === number && equalBytes(x.hash, hash))) return false;
    const all = [...kept.map((x) => ({ number: x.number, hash: x.hash })), { number, hash }];
    // Highest numbers first, as geth sorts them (ties: key order, the table's own).
    all.sort(
      (x, y) => y.number - x.number || compareBytes(badBlockKey(y.number, y.hash), badBlockKey(x.number, x.hash)),
    );
    const dropped = all.slice(BAD_BLOCK_LIMIT);
    if (dropped.some((x) => x.number === number && equalBytes(x.hash, hash))) return false;
    b.put("badBlocks", badBlockKey(number, hash), rlp);
    for (const x of dropped) b.del("badBlocks", badBlockKey(x.number, x.hash));
    return true;
  }

  putMeta(b: WriteBatch, key: Uint8Array, value: Uint8Array): void {
    b.put("meta", key, value);
  }
}
