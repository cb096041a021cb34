/**
 * The node's chain: genesis initialisation, block insertion through chain/importBlock.ts, the
 * canonical head (forkchoice, reorgs) and crash recovery, over one KvStore.
 *
 * - The flat state (and trie) always holds the post-state of one block, `stateBlock`. Inserting a
 *   block first moves the state to its parent: back along stored undo records (`history`), then
 *   forward by re-executing stored bodies. So newPayload on a side branch and forkchoice to another
 *   branch both work, at the cost of replaying the blocks in between.
 * - Crash safety: every state write of an import carries, in the same atomic batch, the undo of all
 *   writes made so far for that block (`meta.pendingUndo` the first write's, `meta.pendingUndoTail`
 *   the later ones', newest first: chainStore `pendingUndo`); the final batch stores the trie nodes
 *   (unless a sliced import wrote a big trie batch in parts before it, the first part's marker
 *   undoing every part), the block, its receipts, its undo record and the new `stateBlock`, and
 *   drops the marker. `open()` finds a marker only after a crash mid-import and applies it, so the
 *   state is again `stateBlock`'s.
 *   Head changes (canonical index, tx lookups, `meta.head`) are one batch each.
 * - Power loss (docs/design/storage.md "Durability"): batches are written without fsync, in order,
 *   so an OS crash keeps a prefix of them, at least up to the last synced one, and every prefix
 *   opens as a consistent chain. `persist()` syncs the head and labels written since its last call:
 *   the node every DURABLE_INTERVAL_MS, import after each committed batch, and engine forkchoice
 *   before answering VALID when `durableForkchoice` is set. With `logSync` (the node on RocksDB)
 *   forkchoice and the node's timer write unsynced and a worker fsyncs the log, so this thread never
 *   waits for the disk; a durable forkchoice answers once that sync resolved (`exclusiveDurable`).
 */

import { GAS_PER_BLOB } from "../block/blobGas.js";
import { type BlockBody, blockHeaderRlp, decodeBlock, encodeBlock } from "../block/block.js";
import { decodeHeader, EMPTY_OMMERS_HASH, type Header, headerHash } from "../block/header.js";
import type { Receipt } from "../block/receipt.js";
import { encodeReceiptsForRoot } from "../block/receipt.js";
import { encodeWithdrawal, type Withdrawal } from "../block/withdrawal.js";
import { keccak256 } from "../crypto/keccak.js";
import { sha256 } from "../crypto/sha256.js";
import type { Tracer } from "../evm/tracer.js";
import { BlockExecutor } from "../executor/executeBlock.js";
import { jovianBlobGasUsed } from "../executor/op/daFootprint.js";
import { txRejectMessage } from "../executor/rejectMessage.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { bytesToHex } from "../primitives/hex.js";
import { bytesToBigint } from "../primitives/u256.js";
import { blobParamsAt, type ChainConfig, parseChainConfig, rulesAt } from "../spec/chainConfig.js";
import { Fork, OpFork } from "../spec/forks.js";
import { KvStateReader } from "../state/kvStateReader.js";
import { WorldState } from "../state/worldState.js";
import { encodeBatch, joinEncodedBatches } from "../storage/batchCodec.js";
import { type KvStore, WriteBatch } from "../storage/kv.js";
import { type Overlay, OverlayKv } from "../storage/overlayKv.js";
import { EMPTY_TRIE_ROOT } from "../trie/node.js";
import { orderedTrieRoot } from "../trie/orderedRoot.js";
import { remoteStateRoot } from "../trie/remoteStateRoot.js";
import { decodeTx, encodeTx } from "../tx/envelope.js";
import { intrinsicGas } from "../tx/intrinsicGas.js";
import { parseL1BlockInfo } from "../tx/l1BlockInfo.js";
import { recoverSender } from "../tx/signer.js";
import { type Tx, TxType, txMaxFeePerGas } from "../tx/tx.js";
import { validateTx } from "../tx/validateTx.js";
import { runToEnd, type SliceJob, Slicer } from "../util/slicer.js";
import type { TaskPool } from "../util/taskPool.js";
import { turnTrace } from "../util/turnTrace.js";
import {
  ChainStore,
  clearPendingUndo,
  HeaderCache,
  META_CONFIG,
  META_FINALIZED,
  META_HEAD,
  META_PENDING,
  META_PENDING_TAIL,
  META_SAFE,
  META_STATE,
  pendingUndo,
} from "./chainStore.js";
import { type Genesis, genesisBlockOf, genesisHeader, passerRoot } from "./genesis.js";
import { writeAlloc } from "./genesisState.js";
import {
  commitState,
  type DecodedBlock,
  headerBlobBaseFee,
  type ImportContext,
  type ImportedBlock,
  type ImportFailure,
  type ImportTimings,
  importBlockSteps,
  isImportFailure,
  newImportTimings,
  type Persist,
} from "./importBlock.js";
import { layerBatch, undoBatch } from "./stateAt.js";
import { expectedBaseFee, expectedExcessBlobGas } from "./validateHeader.js";

/** Longest a head change stays unsynced in a running node (its timer calls `persist()`). */
export const DURABLE_INTERVAL_MS = 1000;

const SYNC = Object.freeze({ sync: true });
const NO_SYNC = Object.freeze({ sync: false });

/**
 * Main-thread time a sliced import (`insertBlockSliced`) runs before it lets the event loop answer
 * what arrived meanwhile: a cheap read waits at most about this long (plus the import's one-turn
 * steps: its flat-row write, a big trie batch's parts and the block's final write). Twice the RPC Slicer's
 * 2 ms, as an import is one job the node must finish; not yet tuned by an A/B of its own.
 */
export const IMPORT_SLICE_MS = 4;

/** Executed blocks `Blockchain.isExecuted` remembers (the recent ones an Engine API client asks about). */
const EXECUTED_REMEMBERED = 256;

