/**
 * The rollup node's L1 execution-client source (`--l1`), after op-node v1.10's
 * op-service/sources L1Client/EthClient and its receipts providers:
 *
 * - Block refs by label (never cached: labels move), by number (cached by hash only: reorgs), by
 *   hash (cached); headers and full blocks checked against their hash unless `trustRpc`
 *   (l1Json.ts), and the answer must be the block asked for.
 * - Receipts by the method the provider kind (`--l1.rpckind`) prefers (`availableReceiptsMethods`,
 *   `pickReceiptsMethod`): per-tx eth_getTransactionReceipt in JSON-RPC batches of `maxBatchSize`,
 *   eth_getBlockReceipts, alchemy_getTransactionReceipts, debug_getRawReceipts,
 *   parity_getBlockReceipts or erigon_getBlockReceiptsByBlockHash. A method the server does not
 *   have (invalid request / method not found / invalid params, or an "unsupported method"-style
 *   message) is dropped from the kind's set and the error is returned; the next fetch uses the next
 *   best method, and the full set comes back after `methodResetMs` (op-node: one minute). Retrying is
 *   the caller's job.
 * - Unless `trustRpc`, receipts are checked against the header's receipts root (and their metadata
 *   against the block) before they are cached or returned; eth_getProof answers against the block's
 *   state root.
 * - At most `maxConcurrency` requests in flight; with `rateLimit` > 0 a token bucket of that many
 *   requests a second and a burst of `maxBatchSize`, where a batch of N costs N.
 * - LRU caches of `cacheSize` entries each for block refs, headers, transactions and receipts.
 *
 * Deviation: op-node v1.10 validates receipts even with `--l1.trustrpc`; here a trusted RPC's
 * receipts are only checked for count and presence (op-stack.md §1.4: trustrpc "skips hash and
 * receipt verification").
 */

import type { Receipt } from "../../block/receipt.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { bigintToBytes32 } from "../../primitives/u256.js";
import type { Tx } from "../../tx/tx.js";
import type { L1BlockRef } from "../refs.js";
import {
  type AccountProof,
  decodeRawReceipts,
  type L1BlockInfo,
  L1VerifyError,
  l1BlockRef,
  parseAccountProof,
  parseL1Block,
  parseL1Header,
  parseRpcReceipt,
  type RpcReceipt,
  txHashes,
  verifyAccountProof,
  verifyReceipts,
} from "../transport/ethJson.js";
import { RpcCallError, RpcClient } from "../transport/rpcClient.js";
import type { RpcTransport } from "../transport/rpcTransport.js";
import { RateLimiter, Semaphore } from "./limits.js";

/** `--l1.rpckind` values: op-node's L1 RPC provider kinds (op-service/sources RPCProviderKinds). */
export const RPC_PROVIDER_KINDS = [
  "alchemy",
  "quicknode",
  "infura",
  "parity",
  "nethermind",
  "debug_geth",
  "erigon",
  "basic",
  "any",
  "standard",
] as const;

export type RpcProviderKind = (typeof RPC_PROVIDER_KINDS)[number];

export function isRpcProviderKind(s: string): s is RpcProviderKind {
  return (RPC_PROVIDER_KINDS as readonly string[]).includes(s);
}

/** Receipt-fetching methods, one bit each (op-node's ReceiptsFetchingMethod). */
export enum ReceiptsMethod {
  EthGetTransactionReceiptBatch = 1,
  AlchemyGetTransactionReceipts = 2,
  DebugGetRawReceipts = 4,
  ParityGetBlockReceipts = 8,
  EthGetBlockReceipts = 16,
  ErigonGetBlockReceiptsByBlockHash = 32,
}

const M = ReceiptsMethod;

/** The methods a provider kind may use (op-node v1.10 AvailableReceiptsFetchingMethods). */
export function availableReceiptsMethods(kind: RpcProviderKind): number {
  switch (kind) {
    case "alchemy":
      return M.AlchemyGetTransactionReceipts | M.EthGetBlockReceipts | M.EthGetTransactionReceiptBatch;
    case "quicknode":
      return M.DebugGetRawReceipts | M.EthGetBlockReceipts | M.EthGetTransactionReceiptBatch;
    case "infura":
      return M.EthGetTransactionReceiptBatch;
    case "parity":
    case "nethermind":
      return M.ParityGetBlockReceipts | M.EthGetTransactionReceiptBatch;
    case "debug_geth":
      return M.DebugGetRawReceipts | M.EthGetTransactionReceiptBatch;
    case "erigon":
      return M.ErigonGetBlockReceiptsByBlockHash | M.EthGetTransactionReceiptBatch;
    case "basic":
      return M.EthGetTransactionReceiptBatch;
    case "any":
      return (
        M.AlchemyGetTransactionReceipts |
        M.EthGetBlockReceipts |
        M.DebugGetRawReceipts |
        M.ErigonGetBlockReceiptsByBlockHash |
        M.ParityGetBlockReceipts |
        M.EthGetTransactionReceiptBatch
      );
    case "standard":
      return M.EthGetBlockReceipts | M.EthGetTransactionReceiptBatch;
  }
}

