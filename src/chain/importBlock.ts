/**
 * Block import, in one place: decode → header rules against the parent → body commitments (tx,
 * ommers and withdrawals roots, Osaka's size cap on L1) → stateless tx validity and senders → execution →
 * receipts root, bloom, gas, blob gas, requests hash → flat state and trie written with their
 * inverse batches → state root check (rewound on mismatch). Failures are returned with a reason;
 * nothing here throws for bad input.
 */

import { blobBaseFee, GAS_PER_BLOB } from "../block/blobGas.js";
import { type BlockBody, decodeBlock } from "../block/block.js";
import { encodeHeader, type Header, headerHash } from "../block/header.js";
import { encodeReceiptsForRoot, type Receipt, rootEncodingIsConsensus } from "../block/receipt.js";
import { encodeWithdrawal } from "../block/withdrawal.js";
import { keccak256 } from "../crypto/keccak.js";
import type { Tracer } from "../evm/tracer.js";
import { executeBlockSteps, NO_SENDER } from "../executor/executeBlock.js";
import { jovianBlobGasUsed } from "../executor/op/daFootprint.js";
import { equalBytes } from "../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { encodeRlpListOfEncoded } from "../rlp/encode.js";
import { blobParamsAt, type ChainConfig, DEFAULT_CANCUN_BLOB_PARAMS, rulesAt } from "../spec/chainConfig.js";
import { Fork, OpFork } from "../spec/forks.js";
import { decodeAccountRecord, KvStateReader } from "../state/kvStateReader.js";
import { WorldState } from "../state/worldState.js";
import {
  decodeBatch,
  encodeBatch,
  encodeRangeDeletes,
  joinBatches,
  joinEncodedBatches,
} from "../storage/batchCodec.js";
import { type KvReader, type KvStore, WriteBatch } from "../storage/kv.js";
import { canWriteAside, MIN_SHARED_ROWS, writeRowsAside } from "../storage/sharedRows.js";
import type { TableName } from "../storage/tables.js";
import { inverseBatch } from "../storage/undo.js";
import { EMPTY_TRIE_ROOT } from "../trie/node.js";
import { orderedTrieRoot } from "../trie/orderedRoot.js";
import { packedOwners, type StateChangeset, updateStateRoot } from "../trie/stateRoot.js";
import { decodeTx } from "../tx/envelope.js";
import { type L1BlockInfo, parseL1BlockInfo } from "../tx/l1BlockInfo.js";
import type { SenderSource } from "../tx/sharedRecovery.js";
import { recoverSender } from "../tx/signer.js";
import { type Tx, TxType } from "../tx/tx.js";
import { validateTx } from "../tx/validateTx.js";
import { runToEnd, type SliceJob } from "../util/slicer.js";
import type { TaskPool } from "../util/taskPool.js";
import { turnTrace } from "../util/turnTrace.js";
import { validateHeader } from "./validateHeader.js";

/**
 * EIP-7934 (Osaka): MAX_BLOCK_SIZE 10 MiB minus a 2 MiB safety margin. L1 only: Karst brings Osaka's
 * EVM to L2 but not this rule (SPEC: reth checks `rlp_length` in consensus-common validation.rs
 * `post_merge_hardfork_fields`, which op-reth's OpBeaconConsensus never calls: its
 * `validate_block_pre_execution` has no size check; reth 88505c7, op-reth in mantle-v2 c19ebc83).
 */
export const MAX_RLP_BLOCK_SIZE = 8_388_608;

/** Txs decoded and validated per unit of a sliced import (a power of two). */
const DECODE_TXS_PER_STEP = 16;