/** A synchronous call as a job of one unit (`Blockchain.exclusive`). */
// biome-ignore lint/correctness/useYield: a job of one unit has nothing to yield between
function* callOnce<T>(fn: () => T): SliceJob<T> {
  turnTrace?.step("exclusive");
  return fn();
}

export class ChainError extends Error {
  override readonly name = "ChainError";
}

export type InsertStatus = "VALID" | "INVALID" | "KNOWN" | "UNKNOWN_PARENT";

export interface InsertOptions {
  /** The txs' senders, recovered beforehand or alongside execution (see ImportContext.senders). */
  readonly senders?: ImportContext["senders"];
  /** `blockRlp` as the caller decoded it from a payload, roots and hash checked (DecodedBlock). */
  readonly decoded?: DecodedBlock;
}

export interface InsertResult {
  readonly status: InsertStatus;
  readonly hash: Uint8Array;
  readonly header: Header | null;
  readonly receipts: readonly Receipt[] | null;
  /** Why the block is invalid. */
  readonly error: string | null;
}

/** Where a block builder takes pool txs from (txpool's price-and-nonce iterator fits). */
export interface TxSource {
  /** The next candidate, or null when there is none (or the source stops the block here). */
  next(): TxCandidate | null;
  /** The last candidate could not be included: skip the rest of its sender's txs. */
  reject(): void;
}

export interface TxCandidate {
  readonly tx: Tx;
  readonly sender: Uint8Array;
  /**
   * Checked right before the tx is applied, against the block being built as it stands at the tx's
   * turn (op-geth miner `commitTransaction`: a conditional tx's conditions); false leaves it out
   * like a tx that does not apply.
   */
  readonly admit?: (at: BuildView) => boolean;
}

/** The block being built, as a candidate's `admit` reads it: its header and its state so far. */
export interface BuildView {
  readonly number: number;
  readonly timestamp: number;
  /** The account's storage root before the block (op-geth: roots are not recomputed between txs). */
  storageRoot(address: Uint8Array): Uint8Array;
  /** A slot's value after the txs applied so far. */
  storage(address: Uint8Array, slot: Uint8Array): bigint;
}

export interface BuildRequest {
  readonly parentHash: Uint8Array;
  readonly timestamp: number;
  readonly feeRecipient: Uint8Array;
  readonly prevRandao: Uint8Array;
  readonly gasLimit: bigint;
  readonly extraData: Uint8Array;
  readonly withdrawals: readonly Withdrawal[] | null;
  readonly parentBeaconBlockRoot: Uint8Array | null;
  /** Txs that must open the block, in order (OP payload attributes `transactions`); any failure fails the build. */
  readonly forced: readonly Uint8Array[];
  /** Pool txs to fill the rest of the block; null for `noTxPool`. */
  readonly pool: TxSource | null;
}

export interface BuiltBlock {
  readonly hash: Uint8Array;
  readonly header: Header;
  readonly body: BlockBody;
  readonly receipts: Receipt[];
  /** Fees paid to the fee recipient (priority fees). */
  readonly fees: bigint;
}

/** Why a build failed; `forcedIndex` names the forced tx that did not apply (geth's message in `error`). */
export interface BuildFailure {
  readonly error: string;
  readonly forcedIndex?: number;
}

export interface HeadChange {
  readonly oldHead: Header;
  readonly newHead: Header;
  /** Blocks that left the canonical chain, newest first. */
  readonly removed: Header[];
  /** Blocks that joined it, oldest first. */
  readonly added: Header[];
}

/**
 * What readers of the chain see (the RPC layer, and worker threads serving read-only calls over
 * their own view of the store): the store, the config and the heads, nothing that writes.
 */
export interface ChainView {
  readonly store: ChainStore;
  readonly config: ChainConfig;
  readonly head: Header;
  readonly headBlockHash: Uint8Array;
  /** The block whose post-state the flat tables hold. */
  readonly stateBlockHash: Uint8Array;
}

/**
 * The undo batches of one block's state writes, as `commitState` persists them: the first forward
 * batch carries its undo as the crash marker (META_PENDING), each later one the later undos, newest
 * first (META_PENDING_TAIL), and `record` (all of them, newest first) is the block's history record.
 * PERF: each undo is encoded once and the record joined from those encodings; the first undo holds a
 * row per written slot (10k for storage-writes, `npm run bench -- engines` / `import`), so it is not
 * written again with the later batches.
 */
class BlockUndo {
  /** The encoding of each undo, oldest first. */
  private readonly encoded: Uint8Array[] = [];

  constructor(private readonly kv: KvStore) {}

  /** The undos so far, newest first, encoded (batchCodec). */
  get record(): Uint8Array {
    return this.encoded.length === 0 ? EMPTY_RECORD : joinEncodedBatches([...this.encoded].reverse());
  }

  readonly persist: Persist = (forward, undo, undoEncoded) => {
    this.encoded.push(undoEncoded ?? encodeBatch(undo));
    if (this.encoded.length === 1) {
      forward.put("meta", META_PENDING, this.encoded[0]!);
      forward.del("meta", META_PENDING_TAIL);
    } else {
      forward.put("meta", META_PENDING_TAIL, joinEncodedBatches(this.encoded.slice(1).reverse()));
    }
    this.kv.write(forward);
  };

  /**
   * The block's trie batch, held for the caller's final write (ImportContext.persistLast): its undo
   * joins the record (not the crash marker: nothing of it is on disk before that write), and the
   * batch is kept to carry the block's rows. Null when the import wrote it (in parts) itself.
   */
  held: WriteBatch | null = null;
  readonly persistLast = (forward: WriteBatch, undo: WriteBatch, undoEncoded?: Uint8Array): void => {
    this.encoded.push(undoEncoded ?? encodeBatch(undo));
    this.held = forward;
  };
}

