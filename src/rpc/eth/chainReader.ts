import type { BlockBody } from "../../block/block.js";
import { type Header, headerHash as headerHashOf } from "../../block/header.js";
import type { ReceiptLog } from "../../block/log.js";
import type { Receipt } from "../../block/receipt.js";
import type { ChainView } from "../../chain/blockchain.js";
import { META_FINALIZED, META_SAFE } from "../../chain/chainStore.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { keccak256 } from "../../crypto/keccak.js";
import { l1ReceiptFields } from "../../executor/op/l1Cost.js";
import { bloomHasHash } from "../../primitives/bloom.js";
import { bytesKey, equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { decodeTx, txHash } from "../../tx/envelope.js";
import { type L1BlockInfo, parseL1BlockInfo } from "../../tx/l1BlockInfo.js";
import { recoverSenders } from "../../tx/recoverPacked.js";
import { type Tx, TxType } from "../../tx/tx.js";
import { blockJson, type LogPlace, logJson, type ReceiptPlace, receiptJson, type TxExtras, txJson } from "../format.js";

/** A resolved block selector: a canonical tag/number or an explicit hash. */
export type BlockSelector =
  | { readonly kind: "tag"; readonly tag: "latest" | "earliest" | "pending" | "safe" | "finalized" }
  | { readonly kind: "number"; readonly number: number }
  | { readonly kind: "hash"; readonly hash: Uint8Array; readonly requireCanonical: boolean };

export interface DecodedBlock {
  readonly hash: Uint8Array;
  readonly header: Header;
  readonly body: BlockBody;
  readonly txs: Tx[];
  readonly txHashes: Uint8Array[];
  readonly senders: Uint8Array[];
  readonly receipts: Receipt[] | null;
  readonly size: number;
}

/** Decoded blocks kept (geth's blockCacheLimit). */
export const CACHE_BLOCKS = 256;
/**
 * Transactions kept over all cached blocks. A decoded tx with its hash, sender and receipt holds
 * about 1.6 KB of heap (measured in the soak, 43-tx blocks), so 256 full blocks could hold hundreds
 * of MB. 1024 txs is ~1.7 MB, some 25–50 blocks of an OP chain (geth keeps receipts of 32 blocks),
 * and the blocks readers ask for again are the recent ones. It also fills within a minute at 20
 * tx/s: at 4096 the soak (test/reliability/soak.ts) saw it still filling 4 minutes in, as ~7 MB of
 * heap growth that a leak check cannot tell from a leak.
 */
export const CACHE_TXS = 1024;
/**
 * Logs kept over all cached blocks. A tx can emit thousands of logs (one LOG1 per ~790 gas), and a
 * decoded log with its topics and data is some hundreds of bytes: without this bound 1024 cached
 * txs of 4,000 logs each held over a GB (issue 26: 125 such blocks put ~500 MB in the cache).
 * 32,768 logs is ~10 MB, eight such blocks, or every block of a busy chain's last minutes.
 */
export const CACHE_LOGS = 32_768;

export interface ChainReaderLimits {
  readonly blocks?: number;
  readonly txs?: number;
  readonly logs?: number;
  /** Bytes of the log queries' cache (`LOG_CACHE_BYTES`). */
  readonly logBytes?: number;
  /** The most one block may take of it (`LOG_CACHE_BLOCK_BYTES`). */
  readonly logBlockBytes?: number;
}

/** The logs of a block's receipts. */
function logCount(b: DecodedBlock): number {
  let n = 0;
  if (b.receipts !== null) for (const r of b.receipts) n += r.logs.length;
  return n;
}

/**
 * What a log query reads of a block (`blockMatches`); a `DecodedBlock` is one. Read for a log query
 * (`ChainReader.logBlock`), `txHashes` holds the hashes of the txs whose receipts have logs only (the
 * others are empty): a log needs its tx's hash, not the tx decoded nor its sender recovered.
 */
export interface LogBlock {
  readonly hash: Uint8Array;
  readonly header: Pick<Header, "number" | "timestamp" | "logsBloom">;
  readonly txHashes: readonly Uint8Array[];
  readonly receipts: readonly { readonly logs: readonly ReceiptLog[] }[] | null;
}

const NO_HASH = new Uint8Array(0);
const NO_LOGS: { readonly logs: readonly ReceiptLog[] } = Object.freeze({ logs: Object.freeze([]) });

/**
 * Bytes of logs kept for log queries (`ChainReader.logBlock`). A query over the whole chain reads
 * every block with logs twice (the reply is measured, then built): without a cache each read is a
 * receipts and a body row copied out of the store and decoded, some 10 KB of short-lived buffers a
 * block on an OP chain of 40-tx blocks, which at a few such queries a second made V8's old space and
 * the process's RSS climb through the soak (issue 26). 16 MiB holds every log of a small chain, or
 * the last ~100k small logs of a busy one; a block whose logs alone would take more than
 * `LOG_CACHE_BLOCK_BYTES` is read each time instead (views into its rows, not copies).
 */
export const LOG_CACHE_BYTES = 16 * 2 ** 20;
/** The most one block may take of the log cache, a 64th (blocks of thousands of logs are not kept). */
export const LOG_CACHE_BLOCK_BYTES = LOG_CACHE_BYTES / 64;
/** Estimated heap bytes of a cached block without its logs: the entry, its key, header fields and bloom. */
const LOG_BLOCK_BYTES = 640;
/** Estimated heap bytes of a cached log past its address, topics and data (objects, array, views). */
const LOG_BYTES = 160;

interface CachedLogBlock extends LogBlock {
  readonly bytes: number;
}

/** The heap bytes a `CachedLogBlock` of these receipts' logs holds (see the constants above). */
function logBlockBytes(receipts: readonly Receipt[]): number {
  let n = LOG_BLOCK_BYTES + 8 * receipts.length;
  for (const r of receipts) {
    if (r.logs.length > 0) n += 32 + 64; // the tx hash and its view
    for (const l of r.logs) n += LOG_BYTES + 20 + 32 * l.topics.length + l.data.length;
  }
  return n;
}

/**
 * A log criteria's addresses and topics hashed once for the blocks' bloom checks (geth `bloomFilter`):
 * a block whose header bloom lacks every address asked for, or every alternative of a topic
 * position, has no matching log, and one with an empty bloom has no log at all.
 */
export class BloomQuery {
  private readonly addresses: Uint8Array[];
  private readonly topics: Uint8Array[][];

  constructor(addresses: readonly Uint8Array[] | null, topics: readonly (readonly Uint8Array[] | null)[]) {
    this.addresses = (addresses ?? []).map((a) => keccak256(a));
    this.topics = [];
    for (const t of topics) if (t !== null && t.length > 0) this.topics.push(t.map((x) => keccak256(x)));
  }

  /** False when no log of a block with header bloom `bloom` can match. */
  mayMatch(bloom: Uint8Array): boolean {
    let any = 0;
    for (let i = 0; i < bloom.length; i++) any |= bloom[i];
    if (any === 0) return false;
    if (this.addresses.length > 0 && !this.addresses.some((h) => bloomHasHash(bloom, h))) return false;
    for (const alts of this.topics) if (!alts.some((h) => bloomHasHash(bloom, h))) return false;
    return true;
  }
}

export class ChainReader {
  /** Least recently used first. */
  private readonly cache = new Map<string, DecodedBlock>();
  private cachedTxs = 0;
  private cachedLogs = 0;
  private readonly maxBlocks: number;
  private readonly maxTxs: number;
  private readonly maxLogs: number;
  /** Log queries' cache (`logBlock`), least recently used first. */
  private readonly logCache = new Map<string, CachedLogBlock>();
  private logCacheBytes = 0;
  private readonly maxLogCacheBytes: number;
  private readonly maxLogBlockBytes: number;

  constructor(
    readonly chain: ChainView,
    limits: ChainReaderLimits = {},
  ) {
    this.maxBlocks = limits.blocks ?? CACHE_BLOCKS;
    this.maxTxs = limits.txs ?? CACHE_TXS;
    this.maxLogs = limits.logs ?? CACHE_LOGS;
    this.maxLogCacheBytes = limits.logBytes ?? LOG_CACHE_BYTES;
    this.maxLogBlockBytes = limits.logBlockBytes ?? LOG_CACHE_BLOCK_BYTES;
  }

  /** What the decoded-block cache holds: blocks, their txs and their logs. */
  cacheStats(): { blocks: number; txs: number; logs: number } {
    return { blocks: this.cache.size, txs: this.cachedTxs, logs: this.cachedLogs };
  }

  /** What the log queries' cache holds: blocks and their estimated bytes. */
  logCacheStats(): { blocks: number; bytes: number } {
    return { blocks: this.logCache.size, bytes: this.logCacheBytes };
  }

  /** The hash a selector names, or null (unknown block, or a non-canonical hash when canonical is required). */
  resolve(sel: BlockSelector): Uint8Array | null {
    const store = this.chain.store;
    switch (sel.kind) {
      case "hash": {
        const h = store.header(sel.hash);
        if (h === null) return null;
        if (sel.requireCanonical) {
          const c = store.canonicalHash(h.number);
          if (c === null || !equalBytes(c, sel.hash)) return null;
        }
        return sel.hash;
      }
      case "number":
        return sel.number > this.chain.head.number ? null : store.canonicalHash(sel.number);
      case "tag":
        switch (sel.tag) {
          case "latest":
          case "pending":
            return this.chain.headBlockHash;
          case "earliest":
            return store.canonicalHash(0);
          case "safe":
            return store.meta(META_SAFE);
          case "finalized":
            return store.meta(META_FINALIZED);
        }
    }
  }

  block(hash: Uint8Array): DecodedBlock | null {
    const key = bytesKey(hash);
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const store = this.chain.store;
    const headerRlp = store.headerRlp(hash);
    const bodyRlp = store.bodyRlp(hash);
    const header = store.header(hash);
    const body = store.body(hash);
    if (header === null || body === null || headerRlp === undefined || bodyRlp === undefined) return null;
    const txs = body.transactions.map((t) => decodeTx(t));
    const senders = recoverSenders(txs).map((s) => s ?? new Uint8Array(20));
    const b: DecodedBlock = {
      hash,
      header,
      body,
      txs,
      txHashes: txs.map((t) => txHash(t)),
      senders,
      receipts: store.receipts(hash),
      size: blockSize(headerRlp.length, bodyRlp),
    };
    this.cache.set(key, b);
    this.cachedTxs += txs.length;
    this.cachedLogs += logCount(b);
    // Oldest out until every bound holds; the block just read stays even when it alone is over.
    while (
      (this.cache.size > this.maxBlocks || this.cachedTxs > this.maxTxs || this.cachedLogs > this.maxLogs) &&
      this.cache.size > 1
    ) {
      const [k, old] = this.cache.entries().next().value as [string, DecodedBlock];
      this.cache.delete(k);
      this.cachedTxs -= old.txs.length;
      this.cachedLogs -= logCount(old);
    }
    return b;
  }

  /**
   * The part of block `hash` a log query reads, without decoding its txs or recovering their
   * senders (`block` does both, for every tx): the header fields, and when its bloom may match
   * `query` the logs and the hashes of the txs with logs. Blocks read so are kept in a cache of their
   * logs bounded in bytes (`LOG_CACHE_BYTES`, least recently used out first), apart from the
   * decoded-block cache, so a query over the whole chain does not push out the recent blocks the
   * other reads ask for, and the next one reads nothing from the store but the canonical hashes.
   * Null for an unknown block.
   */
  logBlock(hash: Uint8Array, query: BloomQuery): LogBlock | null {
    const key = bytesKey(hash);
    const hit = this.logCache.get(key);
    if (hit !== undefined) {
      this.logCache.delete(key);
      this.logCache.set(key, hit);
      return query.mayMatch(hit.header.logsBloom) ? hit : { hash, header: hit.header, txHashes: [], receipts: [] };
    }
    const store = this.chain.store;
    const header = store.header(hash);
    if (header === null) return null;
    if (!query.mayMatch(header.logsBloom)) return { hash, header, txHashes: [], receipts: [] };
    const receipts = store.receipts(hash);
    if (receipts === null) return { hash, header, txHashes: [], receipts: null };
    const txHashes: Uint8Array[] = [];
    if (receipts.some((r) => r.logs.length > 0)) {
      const body = store.body(hash);
      if (body === null) return null;
      for (let i = 0; i < receipts.length; i++)
        txHashes.push(receipts[i].logs.length > 0 ? keccak256(body.transactions[i]) : NO_HASH);
    }
    const bytes = logBlockBytes(receipts);
    if (bytes > this.maxLogBlockBytes) return { hash, header, txHashes, receipts };
    // Copies, so the cache holds the logs and not the receipts rows (blooms, gas) they were read from.
    const b: CachedLogBlock = {
      hash: hash.slice(),
      header: { number: header.number, timestamp: header.timestamp, logsBloom: header.logsBloom.slice() },
      txHashes,
      receipts: receipts.map((r) =>
        r.logs.length === 0
          ? NO_LOGS
          : {
              logs: r.logs.map((l) => ({
                address: l.address.slice(),
                topics: l.topics.map((t) => t.slice()),
                data: l.data.slice(),
              })),
            },
      ),
      bytes,
    };
    this.logCache.set(key, b);
    this.logCacheBytes += bytes;
    while (this.logCacheBytes > this.maxLogCacheBytes) {
      const [k, old] = this.logCache.entries().next().value as [string, CachedLogBlock];
      this.logCache.delete(k);
      this.logCacheBytes -= old.bytes;
    }
    return b;
  }

  blockJson(hash: Uint8Array, fullTxs: boolean): Record<string, JsonValue> | null {
    const b = this.block(hash);
    if (b === null) return null;
    const transactions: JsonValue[] = fullTxs
      ? b.txs.map((_, i) => this.txJsonAt(b, i))
      : b.txHashes.map((h) => bytesToHex(h));
    return blockJson({
      header: b.header,
      hash: b.hash,
      size: b.size,
      transactions,
      uncleHashes: b.body.ommers.map((o) => headerHashOf(o)),
      withdrawals: b.body.withdrawals,
      totalDifficulty: this.chain.store.totalDifficulty(b.hash),
    });
  }

  txJsonAt(b: DecodedBlock, i: number): Record<string, JsonValue> {
    const r = b.receipts?.[i] ?? null;
    return txJson(
      b.txs[i],
      {
        hash: b.txHashes[i],
        from: b.senders[i],
        depositNonce: r?.depositNonce ?? null,
        depositReceiptVersion: r?.depositReceiptVersion ?? null,
      },
      {
        blockHash: b.hash,
        blockNumber: b.header.number,
        blockTimestamp: b.header.timestamp,
        index: i,
        baseFee: b.header.baseFeePerGas,
      },
    );
  }

  /** Canonical position of a tx, or null. */
  locate(hash: Uint8Array): { block: DecodedBlock; index: number } | null {
    const loc = this.chain.store.txLocation(hash);
    if (loc === null) return null;
    const h = this.chain.store.header(loc.blockHash);
    if (h === null) return null;
    const canon = this.chain.store.canonicalHash(h.number);
    if (canon === null || !equalBytes(canon, loc.blockHash)) return null;
    const block = this.block(loc.blockHash);
    if (block === null || block.txs.length <= loc.index) return null;
    return { block, index: loc.index };
  }

  txByHash(hash: Uint8Array): Record<string, JsonValue> | null {
    const at = this.locate(hash);
    return at === null ? null : this.txJsonAt(at.block, at.index);
  }

  receiptsJson(b: DecodedBlock): Record<string, JsonValue>[] | null {
    if (b.receipts === null) return null;
    const out: Record<string, JsonValue>[] = [];
    for (const e of this.receiptEntries(b)) out.push(receiptJson(e.receipt, e.tx, e.extras, e.place));
    return out;
  }

  /** Each receipt of `b` (stored: `b.receipts` is not null) with what its JSON needs: its tx and place. */
  *receiptEntries(b: DecodedBlock): Generator<ReceiptEntry, void, void> {
    const receipts = b.receipts;
    if (receipts === null) return;
    const cfg = this.chain.config;
    const rules = rulesAt(cfg, b.header.number, b.header.timestamp);
    const blobFee =
      b.header.excessBlobGas === null ? null : headerBlobBaseFee(cfg, b.header.excessBlobGas, b.header.timestamp);
    let l1Info: L1BlockInfo | null = null;
    if (rules.op !== null && b.txs.length > 0 && b.txs[0].type === TxType.Deposit)
      l1Info = parseL1BlockInfo(b.txs[0].data);
    let logIndex = 0;
    let prevGas = 0;
    for (let i = 0; i < receipts.length; i++) {
      const r = receipts[i];
      const tx = b.txs[i];
      const l1 =
        l1Info !== null && tx.type !== TxType.Deposit ? l1ReceiptFields(b.body.transactions[i], l1Info, rules) : null;
      yield {
        receipt: r,
        tx,
        extras: { hash: b.txHashes[i], from: b.senders[i] },
        place: {
          blockHash: b.hash,
          blockNumber: b.header.number,
          blockTimestamp: b.header.timestamp,
          index: i,
          firstLogIndex: logIndex,
          previousCumulativeGas: prevGas,
          baseFee: b.header.baseFeePerGas,
          blobBaseFee: blobFee,
          l1,
        },
      };
      logIndex += r.logs.length;
      prevGas = r.cumulativeGasUsed;
    }
  }

  receiptByTxHash(hash: Uint8Array): Record<string, JsonValue> | null {
    const at = this.locate(hash);
    if (at === null) return null;
    return this.receiptsJson(at.block)?.[at.index] ?? null;
  }

  /** Logs of a block matching address/topic filters (geth filter semantics: null topic = wildcard). */
  blockLogs(
    b: DecodedBlock,
    addresses: readonly Uint8Array[] | null,
    topics: readonly (readonly Uint8Array[] | null)[],
    removed = false,
  ): Record<string, JsonValue>[] {
    return Array.from(this.matchedLogs(b, addresses, topics, removed));
  }

  /** `blockLogs` one log at a time (a sliced query yields between them). */
  *matchedLogs(
    b: DecodedBlock,
    addresses: readonly Uint8Array[] | null,
    topics: readonly (readonly Uint8Array[] | null)[],
    removed = false,
  ): Generator<Record<string, JsonValue>, void, void> {
    for (const m of blockMatches(b, addresses, topics, removed)) yield logJson(m.log, m.place);
  }
}

/** A stored receipt with its tx and its place in the block (`ChainReader.receiptEntries`). */
export interface ReceiptEntry {
  readonly receipt: Receipt;
  readonly tx: Tx;
  readonly extras: TxExtras;
  readonly place: ReceiptPlace;
}

/** A log that matched a filter, and where it is. */
export interface LogMatch {
  readonly log: ReceiptLog;
  readonly place: LogPlace;
}

/** A block's logs matching address/topic filters, as `ChainReader.blockLogs` selects them. */
export function* blockMatches(
  b: LogBlock,
  addresses: readonly Uint8Array[] | null,
  topics: readonly (readonly Uint8Array[] | null)[],
  removed = false,
): Generator<LogMatch, void, void> {
  if (b.receipts === null) return;
  let logIndex = 0;
  for (let i = 0; i < b.receipts.length; i++) {
    for (const l of b.receipts[i].logs) {
      if (matches(l.address, l.topics, addresses, topics)) {
        yield {
          log: l,
          place: {
            blockHash: b.hash,
            blockNumber: b.header.number,
            blockTimestamp: b.header.timestamp,
            txHash: b.txHashes[i],
            txIndex: i,
            logIndex,
            removed,
          },
        };
      }
      logIndex++;
    }
  }
}

export function matches(
  address: Uint8Array,
  logTopics: readonly Uint8Array[],
  addresses: readonly Uint8Array[] | null,
  topics: readonly (readonly Uint8Array[] | null)[],
): boolean {
  if (addresses !== null && addresses.length > 0 && !addresses.some((a) => equalBytes(a, address))) return false;
  if (topics.length > logTopics.length) return false;
  for (let i = 0; i < topics.length; i++) {
    const want = topics[i];
    if (want === null || want.length === 0) continue;
    if (!want.some((t) => equalBytes(t, logTopics[i]))) return false;
  }
  return true;
}

/** RLP size of a block from its header and body encodings (the block list wraps both payloads). */
function blockSize(headerLen: number, bodyRlp: Uint8Array): number {
  // body = list(txs, ommers, withdrawals?) — the block list holds the header followed by the body's items.
  const bodyHeaderLen = bodyRlp[0] < 0xf8 ? 1 : 1 + (bodyRlp[0] - 0xf7);
  const payload = headerLen + bodyRlp.length - bodyHeaderLen;
  return payload + (payload < 56 ? 1 : 1 + byteLength(payload));
}

function byteLength(n: number): number {
  let l = 0;
  while (n > 0) {
    l++;
    n = Math.floor(n / 256);
  }
  return l;
}