export interface ImportContext {
  readonly kv: KvStore;
  readonly cfg: ChainConfig;
  /** Canonical ancestor hash by number (BLOCKHASH). */
  readonly blockHash: (n: bigint) => bigint;
  readonly tracer?: Tracer | null;
  /**
   * Writes one state batch; `undo` is its inverse (`undoEncoded`, when given, is its encodeBatch
   * bytes). Defaults to `kv.write(forward)`. The node's Blockchain uses it to keep a crash-recovery
   * record in the same atomic write.
   */
  readonly persist?: Persist;
  /**
   * The senders of the block's txs in tx order (null for an invalid signature): recovered beforehand,
   * or a source that recovers them alongside execution (the Engine API's, on the sigRecover pool:
   * tx/sharedRecovery.ts). Used when it has one entry per tx, else each sender is recovered here.
   */
  readonly senders?: readonly (Uint8Array | null)[] | SenderSource;
  /** Workers reading the same store, for the storage tries (see updateStateRoot); null: all here. */
  readonly storagePool?: TaskPool | null;
  /** Where the time goes, added to per imported block (metrics, `npm run bench -- scale`). */
  readonly timings?: ImportTimings;
  /**
   * A sliced import's state root elsewhere (a trieHash worker reading the same store, issue 25):
   * given the changes whose flat rows are written and the parent's state root (the tries the store
   * holds), the root, its writes and the new storage roots; null when this change is computed here.
   * A failure there is computed here instead.
   */
  readonly remoteRoot?:
    | ((changes: StateChangeset, parentRoot: Uint8Array | null) => PromiseLike<RemoteRoot> | null)
    | null;
  /**
   * Told, in the unit that writes it, each of a sliced import's state batches (flat rows, trie
   * nodes) with `undo`, its inverse, which puts the parent's rows back: what runs between the
   * import's slices must read the store through the undos so far (`Blockchain.store`).
   */
  readonly onStateWritten?: ((undo: WriteBatch) => void) | null;
  /**
   * Takes the import's trie batch (the trie nodes and the account rows with their new storage
   * roots) and its inverse once the block has passed every check, instead of `persist`: the caller
   * writes it in one batch with the block's own rows (Blockchain: one RocksDB write fewer a block).
   * Until then the store holds the new flat rows over the parent's tries; a block that fails never
   * has it written. Not when a sliced import's trie batch is more than
   * `IMPORT_UNITS.trieOpsPerWrite` rows: that one is written in parts through `persist`, before the
   * checks after the root, and undone by `importBlock` on a failure like the flat rows.
   */
  readonly persistLast?: ((forward: WriteBatch, undo: WriteBatch, undoEncoded?: Uint8Array) => void) | null;
}

/**
 * A state root computed elsewhere (ImportContext.remoteRoot): the trie writes and their inverse
 * come encoded (batchCodec), decoded by the import a unit each.
 */
export interface RemoteRoot {
  readonly root: Uint8Array;
  readonly batch: Uint8Array;
  readonly undo: Uint8Array;
  /** `undo` as the crash marker and history record keep it, when it differs (remoteStateRoot.ts). */
  readonly undoRanged: Uint8Array | null;
  readonly storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[];
  /** The trie-table point reads the remote root made, and those that missed its cache (remoteStateRoot.ts). */
  readonly trieReads: number;
  readonly trieStoreReads: number;
}

/**
 * Time spent importing blocks, summed: executing their txs, writing the flat state changes, and
 * updating the tries to the new state root (with their writes). Read as counters; nothing is kept
 * per block.
 */
export interface ImportTimings {
  blocks: number;
  gas: number;
  executeMs: number;
  stateWriteMs: number;
  rootMs: number;
  /** Trie-table point reads of the roots computed on a worker, and those that went to the store. */
  remoteRootTrieReads: number;
  remoteRootTrieStoreReads: number;
}

export function newImportTimings(): ImportTimings {
  return {
    blocks: 0,
    gas: 0,
    executeMs: 0,
    stateWriteMs: 0,
    rootMs: 0,
    remoteRootTrieReads: 0,
    remoteRootTrieStoreReads: 0,
  };
}