const EMPTY_RECORD = encodeBatch(new WriteBatch());
const ZERO_HASH = new Uint8Array(32);
const _enc = new TextEncoder();
const dec = new TextDecoder();

export class Blockchain implements ChainView {
  private readonly ownStore: ChainStore;
  /** Decoded headers by hash, shared by every view of the store. */
  private readonly headers = new HeaderCache();
  /**
   * From a sliced import's first state write until its final write, the state block is still the
   * parent: readers get the store with the parent's rows laid back over what is written (the undo
   * of each state write), so they see exactly the parent's state. Null otherwise.
   */
  private readView: ChainStore | null = null;
  private headHeader: Header;
  private headHash: Uint8Array;
  private stateHash: Uint8Array;
  private readonly invalid = new Set<string>();
  /**
   * The block imported last (bytesKey of its hash): its txs, for its head move's tx index, and its
   * total difficulty, for its child's; neither is then read back.
   */
  private lastImported: {
    readonly key: string;
    readonly transactions: readonly Uint8Array[];
    readonly td: bigint;
  } | null = null;
  /** Blocks known to be executed (isExecuted), by bytesKey; the oldest dropped past EXECUTED_REMEMBERED. */
  private readonly executed = new Set<string>();
  /** A head or label change was written without sync since the last `persist()`. */
  private unsynced = false;
  /** Head and label writes made without sync so far (a log sync clears `unsynced` if none came after it began). */
  private unsyncedWrites = 0;
  /**
   * Makes every batch written so far durable without this thread waiting for the disk; resolves once
   * it is. The node on RocksDB sets it (`RocksKv.syncLog` on a trieHash worker): forkchoice then
   * writes unsynced and waits for this. Null: forkchoice makes its write a synced one.
   */
  logSync: (() => Promise<void>) | null = null;
  /**
   * engine_forkchoiceUpdated's head and label writes are durable before it answers (on by default
   * here; the node sets it from --engine.fsync-forkchoice). Off, they are written unsynced like any
   * head move, and the node's timer syncs them within DURABLE_INTERVAL_MS, as op-geth and op-reth
   * keep theirs: a power cut may take the last second of heads, which the rollup node sends again.
   */
  durableForkchoice = true;
  /** The log sync started by the last `applyForkchoice`, until `exclusiveDurable` takes it. */
  private forkchoiceSync: Promise<void> | null = null;
  /** The log sync of `persistSoon` under way. */
  private persistSync: Promise<void> | null = null;
  /** Time spent by imports (insertBlock) in execution, flat-state writes and the state root, summed. */
  readonly importTimings: ImportTimings = newImportTimings();
  tracer: Tracer | null = null;
  /**
   * Workers that read this chain's store: storage tries changed by an import or a built block are
   * updated there and on this thread in parallel (trie/sharedStorageRoots.ts). Null: all here.
   */
  storagePool: TaskPool | null = null;
  /** The chain mutations, one at a time in arrival order (`exclusive`, `insertBlockSliced`). */
  private mutations = new Slicer({ sliceMs: IMPORT_SLICE_MS, maxActive: 1, name: "chain" });
  /** A sliced import is under way (between its slices the synchronous mutators refuse to run). */
  private importing = false;

  private constructor(
    readonly kv: KvStore,
    readonly config: ChainConfig,
  ) {
    // Decoded headers by hash (a header never changes under its hash): RPC reads of the head and
    // recent blocks, the import's parent and BLOCKHASH ancestry skip the read and the RLP decode.
    this.ownStore = new ChainStore(kv, this.headers);
    const head = this.store.meta(META_HEAD);
    const state = this.store.meta(META_STATE);
    if (head === null || state === null)
      throw new ChainError("database has no chain: run `opal-exec init <genesis.json>` first");
    const h = this.store.header(head);
    if (h === null) throw new ChainError(`database is missing its head block ${bytesToHex(head)}`);
    this.headHash = head;
    this.headHeader = h;
    this.stateHash = state;
  }

  /** Writes the genesis (alloc, block 0, heads) into an empty store; on a store with a chain, checks it is the same genesis. */
  static init(kv: KvStore, genesis: Genesis, configJson: unknown): Blockchain {
    const store = new ChainStore(kv);
    if (store.meta(META_HEAD) !== null) {
      // A chain is there already: compare its genesis with this one in memory, writing nothing.
      const hash = headerHash(genesisBlockOf(genesis).header);
      const existing = store.canonicalHash(genesis.number);
      if (existing === null || !equalBytes(existing, hash)) {
        throw new ChainError(
          `database already holds a chain with another genesis (${existing === null ? "none" : bytesToHex(existing)})`,
        );
      }
      return Blockchain.open(kv);
    }
    const stateRoot = writeAlloc(kv, genesis.alloc);
    const header = genesisHeader(genesis, stateRoot, passerRoot(kv));
    const b = new WriteBatch();
    store.putBaseBlock(b, headerHash(header), header, configJson);
    kv.write(b, { sync: true });
    return new Blockchain(kv, genesis.config);
  }

  /** Opens a store written by `init`, finishing or undoing a state write a crash interrupted. */
  static open(kv: KvStore): Blockchain {
    const store = new ChainStore(kv);
    const cfgBytes = store.meta(META_CONFIG);
    if (cfgBytes === null) throw new ChainError("database has no chain: run `opal-exec init <genesis.json>` first");
    const pending = pendingUndo(kv);
    if (pending !== undefined) {
      const undo = undoBatch(kv, pending);
      clearPendingUndo(undo);
      kv.write(undo, { sync: true });
    }
    return new Blockchain(kv, parseChainConfig(JSON.parse(dec.decode(cfgBytes))));
  }