/**
 * The cheapest still-available method for `txCount` receipts (op-node PickBestReceiptsFetchingMethod):
 * Alchemy and QuickNode by their per-call price against per-tx batching, others by preference.
 */
export function pickReceiptsMethod(kind: RpcProviderKind, available: number, txCount: number): ReceiptsMethod {
  if (kind === "alchemy") {
    if (available & M.AlchemyGetTransactionReceipts && txCount > 16) return M.AlchemyGetTransactionReceipts;
    if (available & M.EthGetBlockReceipts && txCount > 33) return M.EthGetBlockReceipts;
    return M.EthGetTransactionReceiptBatch;
  }
  if (kind === "quicknode") {
    if (available & M.DebugGetRawReceipts) return M.DebugGetRawReceipts;
    if (available & M.EthGetBlockReceipts && txCount > 29) return M.EthGetBlockReceipts;
    return M.EthGetTransactionReceiptBatch;
  }
  if (available & M.AlchemyGetTransactionReceipts) return M.AlchemyGetTransactionReceipts;
  if (available & M.DebugGetRawReceipts) return M.DebugGetRawReceipts;
  if (available & M.ErigonGetBlockReceiptsByBlockHash) return M.ErigonGetBlockReceiptsByBlockHash;
  if (available & M.EthGetBlockReceipts) return M.EthGetBlockReceipts;
  if (available & M.ParityGetBlockReceipts) return M.ParityGetBlockReceipts;
  return M.EthGetTransactionReceiptBatch;
}

/** Whether an error says the method cannot be used at all (op-node unusableMethod). */
export function isUnusableMethodError(e: unknown): boolean {
  if (e instanceof RpcCallError && (e.code === -32600 || e.code === -32601 || e.code === -32602)) return true;
  if (!(e instanceof Error)) return false;
  const m = e.message.toLowerCase();
  return (
    m.includes("unsupported method") ||
    m.includes("unknown method") ||
    m.includes("invalid param") ||
    m.includes("is not available") ||
    m.includes("rpc method is not whitelisted")
  );
}

/** The RPC has no such block (a null answer, or geth/erigon's "block not found" for a label). */
export class L1NotFoundError extends Error {
  override readonly name = "L1NotFoundError";
}

export type L1BlockLabel = "latest" | "safe" | "finalized";

export interface L1ClientOptions {
  readonly url: string;
  /** Talk through this transport instead of HTTP to `url` (in-process L1 in action tests). */
  readonly transport?: RpcTransport;
  /** `--l1.trustrpc`: skip hash, tx-root, receipts and proof verification. */
  readonly trustRpc?: boolean;
  /** `--l1.rpckind`, default "standard". */
  readonly rpcKind?: RpcProviderKind;
  /** `--l1.max-concurrency`, default 10. */
  readonly maxConcurrency?: number;
  /** `--l1.rpc-max-batch-size`, default 20. */
  readonly maxBatchSize?: number;
  /** `--l1.rpc-rate-limit`, requests a second; 0 (default) = off. */
  readonly rateLimit?: number;
  /** Entries of each LRU cache, default 1000. */
  readonly cacheSize?: number;
  /** Per-request timeout, ms (default 10 s). */
  readonly timeoutMs?: number;
  /** After this long a dropped receipts method is tried again (default 60 s). */
  readonly methodResetMs?: number;
  /** ms clock for the method reset (tests). */
  readonly now?: () => number;
}

export interface L1Receipts {
  readonly info: L1BlockInfo;
  readonly receipts: readonly Receipt[];
}

/** A least-recently-used map of at most `size` entries (size 0 keeps nothing). */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }

  add(k: string, v: V): void {
    if (this.size <= 0) return;
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
  }
}

/** A header with its block's transactions. */
export interface L1BlockAndTxs {
  readonly info: L1BlockInfo;
  readonly txs: readonly Tx[];
}