export interface ImportedBlock {
  readonly hash: Uint8Array;
  readonly header: Header;
  readonly body: BlockBody;
  readonly receipts: Receipt[];
  /**
   * The receipts' consensus encodings where the receipts root hashed exactly those bytes (null
   * where it did not: a deposit before Canyon), for the stored receipts (ChainStore.putReceipts).
   */
  readonly receiptsEncoded: readonly (Uint8Array | null)[];
  readonly txs: Tx[];
  /**
   * Writes applied, in order, and their inverses (apply in reverse order to rewind); when the trie
   * batch went to `persistLast`, the last pair is the one handed there.
   */
  readonly forward: WriteBatch[];
  readonly undo: WriteBatch[];
}

export interface ImportFailure {
  readonly error: string;
}

export function isImportFailure(r: ImportedBlock | ImportFailure): r is ImportFailure {
  return (r as ImportFailure).error !== undefined;
}

/** OP predeploy whose storage root Isthmus headers carry as withdrawalsRoot. */
const L2_TO_L1_MESSAGE_PASSER = hexToBytes("0x4200000000000000000000000000000000000016");

function l1InfoOf(txs: readonly Tx[]): L1BlockInfo | null {
  const first = txs[0];
  return first !== undefined && first.type === TxType.Deposit ? parseL1BlockInfo(first.data) : null;
}

/**
 * Writes a WorldState's changes (flat rows, then the trie nodes the new root needs) through
 * `persist`, recording each batch and its inverse; returns the new state root.
 */
export function commitState(
  kv: KvStore,
  state: WorldState,
  persist: Persist,
  forward: WriteBatch[],
  undo: WriteBatch[],
  storagePool: TaskPool | null = null,
  timings: ImportTimings | null = null,
  parentRoot: Uint8Array | null = null,
): Uint8Array {
  return runToEnd(
    commitStateSteps(kv, state, persist, forward, undo, storagePool, timings, null, null, false, parentRoot),
  ).root;
}

/** Writes a state batch with its inverse (ImportContext.persist). */
export type Persist = (forward: WriteBatch, undo: WriteBatch, undoEncoded?: Uint8Array) => void;

/** What `commitStateSteps` ends with: the new root, and the trie batch when held (`holdLast`). */
export interface CommittedState {
  readonly root: Uint8Array;
  /** The trie batch, not written (its inverse ends `undo`, it ends `forward`); null when written. */
  readonly held: WriteBatch | null;
  /** The held batch's inverse already encoded (from the remote root), or null. */
  readonly heldUndoEncoded: Uint8Array | null;
}

/**
 * `commitState` as a sliced job. With `onWritten` (a sliced import), it yields between its steps
 * (the changes taken from the WorldState, their inverse read, the flat rows written, the trie's
 * inverse, the trie written), so no turn of the event loop runs more than one of them; each write
 * is told to `onWritten` with its inverse in the unit that makes it, and readers between the units
 * see the parent's state through the inverses. With `remote`, the root is computed elsewhere while
 * the job is parked (the event loop free). With `holdLast` the trie batch is not persisted but
 * returned as `held` (it and its inverse end `forward` and `undo`) for the caller to write
 * (ImportContext.persistLast); except, sliced, a trie batch of more than
 * `IMPORT_UNITS.trieOpsPerWrite` rows, which is written in parts as without `holdLast`.
 */