  /** The store as readers see it: the state of `stateBlockHash` (see `readView`). */
  get store(): ChainStore {
    return this.readView ?? this.ownStore;
  }

  get head(): Header {
    return this.headHeader;
  }

  get headBlockHash(): Uint8Array {
    return this.headHash;
  }

  /** The block whose post-state the flat tables hold. */
  get stateBlockHash(): Uint8Array {
    return this.stateHash;
  }

  /**
   * The block is stored and was executed (its receipts are kept): importing it again is KNOWN.
   * Receipts rows are never deleted, so a yes is remembered (`executed`): an Engine API block is
   * asked about four times (its import, forkchoice's check, the head move; the next block's parent)
   * and each ask would read its whole receipts row back from the store.
   */
  isExecuted(hash: Uint8Array): boolean {
    const k = bytesKey(hash);
    if (this.executed.has(k)) return true;
    if (this.store.receiptsRlp(hash) === undefined) return false;
    this.rememberExecuted(k);
    return true;
  }

  private rememberExecuted(k: string): void {
    this.executed.add(k);
    if (this.executed.size > EXECUTED_REMEMBERED) {
      for (const old of this.executed) {
        this.executed.delete(old);
        break;
      }
    }
  }

  isInvalid(hash: Uint8Array): boolean {
    return this.invalid.has(bytesKey(hash));
  }

  /**
   * Validates and executes `blockRlp` on its parent's state and stores it (not made canonical).
   * `opts.senders`: the txs' senders, recovered beforehand or alongside execution (see ImportContext.senders).
   */
  insertBlock(blockRlp: Uint8Array, opts: { readonly senders?: ImportContext["senders"] } = {}): InsertResult {
    this.assertIdle("insertBlock");
    return runToEnd(this.insertSteps(blockRlp, opts, false));
  }

  /**
   * `insertBlock` in slices of the event loop, queued behind the chain mutations before it (see
   * `exclusive`): the block's txs run a slice at a time and the store holds the parent's state until
   * the commit, so reads are answered while the block executes (issue 25). The Engine API's
   * newPayload takes this path, handing over the block it decoded (`opts.decoded`).
   */
  insertBlockSliced(blockRlp: Uint8Array, opts: InsertOptions = {}): Promise<InsertResult> {
    return Promise.resolve(this.mutations.run(this.inFlight(this.insertSteps(blockRlp, opts, true))));
  }

  /**
   * Runs `fn`, a synchronous chain mutation (forkchoice, a build, a sync batch), after every
   * mutation queued before it: at once when none is under way, else when the last one ends. Every
   * caller that may run while a sliced import is under way (Engine API, dev sealing, devp2p sync,
   * debug_setHead) mutates the chain through here; the synchronous mutators refuse to run while an
   * import is between its slices.
   */
  exclusive<T>(fn: () => T): T | Promise<T> {
    return this.mutations.run(callOnce(fn));
  }

  /**
   * `exclusive` for forkchoice: after `fn`, the queue holds (the event loop does not) until the log
   * sync its `applyForkchoice` started has resolved, so the result is only given, and the next
   * mutation only starts, once the forkchoice is durable. A failed sync rejects with its error.
   */
  exclusiveDurable<T>(fn: () => T): T | Promise<T> {
    return this.mutations.run(this.thenDurable(fn));
  }

  private *thenDurable<T>(fn: () => T): SliceJob<T> {
    turnTrace?.step("exclusive");
    try {
      return fn();
    } finally {
      // Also when `fn` failed after its forkchoice (bad payload attributes): the next mutation and
      // the error both wait for the sync.
      const synced = this.forkchoiceSync;
      this.forkchoiceSync = null;
      if (synced !== null) yield synced;
    }
  }

  /** Chain mutations running or waiting in `exclusive`'s queue. */
  get mutationsPending(): number {
    return this.mutations.pending;
  }

  /** Main-thread time a sliced import runs before it gives the event loop a turn, ms. */
  get importSliceMs(): number {
    return this.mutations.opts.sliceMs;
  }

  set importSliceMs(ms: number) {
    if (this.mutations.pending > 0) throw new ChainError("import slices change while a chain mutation is under way");
    this.mutations = new Slicer({ sliceMs: ms, maxActive: 1, name: "chain" });
  }

  /** Marks a sliced import under way while `job` runs (the synchronous mutators check it). */
  private *inFlight<T>(job: SliceJob<T>): SliceJob<T> {
    this.importing = true;
    try {
      return yield* job;
    } finally {
      this.importing = false;
    }
  }

  private assertIdle(what: string): void {
    if (this.importing) throw new ChainError(`${what} while a block import is under way: use Blockchain.exclusive`);
  }

  /** `sliced`: the job runs in the mutation queue's slices (it may park on a worker's state root). */
  private *insertSteps(blockRlp: Uint8Array, opts: InsertOptions, sliced: boolean): SliceJob<InsertResult> {
    turnTrace?.step("insert");
    const decoded = opts.decoded ?? null;
    let header: Header;
    try {
      header = decoded?.header ?? decodeHeader(blockHeaderRlp(blockRlp));
    } catch (e) {
      return {
        status: "INVALID",
        hash: new Uint8Array(32),
        header: null,
        receipts: null,
        error: `BLOCK_DECODE: ${(e as Error).message}`,
      };
    }
    const hash = decoded?.hash ?? headerHash(header);
    if (this.isExecuted(hash)) {
      return { status: "KNOWN", hash, header, receipts: null, error: null };
    }
    if (this.invalid.has(bytesKey(hash)) || this.invalid.has(bytesKey(header.parentHash))) {
      this.invalid.add(bytesKey(hash));
      return { status: "INVALID", hash, header, receipts: null, error: "descends from an invalid block" };
    }
    const parent = this.store.header(header.parentHash);
    if (parent === null || !this.isExecuted(header.parentHash)) {
      return { status: "UNKNOWN_PARENT", hash, header, receipts: null, error: "unknown parent" };
    }
    yield* this.moveStateSteps(header.parentHash, sliced);
    const res = yield* this.executeSteps(parent, header.parentHash, blockRlp, sliced, opts.senders, decoded);
    if (isImportFailure(res)) {
      this.invalid.add(bytesKey(hash));
      this.keepBadBlock(header, hash, blockRlp);
      return { status: "INVALID", hash, header, receipts: null, error: res.error };
    }
    return { status: "VALID", hash, header, receipts: res.receipts, error: null };
  }