export class L1Client {
  readonly trustRpc: boolean;
  readonly rpcKind: RpcProviderKind;
  readonly maxBatchSize: number;
  private readonly rpc: RpcTransport;
  private readonly sema: Semaphore;
  private readonly limiter: RateLimiter;
  private readonly refs: Lru<L1BlockRef>;
  private readonly headers: Lru<L1BlockInfo>;
  private readonly txs: Lru<readonly Tx[]>;
  private readonly receipts: Lru<readonly Receipt[]>;
  private readonly receiptsInFlight = new Map<string, Promise<L1Receipts>>();
  private readonly methodResetMs: number;
  private readonly now: () => number;
  private available: number;
  private lastReset: number;

  constructor(opts: L1ClientOptions) {
    this.trustRpc = opts.trustRpc ?? false;
    this.rpcKind = opts.rpcKind ?? "standard";
    if (!isRpcProviderKind(this.rpcKind)) throw new RangeError(`unknown rpc provider kind: ${this.rpcKind}`);
    this.maxBatchSize = opts.maxBatchSize ?? 20;
    if (!(this.maxBatchSize >= 1))
      throw new RangeError(`expected at least 1 request per batch, got ${this.maxBatchSize}`);
    const cacheSize = opts.cacheSize ?? 1000;
    if (!(cacheSize >= 0)) throw new RangeError(`invalid cache size: ${cacheSize}`);
    this.rpc =
      opts.transport ?? new RpcClient(opts.url, opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs });
    this.sema = new Semaphore(opts.maxConcurrency ?? 10);
    this.limiter = new RateLimiter(opts.rateLimit ?? 0, this.maxBatchSize);
    this.refs = new Lru(cacheSize);
    this.headers = new Lru(cacheSize);
    this.txs = new Lru(cacheSize);
    this.receipts = new Lru(cacheSize);
    this.methodResetMs = opts.methodResetMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    this.available = availableReceiptsMethods(this.rpcKind);
    this.lastReset = this.now();
  }

  /** Receipt methods still in use (bits of ReceiptsMethod). */
  get availableReceiptsMethods(): number {
    return this.available;
  }

  // --- transport ---

  private call<T>(method: string, params: readonly unknown[]): Promise<T> {
    return this.sema.run(async () => {
      await this.limiter.take(1);
      return this.rpc.call<T>(method, params);
    });
  }

  private batch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    return this.sema.run(async () => {
      await this.limiter.take(calls.length);
      return this.rpc.callBatch(calls);
    });
  }

  // --- headers and blocks ---

  private async headerCall(params: readonly unknown[], method: string, want: string): Promise<L1BlockInfo> {
    let json: unknown;
    try {
      json = await this.call<unknown>(method, params);
    } catch (e) {
      // geth and erigon answer an unset safe/finalized label with an error rather than null.
      if (e instanceof RpcCallError && /block not found|unknown block/i.test(e.message)) {
        throw new L1NotFoundError(`L1 block ${want} not found: ${e.message}`);
      }
      throw e;
    }
    if (json === null || json === undefined) throw new L1NotFoundError(`L1 block ${want} not found`);
    const info = parseL1Header(json, !this.trustRpc);
    this.headers.add(bytesToHex(info.hash), info);
    this.refs.add(bytesToHex(info.hash), l1BlockRef(info));
    return info;
  }

  private checkId(info: L1BlockInfo, hash: Uint8Array | null, num: number | null): void {
    if (hash !== null && bytesToHex(hash) !== bytesToHex(info.hash)) {
      throw new L1VerifyError("hash", `expected block hash ${bytesToHex(hash)} but got block ${bytesToHex(info.hash)}`);
    }
    if (num !== null && num !== info.header.number) {
      throw new L1VerifyError("number", `expected block number ${num} but got block ${info.header.number}`);
    }
  }

  /** eth_chainId. */
  async chainId(): Promise<bigint> {
    const v = await this.call<unknown>("eth_chainId", []);
    if (typeof v !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(v))
      throw new Error(`eth_chainId: not a quantity: ${String(v)}`);
    return BigInt(v);
  }

  /** The head, safe or finalized block (never cached by label). */
  async l1BlockRefByLabel(label: L1BlockLabel): Promise<L1BlockRef> {
    return l1BlockRef(await this.headerCall([label, false], "eth_getBlockByNumber", label));
  }

  /** The canonical block at `n` (cached by hash only, since reorgs move numbers). */
  async l1BlockRefByNumber(n: number): Promise<L1BlockRef> {
    const info = await this.headerCall([`0x${n.toString(16)}`, false], "eth_getBlockByNumber", String(n));
    this.checkId(info, null, n);
    return l1BlockRef(info);
  }

  async l1BlockRefByHash(hash: Uint8Array): Promise<L1BlockRef> {
    const k = bytesToHex(hash);
    const hit = this.refs.get(k);
    if (hit !== undefined) return hit;
    return l1BlockRef(await this.infoByHash(hash));
  }

  /** The header of block `hash`. */
  async infoByHash(hash: Uint8Array): Promise<L1BlockInfo> {
    const k = bytesToHex(hash);
    const hit = this.headers.get(k);
    if (hit !== undefined) return hit;
    const info = await this.headerCall([k, false], "eth_getBlockByHash", k);
    this.checkId(info, hash, null);
    return info;
  }

  /** The header and transactions of block `hash`. */
  async infoAndTxsByHash(hash: Uint8Array): Promise<L1BlockAndTxs> {
    const k = bytesToHex(hash);
    const h = this.headers.get(k);
    const t = this.txs.get(k);
    if (h !== undefined && t !== undefined) return { info: h, txs: t };
    const json = await this.call<unknown>("eth_getBlockByHash", [k, true]);
    if (json === null || json === undefined) throw new L1NotFoundError(`L1 block ${k} not found`);
    const block = parseL1Block(json, !this.trustRpc);
    const info: L1BlockInfo = { hash: block.hash, header: block.header };
    this.checkId(info, hash, null);
    this.headers.add(k, info);
    this.txs.add(k, block.txs);
    this.refs.add(k, l1BlockRef(info));
    return { info, txs: block.txs };
  }

  // --- receipts ---

  /** The block's header and its receipts, verified against the receipts root unless trusted. */
  fetchReceipts(blockHash: Uint8Array): Promise<L1Receipts> {
    const k = bytesToHex(blockHash);
    const pending = this.receiptsInFlight.get(k);
    if (pending !== undefined) return pending;
    const p = this.fetchReceiptsUncached(blockHash, k).finally(() => this.receiptsInFlight.delete(k));
    this.receiptsInFlight.set(k, p);
    return p;
  }

  private async fetchReceiptsUncached(blockHash: Uint8Array, k: string): Promise<L1Receipts> {
    const { info, txs } = await this.infoAndTxsByHash(blockHash);
    const cached = this.receipts.get(k);
    if (cached !== undefined) return { info, receipts: cached };
    const hashes = txHashes(txs);
    const method = this.pickMethod(hashes.length);
    let got: (RpcReceipt | null)[];
    try {
      got = await this.receiptsBy(method, info, hashes);
    } catch (e) {
      if (isUnusableMethodError(e)) this.available &= ~method;
      throw e;
    }
    if (this.trustRpc) {
      if (got.length !== hashes.length) {
        throw new L1VerifyError("receipts", `got ${got.length} receipts but expected ${hashes.length}`);
      }
      const i = got.indexOf(null);
      if (i >= 0) throw new L1VerifyError(`receipts[${i}]`, `receipt of tx ${i} returns nil on retrieval`);
    } else {
      verifyReceipts({ hash: info.hash, number: info.header.number }, info.header.receiptsRoot, hashes, got);
    }
    const receipts = (got as RpcReceipt[]).map((r) => r.receipt);
    this.receipts.add(k, receipts);
    return { info, receipts };
  }

  private pickMethod(txCount: number): ReceiptsMethod {
    const now = this.now();
    if (now - this.lastReset > this.methodResetMs) {
      this.available = availableReceiptsMethods(this.rpcKind);
      this.lastReset = now;
    }
    return pickReceiptsMethod(this.rpcKind, this.available, txCount);
  }

  private async receiptsBy(
    method: ReceiptsMethod,
    info: L1BlockInfo,
    hashes: readonly Uint8Array[],
  ): Promise<(RpcReceipt | null)[]> {
    const h = bytesToHex(info.hash);
    switch (method) {
      case M.EthGetTransactionReceiptBatch:
        return this.receiptsByBatch(hashes);
      case M.AlchemyGetTransactionReceipts: {
        const r = await this.call<{ receipts?: unknown } | null>("alchemy_getTransactionReceipts", [{ blockHash: h }]);
        return this.receiptList(r?.receipts, h);
      }
      case M.DebugGetRawReceipts: {
        const raw = await this.call<unknown>("debug_getRawReceipts", [h]);
        if (!Array.isArray(raw)) throw new L1NotFoundError(`raw receipts of L1 block ${h} not found`);
        return decodeRawReceipts({ hash: info.hash, number: info.header.number }, raw, hashes);
      }
      case M.ParityGetBlockReceipts:
        return this.receiptList(await this.call<unknown>("parity_getBlockReceipts", [h]), h);
      case M.EthGetBlockReceipts:
        return this.receiptList(await this.call<unknown>("eth_getBlockReceipts", [h]), h);
      case M.ErigonGetBlockReceiptsByBlockHash:
        return this.receiptList(await this.call<unknown>("erigon_getBlockReceiptsByBlockHash", [h]), h);
    }
  }

  private receiptList(v: unknown, h: string): (RpcReceipt | null)[] {
    if (!Array.isArray(v)) throw new L1NotFoundError(`receipts of L1 block ${h} not found`);
    return v.map((r, i) => (r === null || r === undefined ? null : parseRpcReceipt(r, `receipts[${i}]`)));
  }

  /** eth_getTransactionReceipt per tx, in batches of maxBatchSize (a single call when that is 1). */
  private async receiptsByBatch(hashes: readonly Uint8Array[]): Promise<(RpcReceipt | null)[]> {
    const chunks: Promise<unknown[]>[] = [];
    for (let i = 0; i < hashes.length; i += this.maxBatchSize) {
      const calls = hashes
        .slice(i, i + this.maxBatchSize)
        .map((x) => ({ method: "eth_getTransactionReceipt", params: [bytesToHex(x)] }));
      if (this.maxBatchSize === 1) {
        chunks.push(this.call<unknown>(calls[0].method, calls[0].params).then((r) => [r]));
      } else {
        chunks.push(this.batch(calls));
      }
    }
    const results = (await Promise.all(chunks)).flat();
    const out: (RpcReceipt | null)[] = new Array(results.length);
    for (let i = 0; i < results.length; i++) {
      const r = results[i];
      if (r instanceof Error) throw r;
      out[i] = r === null || r === undefined ? null : parseRpcReceipt(r, `receipts[${i}]`);
    }
    return out;
  }

  // --- proofs ---

  /**
   * eth_getProof of `address` and `slots` (32-byte keys) at block `blockHash`: one storage proof per
   * slot, in order, with the key asked for; unless trusted, verified against the block's state root.
   */
  async getProof(address: Uint8Array, slots: readonly Uint8Array[], blockHash: Uint8Array): Promise<AccountProof> {
    const info = this.trustRpc ? null : await this.infoByHash(blockHash);
    const json = await this.call<unknown>("eth_getProof", [
      bytesToHex(address),
      slots.map((s) => bytesToHex(s)),
      bytesToHex(blockHash),
    ]);
    if (json === null || json === undefined)
      throw new L1NotFoundError(`proof at L1 block ${bytesToHex(blockHash)} not found`);
    const p = parseAccountProof(json);
    if (p.storageProof.length !== slots.length) {
      throw new L1VerifyError(
        "storageProof",
        `missing storage proof data, got ${p.storageProof.length} proof entries but requested ${slots.length} storage keys`,
      );
    }
    for (let i = 0; i < slots.length; i++) {
      if (bytesToHex(p.storageProof[i].key) !== bytesToHex(slots[i])) {
        throw new L1VerifyError(
          `storageProof[${i}].key`,
          `unexpected storage proof key difference for entry ${i}: got ${bytesToHex(p.storageProof[i].key)} but requested ${bytesToHex(slots[i])}`,
        );
      }
    }
    if (info !== null) {
      if (bytesToHex(p.address) !== bytesToHex(address)) {
        throw new L1VerifyError("address", `proof of ${bytesToHex(p.address)}, requested ${bytesToHex(address)}`);
      }
      verifyAccountProof(p, info.header.stateRoot);
    }
    return p;
  }

  /**
   * One storage word of `address` at block `blockHash` (op-service `ReadStorageAt`): through
   * eth_getProof verified against the block's state root, or eth_getStorageAt with --l1.trustrpc.
   */
  async readStorageAt(address: Uint8Array, slot: Uint8Array, blockHash: Uint8Array): Promise<Uint8Array> {
    if (this.trustRpc) {
      const v = await this.call<unknown>("eth_getStorageAt", [
        bytesToHex(address),
        bytesToHex(slot),
        bytesToHex(blockHash),
      ]);
      if (typeof v !== "string" || !/^0x[0-9a-fA-F]{0,64}$/.test(v)) {
        throw new L1VerifyError("storage", `eth_getStorageAt answered ${JSON.stringify(v)}`);
      }
      const out = new Uint8Array(32);
      const raw = hexToBytes(v.length % 2 === 0 ? v : `0x0${v.slice(2)}`);
      out.set(raw, 32 - raw.length);
      return out;
    }
    const p = await this.getProof(address, [slot], blockHash);
    return bigintToBytes32(p.storageProof[0]!.value);
  }
}