export function* commitStateSteps(
  kv: KvStore,
  state: WorldState,
  persist: Persist,
  forward: WriteBatch[],
  undo: WriteBatch[],
  storagePool: TaskPool | null,
  timings: ImportTimings | null,
  remote: ImportContext["remoteRoot"] | null,
  onWritten: ImportContext["onStateWritten"] | null,
  holdLast: boolean,
  parentRoot: Uint8Array | null = null,
): SliceJob<CommittedState> {
  const sliced = onWritten != null;
  let tSpent = 0;
  let t = timings === null ? 0 : performance.now();
  /** A yield between steps when sliced; the time spent so far is counted, the turn between is not. */
  function* pause(): SliceJob<void> {
    if (!sliced) return;
    if (timings !== null) tSpent += performance.now() - t;
    yield;
    if (timings !== null) t = performance.now();
  }
  turnTrace?.step("flatWrite");
  // A new contract's bulk of rows (nothing reads them before the block's last write) is packed for
  // a worker to write while the root is computed here (storage/sharedRows.ts).
  const asideOk = storagePool !== null && kv.noteWritten !== undefined && canWriteAside(storagePool);
  const c = state.commitBlock(asideOk ? MIN_SHARED_ROWS : Number.POSITIVE_INFINITY);
  yield* pause();
  turnTrace?.step("flatInverse");
  const fresh = c.freshRows;
  const flatInverse = yield* inverseBatchSteps(kv, c.batch, sliced);
  // The packed rows are new keys: deletes undo them (first, as inverseBatch orders a fresh put's).
  const u1 = fresh === null ? flatInverse : withDeletesFirst(fresh.batch, flatInverse);
  yield* pause();
  turnTrace?.step("flatPersist");
  // The crash marker (u1, which undoes the packed rows too) is written before the rows go out.
  if (fresh === null) persist(c.batch, u1);
  else {
    // Encoded, the packed rows' undo is one range delete per contract (its storage was empty before
    // the block, so every row under its hashed address is new): ~0.7 MB less to write, log and sync
    // for 10k rows, twice (this marker and the block's history record).
    const ranges = encodeRangeDeletes("hashedStorage", packedOwners(c.changeset));
    persist(c.batch, u1, joinEncodedBatches([ranges, encodeBatch(flatInverse)]));
  }
  const aside = fresh === null ? null : writeRowsAside(kv, storagePool!, "hashedStorage", fresh);
  if (fresh !== null && aside === null) kv.write(fresh.batch);
  onWritten?.(u1);
  forward.push(c.batch);
  if (fresh !== null) forward.push(fresh.batch);
  undo.push(u1);
  if (timings !== null) {
    timings.stateWriteMs += tSpent + performance.now() - t;
    tSpent = 0;
    t = performance.now();
  }
  try {
    yield* pause();
    turnTrace?.step("rootPost");
    let r: {
      root: Uint8Array;
      batch: WriteBatch;
      undo: WriteBatch | null;
      /** `undo` encoded, as the crash marker and history keep it (RemoteRoot.undoRanged or undo). */
      undoEncoded: Uint8Array | null;
      storageRoots: RemoteRoot["storageRoots"];
    } | null = null;
    const away = remote == null ? null : remote(c.changeset, parentRoot);
    if (away !== null) {
      let got: RemoteRoot | null = null;
      try {
        turnTrace?.step("rootAway");
        got = (yield away) as RemoteRoot; // the wait counts as the root's time, as a root here would
      } catch {
        // computed here instead
      }
      if (got !== null) {
        if (timings !== null) {
          timings.remoteRootTrieReads += got.trieReads;
          timings.remoteRootTrieStoreReads += got.trieStoreReads;
        }
        yield* pause();
        turnTrace?.step("rootDecode");
        const batch = decodeBatch(got.batch);
        yield* pause();
        r = {
          root: got.root,
          batch,
          undo: decodeBatch(got.undo),
          // PERF: the worker's encoding as it is, not the decoded inverse encoded again here.
          undoEncoded: got.undoRanged ?? got.undo,
          storageRoots: got.storageRoots,
        };
      }
    }
    if (r === null) {
      turnTrace?.step("rootHere");
      r = { ...updateStateRoot(kv, c.changeset, { storagePool, parentRoot }), undo: null, undoEncoded: null };
    }
    yield* pause();
    turnTrace?.step("trieInverse");
    const u2 = r.undo ?? (yield* inverseBatchSteps(kv, r.batch, sliced));
    // A trie batch of one unit's size (or any, not sliced) waits for the block's final write when the
    // caller takes it (holdLast): nothing of it is on disk before then, so neither the crash marker
    // nor the readers' view needs its inverse, and a block failing a later check never writes it.
    const parts = sliced ? splitBatch(r.batch, IMPORT_UNITS.trieOpsPerWrite) : [r.batch];
    if (holdLast && parts.length === 1) {
      forward.push(r.batch);
      undo.push(u2);
      state.setStorageRoots(r.storageRoots);
      if (timings !== null) timings.rootMs += tSpent + performance.now() - t;
      return { root: r.root, held: r.batch, heldUndoEncoded: r.undoEncoded };
    }
    yield* pause();
    turnTrace?.step("triePersist");
    // Sliced, a big trie batch is written in parts, a unit each. The first part carries the whole
    // inverse (the crash marker then undoes every part, written or not: a part not yet written is
    // already the parent's), and the readers' view lays it whole before any part lands.
    persist(parts[0]!, u2, r.undoEncoded ?? undefined);
    onWritten?.(u2);
    forward.push(parts[0]!);
    undo.push(u2);
    for (let i = 1; i < parts.length; i++) {
      yield* pause();
      kv.write(parts[i]!);
      forward.push(parts[i]!);
    }
    state.setStorageRoots(r.storageRoots);
    if (timings !== null) timings.rootMs += tSpent + performance.now() - t;
    return { root: r.root, held: null, heldUndoEncoded: null };
  } finally {
    // Before anything is written after them, and before a failed block's rewind.
    aside?.finish(kv);
  }
}