  /**
   * Stores a block that failed import for debug_getBadBlocks (geth BlockChain.reportBlock →
   * rawdb.WriteBadBlock), bounded to BAD_BLOCK_LIMIT. Only a block that decodes whole, txs
   * included, is kept: geth never holds the others as a block.
   */
  private keepBadBlock(header: Header, hash: Uint8Array, blockRlp: Uint8Array): void {
    try {
      for (const t of decodeBlock(blockRlp).body.transactions) decodeTx(t);
    } catch {
      return;
    }
    const b = new WriteBatch();
    if (this.store.putBadBlock(b, header.number, hash, blockRlp.slice())) this.kv.write(b);
  }

  /** Executes on the current state (the parent's) and stores the block; returns the import result. */
  private *executeSteps(
    parent: Header,
    parentHash: Uint8Array,
    blockRlp: Uint8Array,
    sliced: boolean,
    senders?: ImportContext["senders"],
    decoded: DecodedBlock | null = null,
  ): SliceJob<ImportedBlock | ImportFailure> {
    const kv = this.kv;
    const undo = new BlockUndo(kv);
    const pool = this.storagePool;
    // A sliced import's writes are laid, undone, over what readers see until its last write.
    const overlay: Overlay = new Map();
    try {
      const res = yield* importBlockSteps(
        {
          kv,
          cfg: this.config,
          blockHash: this.ancestorHashes(parentHash),
          persist: undo.persist,
          // The trie batch goes out with the block's rows below: one write for both.
          persistLast: undo.persistLast,
          tracer: this.tracer,
          storagePool: pool,
          timings: this.importTimings,
          // A sliced import's root goes to a worker (issue 25); readers meanwhile see the parent.
          remoteRoot:
            sliced && pool !== null ? (changes, parentRoot) => remoteStateRoot(pool, changes, parentRoot) : null,
          onStateWritten: sliced
            ? (u) => {
                layerBatch(overlay, u);
                this.readView ??= new ChainStore(new OverlayKv(kv, overlay), this.headers);
              }
            : null,
          ...(senders === undefined ? {} : { senders }),
        },
        parent,
        blockRlp,
        decoded,
      );
      if (isImportFailure(res)) {
        // importBlock rewound its writes; drop the marker (re-applying it would be harmless too).
        kv.write(clearPendingUndo(new WriteBatch()));
        return res;
      }
      // The block's own rows are encoded in one unit and written, with the new state block, in the
      // next: the write that ends the import (and the parent's view) stays one batch. Only while
      // readers see the parent through the view (a block before Byzantium commits unseen by it).
      const viewed = this.readView !== null;
      if (viewed) yield;
      turnTrace?.step("blockEncode");
      // The held trie batch (when it was not written in parts), the block, its receipts and undo
      // record and the new state block: one atomic write, which also drops the crash marker.
      const b = undo.held ?? new WriteBatch();
      const last = this.lastImported;
      const parentTd =
        last !== null && last.key === bytesKey(parentHash)
          ? last.td
          : (this.ownStore.totalDifficulty(parentHash) ?? 0n);
      const td = parentTd + res.header.difficulty;
      this.ownStore.putBlock(b, res.hash, res.header, res.body, td);
      this.ownStore.putReceipts(b, res.hash, res.receipts, res.receiptsEncoded);
      b.put("history", res.hash, undo.record);
      b.put("meta", META_STATE, res.hash);
      clearPendingUndo(b);
      if (viewed) yield;
      turnTrace?.step("blockWrite");
      kv.write(b);
      this.readView = null;
      this.stateHash = res.hash;
      const k = bytesKey(res.hash);
      this.rememberExecuted(k);
      // What the forkchoice that makes it the head reads next: its header and its txs' hashes.
      this.headers.put(k, res.header);
      this.lastImported = { key: k, transactions: res.body.transactions, td };
      return res;
    } finally {
      this.readView = null;
    }
  }

  /** BLOCKHASH over the ancestry of `tip` (inclusive), resolved lazily and memoised per block. */
  private ancestorHashes(tip: Uint8Array): (n: bigint) => bigint {
    const byNumber = new Map<number, bigint>();
    let cursor: Uint8Array | null = tip;
    let cursorHeader = this.store.header(tip);
    return (n: bigint): bigint => {
      const want = Number(n);
      const hit = byNumber.get(want);
      if (hit !== undefined) return hit;
      while (cursor !== null && cursorHeader !== null && cursorHeader.number >= want) {
        byNumber.set(cursorHeader.number, bytesToBigint(cursor));
        if (cursorHeader.number === want || cursorHeader.number === 0) break;
        cursor = cursorHeader.parentHash;
        cursorHeader = this.store.header(cursor);
      }
      return byNumber.get(want) ?? 0n;
    };
  }

  /** Moves the flat state to the post-state of `target` (an executed block). */
  private moveStateTo(target: Uint8Array): void {
    runToEnd(this.moveStateSteps(target, false));
  }