/**
 * Sizes of a sliced import's units: trie rows per native write (~1–2 ms each), keys per MultiGet of
 * an inverse (~1–2 ms). Tests lower them to cut small blocks into several units.
 */
export const IMPORT_UNITS = { trieOpsPerWrite: 1024, inverseKeysPerStep: 512 };

/** `batch` cut into batches of at most `n` ops, in order (one part when it is that small). */
function splitBatch(batch: WriteBatch, n: number): WriteBatch[] {
  if (batch.ops.length <= n) return [batch];
  const out: WriteBatch[] = [];
  for (let i = 0; i < batch.ops.length; i += n) {
    const part = new WriteBatch();
    const end = Math.min(batch.ops.length, i + n);
    for (let j = i; j < end; j++) part.ops.push(batch.ops[j]!);
    out.push(part);
  }
  return out;
}

/**
 * `inverseBatch` as a sliced job when `sliced`: the batch's keys are read in parts of
 * `IMPORT_UNITS.inverseKeysPerStep`, yielding between them. Nothing may write the store meanwhile (the
 * import is the one chain mutation running).
 */
function* inverseBatchSteps(kv: KvStore, batch: WriteBatch, sliced: boolean): SliceJob<WriteBatch> {
  const n = IMPORT_UNITS.inverseKeysPerStep;
  if (!sliced || batch.ops.length <= n) return inverseBatch(kv, batch);
  const parts: WriteBatch[] = [];
  for (const part of splitBatch(batch, n)) {
    parts.push(inverseBatch(kv, part));
    yield;
  }
  // Every part read the parent's rows (nothing is written meanwhile), so a key in several parts is
  // restored to the same value by each; in order, a fresh put's delete still comes before a read.
  return joinBatches(parts);
}

/**
 * The blob base fee a block's EVM sees: EIP-4844's fee from its excessBlobGas under the schedule in
 * force, 0 before Cancun. OP chains have no schedule and excessBlobGas 0, so BLOBBASEFEE is 1
 * (fake_exponential(1, 0, ·), as op-geth's NewEVMBlockContext computes it).
 */
export function headerBlobBaseFee(cfg: ChainConfig, excessBlobGas: number | null, timestamp: number): bigint {
  if (excessBlobGas === null) return 0n;
  const params = blobParamsAt(cfg, timestamp);
  return blobBaseFee(excessBlobGas, (params ?? DEFAULT_CANCUN_BLOB_PARAMS).baseFeeUpdateFraction);
}

/** The row of `table` at `key` once `batch` is written over `kv` (its last op on the key wins). */
function rowAfter(kv: KvReader, batch: WriteBatch, table: TableName, key: Uint8Array): Uint8Array | undefined {
  const ops = batch.ops;
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]!;
    if (op.table === table && equalBytes(op.key, key)) return op.type === "put" ? op.value : undefined;
  }
  return kv.get(table, key);
}

/** A delete of every key `puts` writes, then the ops of `inverse`: the undo of both batches. */
function withDeletesFirst(puts: WriteBatch, inverse: WriteBatch): WriteBatch {
  const out = new WriteBatch();
  for (const op of puts.ops) out.del(op.table, op.key);
  for (const op of inverse.ops) out.ops.push(op);
  return out;
}

/** Applies `batches` (inverses) in reverse order. */
export function rewind(kv: KvStore, undo: readonly WriteBatch[]): void {
  for (let i = undo.length - 1; i >= 0; i--) kv.write(undo[i]);
}

/**
 * A block its caller has decoded already, from an Engine API payload (engine/payload.ts
 * `payloadToBlock`): `header` and `body` are the block's, `hash` is the header's hash (which the
 * caller compared with the payload's), and the header's transactionsRoot was computed from
 * `body.transactions`. The import then decodes nothing and hashes neither again.
 */
export interface DecodedBlock {
  readonly header: Header;
  readonly body: BlockBody;
  readonly hash: Uint8Array;
}

export function importBlock(ctx: ImportContext, parent: Header, blockRlp: Uint8Array): ImportedBlock | ImportFailure {
  return runToEnd(importBlockSteps(ctx, parent, blockRlp));
}

/**
 * `importBlock` as a sliced job (util/slicer.ts): it yields between the block's txs and writes
 * nothing until execution is over, so between its slices the store still holds the parent's state.
 * The commit (flat rows, trie, root check) runs in the slice that ends the job.
 */