  /** `moveStateTo` as a job: blocks re-executed on the way yield between their txs (see `insertSteps`). */
  private *moveStateSteps(target: Uint8Array, sliced: boolean): SliceJob<void> {
    if (equalBytes(this.stateHash, target)) return;
    const { back, forward } = this.path(this.stateHash, target);
    for (const h of back) {
      const rec = this.kv.get("history", h);
      const header = this.store.header(h);
      if (rec === undefined || header === null) throw new ChainError(`no undo record for block ${bytesToHex(h)}`);
      const undo = undoBatch(this.kv, rec);
      undo.put("meta", META_STATE, header.parentHash);
      this.kv.write(undo);
      this.stateHash = header.parentHash;
    }
    for (const h of forward) {
      const header = this.store.header(h);
      const body = this.store.body(h);
      const parent = header === null ? null : this.store.header(header.parentHash);
      if (header === null || body === null || parent === null)
        throw new ChainError(`block ${bytesToHex(h)} is not stored`);
      const res = yield* this.executeSteps(parent, header.parentHash, encodeBlock({ header, body }), sliced);
      if (isImportFailure(res)) throw new ChainError(`stored block ${bytesToHex(h)} no longer executes: ${res.error}`);
    }
  }

  /** Blocks to undo from `from` (newest first) and to re-apply up to `to` (oldest first). */
  private path(from: Uint8Array, to: Uint8Array): { back: Uint8Array[]; forward: Uint8Array[]; common: Uint8Array } {
    let a = from;
    let b = to;
    let ha = this.mustHeader(a);
    let hb = this.mustHeader(b);
    const back: Uint8Array[] = [];
    const forward: Uint8Array[] = [];
    while (ha.number > hb.number) {
      back.push(a);
      a = ha.parentHash;
      ha = this.mustHeader(a);
    }
    while (hb.number > ha.number) {
      forward.push(b);
      b = hb.parentHash;
      hb = this.mustHeader(b);
    }
    while (!equalBytes(a, b)) {
      back.push(a);
      forward.push(b);
      a = ha.parentHash;
      b = hb.parentHash;
      ha = this.mustHeader(a);
      hb = this.mustHeader(b);
    }
    return { back, forward: forward.reverse(), common: a };
  }

  private mustHeader(hash: Uint8Array): Header {
    const h = this.store.header(hash);
    if (h === null) throw new ChainError(`block ${bytesToHex(hash)} is not stored`);
    return h;
  }

  /**
   * Makes `hash` (an executed block) the canonical head: the state moves to it, the canonical index
   * and tx lookups are rewritten from the common ancestor, and `meta.head` is updated, in one batch.
   */
  setHead(hash: Uint8Array, opts: { readonly clearSafeAbove?: boolean } = {}): HeadChange {
    this.assertIdle("setHead");
    const b = new WriteBatch();
    const change = this.stageHead(hash, b, opts);
    this.kv.write(b);
    this.markUnsynced();
    this.headHash = hash;
    this.headHeader = change.newHead;
    return change;
  }

  /**
   * engine_forkchoiceUpdated's writes (docs/design/storage.md "Durability"): the head moved to `head`
   * when it is elsewhere (as `setHead`), the labels recorded (as `setSafeAndFinalized`), in one
   * batch. With `durableForkchoice` the batch is synced before the answer (instead of two writes and
   * `persist()`'s synced one): with `logSync` it is written unsynced and the log sync started here
   * is awaited by `exclusiveDurable`, the caller's queue. Returns the head change, or null when the
   * head stays.
   */
  applyForkchoice(head: Uint8Array, safe: Uint8Array | null, finalized: Uint8Array | null): HeadChange | null {
    this.assertIdle("applyForkchoice");
    const b = new WriteBatch();
    const change = equalBytes(this.headHash, head) ? null : this.stageHead(head, b, {});
    this.stageLabels(b, safe, finalized);
    const durable = this.durableForkchoice;
    if (b.size === 0 && !(durable && this.unsynced)) return null;
    if (change === null && durable) b.put("meta", META_HEAD, this.headHash);
    const logSync = this.logSync;
    if (durable && logSync === null) {
      this.kv.write(b, SYNC);
      this.unsynced = false;
    } else {
      this.kv.write(b, NO_SYNC);
      this.markUnsynced();
      if (durable && logSync !== null) this.forkchoiceSync = this.syncLogOff(logSync);
    }
    if (change !== null) {
      this.headHash = head;
      this.headHeader = change.newHead;
    }
    return change;
  }

  /** setHead's state move and its canonical-index and head rows, into `b` (the head fields are the caller's). */
  private stageHead(hash: Uint8Array, b: WriteBatch, opts: { readonly clearSafeAbove?: boolean }): HeadChange {
    const newHead = this.mustHeader(hash);
    if (!this.isExecuted(hash)) throw new ChainError(`block ${bytesToHex(hash)} has not been executed`);
    const oldHead = this.headHeader;
    this.moveStateTo(hash);
    const { back, forward } = this.path(this.headHash, hash);
    const removed: Header[] = [];
    const added: Header[] = [];
    for (const h of back) {
      const header = this.mustHeader(h);
      removed.push(header);
      this.store.unsetCanonical(b, header.number, this.txHashesOf(h));
    }
    for (const h of forward) {
      const header = this.mustHeader(h);
      added.push(header);
      this.store.setCanonical(b, header.number, h, this.txHashesOf(h));
    }
    b.put("meta", META_HEAD, hash);
    if (opts.clearSafeAbove === true) {
      for (const k of [META_SAFE, META_FINALIZED]) {
        const h = this.store.meta(k);
        const at = h === null ? null : this.store.header(h);
        if (at !== null && at.number > newHead.number) b.del("meta", k);
      }
    }
    return { oldHead, newHead, removed, added };
  }

  /**
   * debug_setHead (geth BlockChain.SetHead): rewinds the canonical head to block `number` through
   * the undo records, as a reorg does, in one batch with the head; a number at or above the head
   * changes nothing (null). Blocks above stay stored, so a forkchoice can return to them; a safe or
   * finalized block above the new head is cleared, as geth clears it.
   */
  rewindHead(number: number): HeadChange | null {
    if (number >= this.headHeader.number) return null;
    const hash = this.store.canonicalHash(number);
    if (hash === null) throw new ChainError(`no canonical block #${number}`);
    return this.setHead(hash, { clearSafeAbove: true });
  }

  /**
   * Builds, executes and stores a new block on `parentHash` (not made canonical): forced txs first,
   * then pool txs while gas remains. The result is an executed stored block, so its later
   * engine_newPayload is KNOWN. Errors (a forced tx that does not apply) are returned, and the
   * state is left at the parent.
   */
  buildBlock(req: BuildRequest): BuiltBlock | BuildFailure {
    this.assertIdle("buildBlock");
    const cfg = this.config;
    const parent = this.store.header(req.parentHash);
    if (parent === null) return { error: "unknown parent" };
    this.moveStateTo(req.parentHash);
    const number = parent.number + 1;
    const rules = rulesAt(cfg, number, req.timestamp);
    const fork = rules.fork;
    const op = cfg.optimism !== null ? rules.op : null;
    let baseFee: bigint | null = null;
    if (fork >= Fork.London) {
      baseFee = expectedBaseFee(parent, cfg, op);
      if (baseFee === null) return { error: "parent base fee parameters are malformed" };
    }
    const blob = blobParamsAt(cfg, req.timestamp);
    const excess = fork >= Fork.Cancun ? expectedExcessBlobGas(parent, cfg, fork, req.timestamp) : null;
    const header: Header = {
      parentHash: req.parentHash,
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: req.feeRecipient,
      stateRoot: new Uint8Array(32),
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number,
      gasLimit: req.gasLimit,
      gasUsed: 0,
      timestamp: req.timestamp,
      extraData: req.extraData,
      mixHash: req.prevRandao,
      nonce: new Uint8Array(8),
      baseFeePerGas: baseFee,
      withdrawalsRoot: fork >= Fork.Shanghai ? EMPTY_TRIE_ROOT : null,
      blobGasUsed: fork >= Fork.Cancun ? 0 : null,
      excessBlobGas: excess,
      parentBeaconBlockRoot: fork >= Fork.Cancun ? (req.parentBeaconBlockRoot ?? new Uint8Array(32)) : null,
      requestsHash: fork >= Fork.Prague ? sha256(new Uint8Array(0)) : null,
    };
    const state = new WorldState(new KvStateReader(this.kv), this.kv);
    const x = new BlockExecutor(state, header, {
      rules,
      chainId: cfg.chainId,
      blobBaseFee: headerBlobBaseFee(cfg, excess, req.timestamp),
      maxBlobGas: blob === null || op !== null ? 0 : blob.max * GAS_PER_BLOB,
      depositContract: cfg.depositContractAddress,
      blockHash: this.ancestorHashes(req.parentHash),
      intermediateRoot: null,
      tracer: this.tracer,
      canyonActivation: cfg.optimism !== null && cfg.canyonTime === req.timestamp,
    });
    x.begin();
    let fees = 0n;
    const included: Uint8Array[] = [];
    const txs: Tx[] = [];
    for (let i = 0; i < req.forced.length; i++) {
      let tx: Tx;
      try {
        tx = decodeTx(req.forced[i]);
      } catch (e) {
        return { error: `invalid transaction: ${(e as Error).message}`, forcedIndex: i };
      }
      const bad = validateTx(tx, { rules, chainId: cfg.chainId, allowDeposit: rules.op !== null });
      const sender = bad === null ? recoverSender(tx) : null;
      if (sender === null) return { error: `invalid transaction: ${bad ?? "invalid signature"}`, forcedIndex: i };
      const before = state.account(bytesToBigint(sender));
      const stateNonce = before.nonce;
      const balance = before.balance;
      const codeHash = before.codeHash;
      const r = x.applyTx(tx, sender);
      if (r === "DEPOSIT_ON_L1")
        return { error: "invalid transaction: transaction type not supported", forcedIndex: i };
      if (typeof r === "string") {
        const blobs = tx.type === TxType.Blob ? BigInt(tx.blobVersionedHashes.length * GAS_PER_BLOB) : 0n;
        const blobFeeCap = tx.type === TxType.Blob ? tx.maxFeePerBlobGas : 0n;
        const message = txRejectMessage(r, {
          from: sender,
          txNonce: tx.type === TxType.Deposit ? 0n : tx.nonce,
          stateNonce,
          balance,
          codeHash,
          cost: tx.gasLimit * txMaxFeePerGas(tx) + tx.value + blobs * blobFeeCap,
          gasLimit: tx.gasLimit,
          intrinsicGas: BigInt(intrinsicGas(tx, fork)),
          maxFeePerGas: txMaxFeePerGas(tx),
          baseFee,
          maxFeePerBlobGas: blobFeeCap,
          blobBaseFee: headerBlobBaseFee(cfg, excess, req.timestamp),
        });
        return { error: message, forcedIndex: i };
      }
      included.push(req.forced[i]);
      txs.push(tx);
      // The payload's value counts every tx's tip (geth totalFees); deposits pay none.
      if (tx.type !== TxType.Deposit)
        fees += BigInt(r.gasUsed) * (baseFee === null ? r.gasPrice : r.gasPrice - baseFee);
    }
    if (req.pool !== null) {
      const view: BuildView = {
        number,
        timestamp: req.timestamp,
        storageRoot: (a) => state.account(bytesToBigint(a)).storageRoot,
        storage: (a, slot) => state.sload(state.account(bytesToBigint(a)), bytesToBigint(slot)),
      };
      for (let c = req.pool.next(); c !== null; c = req.pool.next()) {
        if (req.gasLimit - BigInt(x.gasUsed) < 21_000n) break;
        if (c.tx.type === TxType.Deposit || validateTx(c.tx, { rules, chainId: cfg.chainId }) !== null) {
          req.pool.reject();
          continue;
        }
        if (c.admit !== undefined && !c.admit(view)) {
          req.pool.reject();
          continue;
        }
        const r = x.applyTx(c.tx, c.sender);
        if (typeof r === "string") {
          req.pool.reject();
          continue;
        }
        included.push(c.tx.memo?.encoded ?? encodeTx(c.tx));
        txs.push(c.tx);
        fees += BigInt(r.gasUsed) * (baseFee === null ? r.gasPrice : r.gasPrice - baseFee);
      }
    }
    const res = x.finish([], req.withdrawals);
    if ("error" in res) return { error: res.error };

    const forward: WriteBatch[] = [];
    const kv = this.kv;
    const undo = new BlockUndo(kv);
    const stateRoot = commitState(kv, state, undo.persist, forward, [], this.storagePool, null, parent.stateRoot);
    header.stateRoot = stateRoot;
    header.gasUsed = res.gasUsed;
    header.logsBloom = res.logsBloom;
    header.transactionsRoot = orderedTrieRoot(included);
    header.receiptsRoot = orderedTrieRoot(encodeReceiptsForRoot(res.receipts, rules));
    if (fork >= Fork.Cancun) {
      header.blobGasUsed =
        op === null ? res.blobGasUsed : op >= OpFork.Jovian ? (jovianBlobGasUsed(l1InfoOf(txs), included) ?? 0) : 0;
    }
    if (op === null && res.requestsHash !== null) header.requestsHash = res.requestsHash;
    if (header.withdrawalsRoot !== null) {
      header.withdrawalsRoot =
        op !== null && op >= OpFork.Isthmus
          ? passerRoot(kv)
          : orderedTrieRoot((req.withdrawals ?? []).map(encodeWithdrawal));
    }
    const body: BlockBody = {
      transactions: included,
      ommers: [],
      withdrawals: fork >= Fork.Shanghai ? [...(req.withdrawals ?? [])] : null,
    };
    const hash = headerHash(header);
    const b = new WriteBatch();
    const td = (this.store.totalDifficulty(req.parentHash) ?? 0n) + header.difficulty;
    this.store.putBlock(b, hash, header, body, td);
    this.store.putReceipts(b, hash, res.receipts);
    b.put("history", hash, undo.record);
    b.put("meta", META_STATE, hash);
    clearPendingUndo(b);
    kv.write(b);
    this.stateHash = hash;
    return { hash, header, body, receipts: res.receipts, fees };
  }