export function* importBlockSteps(
  ctx: ImportContext,
  parent: Header,
  blockRlp: Uint8Array,
  decoded: DecodedBlock | null = null,
): SliceJob<ImportedBlock | ImportFailure> {
  const { kv, cfg } = ctx;
  turnTrace?.step("decode");
  let block: { header: Header; body: BlockBody };
  if (decoded !== null) block = decoded;
  else {
    try {
      block = decodeBlock(blockRlp);
    } catch (e) {
      return { error: `BLOCK_DECODE: ${(e as Error).message}` };
    }
  }
  const { header, body } = block;
  const rules = rulesAt(cfg, header.number, header.timestamp);
  const fork = rules.fork;
  if (fork >= Fork.Osaka && rules.op === null && blockRlp.length > MAX_RLP_BLOCK_SIZE) {
    return { error: "RLP_BLOCK_LIMIT_EXCEEDED" };
  }
  const hv = validateHeader(header, parent, cfg);
  if (hv !== null) return { error: `HEADER_${hv}` };
  // Nothing is written before execution ends: the steps up to there may yield whatever the fork.
  yield;

  // A decoded payload's header carries the root of its own txs (DecodedBlock).
  if (decoded === null && !equalBytes(orderedTrieRoot(body.transactions), header.transactionsRoot)) {
    return { error: "TRANSACTIONS_ROOT" };
  }
  const ommersHash = keccak256(encodeRlpListOfEncoded(body.ommers.map(encodeHeader)));
  if (!equalBytes(ommersHash, header.ommersHash)) return { error: "OMMERS_HASH" };
  if (fork >= Fork.Paris && body.ommers.length > 0) return { error: "OMMERS_AFTER_MERGE" };
  if (body.ommers.length > 2) return { error: "TOO_MANY_OMMERS" };
  for (const o of body.ommers) {
    if (o.number >= header.number || o.number + 7 < header.number) return { error: "OMMER_NUMBER" };
    if (equalBytes(headerHash(o), header.parentHash)) return { error: "OMMER_IS_PARENT" };
  }
  const op = rules.op;
  // OP Isthmus: withdrawalsRoot commits to the L2ToL1MessagePasser storage instead (checked after execution).
  const isthmus = op !== null && op >= OpFork.Isthmus;
  if (fork >= Fork.Shanghai) {
    if (body.withdrawals === null || header.withdrawalsRoot === null) return { error: "WITHDRAWALS_MISSING" };
    if (op !== null && body.withdrawals.length > 0) return { error: "WITHDRAWALS_ON_L2" };
    if (!isthmus && !equalBytes(orderedTrieRoot(body.withdrawals.map(encodeWithdrawal)), header.withdrawalsRoot)) {
      return { error: "WITHDRAWALS_ROOT" };
    }
  } else if (body.withdrawals !== null) {
    return { error: "WITHDRAWALS_BEFORE_SHANGHAI" };
  }
  yield;

  const txs: Tx[] = [];
  const senders: Uint8Array[] = [];
  const n = body.transactions.length;
  const source = ctx.senders !== undefined && !Array.isArray(ctx.senders) ? (ctx.senders as SenderSource) : null;
  const lazy = source !== null && source.count === n ? source : null;
  const list = source === null ? (ctx.senders as readonly (Uint8Array | null)[] | undefined) : undefined;
  const given = list !== undefined && list.length === n ? list : null;
  for (let i = 0; i < body.transactions.length; i++) {
    let tx: Tx;
    try {
      tx = decodeTx(body.transactions[i]);
    } catch (e) {
      return { error: `TX_DECODE[${i}]: ${(e as Error).message}` };
    }
    const code = validateTx(tx, {
      rules,
      chainId: cfg.chainId,
      allowDeposit: rules.op !== null,
      senderKnown: lazy !== null || given !== null,
    });
    if (code !== null) return { error: `TX_INVALID[${i}]: ${code}` };
    txs.push(tx);
    if ((i & (DECODE_TXS_PER_STEP - 1)) === DECODE_TXS_PER_STEP - 1) yield;
    if (lazy !== null) continue; // asked for as each tx is about to run
    const sender = given === null ? recoverSender(tx) : given[i]!;
    if (sender === null) return { error: `TX_INVALID[${i}]: SENDER_RECOVERY_FAILED` };
    senders.push(sender);
  }

  const blobParams = blobParamsAt(cfg, header.timestamp);
  // From Byzantium nothing is written before execution ends: the reader may read a busy contract's
  // storage whole (KvStateReader wholeStorage).
  const state = new WorldState(new KvStateReader(kv, { wholeStorage: fork >= Fork.Byzantium }), kv);
  // Every account a tx calls or pays is read when the tx runs: one batched read now instead.
  const targets: Uint8Array[] = [header.coinbase];
  for (const tx of txs) if (tx.to !== null) targets.push(tx.to);
  state.prefetchAccounts(targets);
  const forward: WriteBatch[] = [];
  const undo: WriteBatch[] = [];
  const persist = ctx.persist ?? ((b: WriteBatch) => kv.write(b));
  const timings = ctx.timings ?? null;
  const commit = (): Uint8Array =>
    commitState(kv, state, persist, forward, undo, ctx.storagePool ?? null, timings, parent.stateRoot);
  const persistLast = ctx.persistLast ?? null;
  /** The trie batch, computed but held back (persistLast): its inverse has nothing to undo. */
  let held: WriteBatch | null = null;
  const fail = (error: string): ImportFailure => {
    rewind(kv, held !== null ? undo.slice(0, -1) : undo);
    return { error };
  };

  const steps = executeBlockSteps(
    state,
    { header, txs, senders: lazy ?? senders, ommers: body.ommers, withdrawals: body.withdrawals },
    {
      rules,
      chainId: cfg.chainId,
      blobBaseFee: headerBlobBaseFee(cfg, header.excessBlobGas, header.timestamp),
      maxBlobGas: blobParams === null ? 0 : blobParams.max * GAS_PER_BLOB,
      depositContract: cfg.depositContractAddress,
      blockHash: ctx.blockHash,
      intermediateRoot: fork < Fork.Byzantium ? commit : null,
      tracer: ctx.tracer ?? null,
      canyonActivation: cfg.optimism !== null && cfg.canyonTime === header.timestamp,
    },
  );
  // Execution's own time, without the turns the event loop gets between its slices. Before
  // Byzantium each tx commits its state for the receipt's root, so such a block runs in one slice:
  // readers never see a block's writes before its last one.
  const sliced = fork >= Fork.Byzantium;
  let tExec = timings === null ? 0 : performance.now();
  turnTrace?.step("execute");
  let step = steps.next();
  while (step.done !== true) {
    if (sliced) {
      if (timings !== null) timings.executeMs += performance.now() - tExec;
      yield;
      if (timings !== null) tExec = performance.now();
    }
    step = steps.next();
  }
  if (timings !== null) timings.executeMs += performance.now() - tExec;
  turnTrace?.step("blockChecks");
  const res = step.value;
  if ("error" in res) {
    const i = res.txIndex;
    // A sender the source could not recover: the error validateTx gives when it recovers itself.
    return fail(
      res.error === NO_SENDER ? `TX_INVALID[${i}]: SENDER_RECOVERY_FAILED` : `TX_EXECUTION[${i}]: ${res.error}`,
    );
  }
  if (sliced) yield;
  if (res.gasUsed !== header.gasUsed) return fail(`GAS_USED: got ${res.gasUsed}, header ${header.gasUsed}`);
  if (header.blobGasUsed !== null) {
    // OP Jovian: blobGasUsed carries the block's DA footprint (op-stack.md §3.4).
    const want =
      op !== null && op >= OpFork.Jovian ? jovianBlobGasUsed(l1InfoOf(txs), body.transactions) : res.blobGasUsed;
    if (want === null || want !== header.blobGasUsed) return fail("BLOB_GAS_USED");
  }
  const forRoot = encodeReceiptsForRoot(res.receipts, rules);
  const receiptsRoot = orderedTrieRoot(forRoot);
  if (!equalBytes(receiptsRoot, header.receiptsRoot)) return fail(`RECEIPTS_ROOT: got ${bytesToHex(receiptsRoot)}`);
  if (sliced) yield;
  if (!equalBytes(res.logsBloom, header.logsBloom)) return fail("LOGS_BLOOM");
  if (header.requestsHash !== null && rules.op === null) {
    if (res.requestsHash === null || !equalBytes(res.requestsHash, header.requestsHash)) return fail("REQUESTS_HASH");
  }
  const committed = yield* commitStateSteps(
    kv,
    state,
    persist,
    forward,
    undo,
    ctx.storagePool ?? null,
    timings,
    ctx.remoteRoot ?? null,
    sliced ? (ctx.onStateWritten ?? null) : null,
    persistLast !== null,
    parent.stateRoot,
  );
  held = committed.held;
  const heldUndoEncoded = committed.heldUndoEncoded;
  const root = committed.root;
  if (!equalBytes(root, header.stateRoot)) return fail(`STATE_ROOT: got ${bytesToHex(root)}`);
  if (isthmus) {
    // The passer's row as the trie batch leaves it (it carries the new storage roots): the held
    // batch's, else the store's (a trie batch written in parts is all on disk by now).
    const key = keccak256(L2_TO_L1_MESSAGE_PASSER);
    const row = held === null ? kv.get("hashedAccounts", key) : rowAfter(kv, held, "hashedAccounts", key);
    const want = row === undefined ? EMPTY_TRIE_ROOT : decodeAccountRecord(row).storageRoot;
    if (header.withdrawalsRoot === null || !equalBytes(want, header.withdrawalsRoot)) return fail("WITHDRAWALS_ROOT");
  }
  if (persistLast !== null && held !== null) persistLast(held, undo[undo.length - 1]!, heldUndoEncoded ?? undefined);
  if (timings !== null) {
    timings.blocks++;
    timings.gas += res.gasUsed;
  }
  const hash = decoded === null ? keccak256(encodeHeader(header)) : decoded.hash;
  const receiptsEncoded = forRoot.map((e, i) => (rootEncodingIsConsensus(res.receipts[i]!, rules) ? e : null));
  return { hash, header, body, receipts: res.receipts, receiptsEncoded, txs, forward, undo };
}