  /** Records the safe and finalized blocks (Engine API forkchoice); a label already there is not rewritten. */
  setSafeAndFinalized(safe: Uint8Array | null, finalized: Uint8Array | null): void {
    this.assertIdle("setSafeAndFinalized");
    const b = new WriteBatch();
    this.stageLabels(b, safe, finalized);
    if (b.size === 0) return;
    this.kv.write(b);
    this.markUnsynced();
  }

  private markUnsynced(): void {
    this.unsynced = true;
    this.unsyncedWrites++;
  }

  /** Runs `logSync`; once it resolves, the head writes made before it began are synced. */
  private async syncLogOff(logSync: () => Promise<void>): Promise<void> {
    const upTo = this.unsyncedWrites;
    await logSync();
    if (this.unsyncedWrites === upTo) this.unsynced = false;
  }

  /** The label rows that change, into `b`. */
  private stageLabels(b: WriteBatch, safe: Uint8Array | null, finalized: Uint8Array | null): void {
    if (safe !== null && !equalBytes(safe, this.store.meta(META_SAFE) ?? ZERO_HASH)) b.put("meta", META_SAFE, safe);
    if (finalized !== null && !equalBytes(finalized, this.store.meta(META_FINALIZED) ?? ZERO_HASH))
      b.put("meta", META_FINALIZED, finalized);
  }

  /**
   * Makes the head and labels written so far survive power loss: one synced write (RocksDB fsyncs
   * its log, and with it every earlier batch). Nothing to do when no head change is unsynced.
   */
  persist(): void {
    if (!this.unsynced) return;
    this.kv.write(new WriteBatch().put("meta", META_HEAD, this.headHash), SYNC);
    this.unsynced = false;
  }

  /**
   * Stops using `logSync` (before the workers behind it go): waits for the syncs under way; later
   * forkchoices and `persistSoon` sync inline.
   */
  async stopLogSync(): Promise<void> {
    this.logSync = null;
    await Promise.allSettled([this.forkchoiceSync, this.persistSync]);
  }

  /**
   * `persist()` for the node's timer: with `logSync`, the log is synced by it (no write on this
   * thread; at most one such sync at a time) and a failure leaves the head unsynced for the next
   * call; without, `persist()`.
   */
  persistSoon(): void {
    const logSync = this.logSync;
    if (logSync === null) {
      this.persist();
      return;
    }
    if (!this.unsynced || this.persistSync !== null) return;
    this.persistSync = this.syncLogOff(logSync)
      .catch(() => undefined)
      .finally(() => {
        this.persistSync = null;
      });
  }

  private txHashesOf(blockHash: Uint8Array): Uint8Array[] {
    const last = this.lastImported;
    const body = last !== null && last.key === bytesKey(blockHash) ? last : this.store.body(blockHash);
    if (body === null) return [];
    // A transaction's hash is the keccak of its EIP-2718 bytes, which is how a body keeps it.
    return body.transactions.map((t) => keccak256(t));
  }
}

function l1InfoOf(txs: readonly Tx[]) {
  const first = txs[0];
  return first !== undefined && first.type === TxType.Deposit ? parseL1BlockInfo(first.data) : null;
}
