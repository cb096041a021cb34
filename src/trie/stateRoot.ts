/**
 * State root over storage (Yellow Paper 4.1, secure tries): the account trie over hashedAccounts and
 * one storage trie per account over hashedStorage, with branch nodes kept in accountTrie/storageTrie
 * (record layout: branchNodeCompact.ts).
 *  - computeStateRoot: full build from the flat tables; rewrites every stored branch node.
 *  - updateStateRoot: incremental, from the keys changed since the stored nodes were written (their
 *    flat rows already updated): only changed paths are re-hashed (trieWalker.ts).
 * Both return the root and one WriteBatch holding the branch-node puts/deletes plus the
 * hashedAccounts rows whose storageRoot field changed; the caller applies it atomically (with its
 * flat-state writes) after checking the root. Storage values stored as minimal big-endian words
 * become rlp(word) leaves; a storage trie's root is patched into its account's RLP.
 */
import { packItems } from "../crypto/keccak.js";
import { bytesKey, compareBytes, EMPTY_BYTES, equalBytes } from "../primitives/bytes.js";
import { stringLength, writeString } from "../rlp/encode.js";
import { type KvCursor, type KvCursorOptions, type KvReader, LazyCursor, WriteBatch } from "../storage/kv.js";
import type { TaskPool } from "../util/taskPool.js";
import { accountStorageRoot, withStorageRoot } from "./account.js";
import { BottomCache } from "./bottomCache.js";
import { TrieError } from "./errors.js";
import { type BranchUpdate, borrowHashBuilder, HashBuilder, releaseHashBuilder } from "./hashBuilder.js";
import { EMPTY_TRIE_ROOT } from "./node.js";
import { sortKeyOrder } from "./packLeaves.js";
import { runStorageJobs, type StorageJob, type StorageJobRunner, type TrieWalkStats } from "./sharedStorageRoots.js";
import { type SortedLeaves, type SortedRows, type SortedTrie, sortedTrie, sortedTrieRows } from "./sortedTrie.js";
import {
  ACCOUNT_TRIE_VIEW,
  deleteStale,
  keyRange,
  leafLower,
  leafUpper,
  putTrieUpdates,
  readAllNodes,
  storageTrieView,
  type TrieView,
} from "./storedTrie.js";
import { sortUniqueKeys, TrieWalker } from "./trieWalker.js";

export interface StorageChange {
  readonly hashedAddress: Uint8Array;
  /** keccak(slot) of every hashedStorage row written or deleted for this account. */
  readonly slots: readonly Uint8Array[];
  /** Every earlier slot is gone (self-destruct, re-creation): rebuild from the flat rows alone. */
  readonly wiped?: boolean;
  /**
   * The new row of each of `slots`, in the same order (minimal big-endian word; empty = deleted),
   * given only when the account had no other rows (a new account, one whose storage was empty, or
   * a wiped one): its storage trie is then built from these alone, without reading the flat rows.
   */
  readonly values?: readonly Uint8Array[] | undefined;
  /**
   * The same leaves as the non-empty `values`, as `WorldState.commitBlock` packed them for a worker's
   * write (sortedTrie.ts SortedRows), in key order: the trie is then folded from them directly.
   */
  readonly packed?: SortedRows | undefined;
}

export interface StateChangeset {
  /** keccak(address) of every hashedAccounts row written or deleted. */
  readonly accounts: readonly Uint8Array[];
  readonly storage?: readonly StorageChange[];
  /**
   * keccak(address) of every account among the changed ones (`accounts` and `storage`) that had no
   * hashedAccounts row before the changes, when the caller knows (WorldState.commitBlock): then
   * every other changed account had one, and the account walk reads a changed account whose
   * bottom branch keeps its leaf's hash by exact key (TrieWalkerOptions.created). Absent: unknown.
   */
  readonly created?: readonly Uint8Array[];
}

export type StateRootStats = TrieWalkStats;

export interface StateRootResult {
  readonly root: Uint8Array;
  /** Branch-node writes and patched hashedAccounts rows. */
  readonly batch: WriteBatch;
  /** New storage roots of the accounts whose storage was recomputed. */
  readonly storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[];
  readonly stats: StateRootStats;
  /** Storage tries updated by workers (updateStateRoot with a storagePool). */
  readonly storageByWorkers?: number;
}

/** Trie leaf value of a stored storage word: rlp(word); empty (zero) rows are absent. */
export function storageLeafValue(_key: Uint8Array, raw: Uint8Array): Uint8Array | null {
  if (raw.length === 0) return null;
  const out = new Uint8Array(stringLength(raw));
  writeString(out, 0, raw);
  return out;
}

const SCAN: KvCursorOptions = Object.freeze({ scan: true });

/** compareBytes(key.subarray(0, 32), addr) without the view: storage row key (address ‖ slot) vs address. */
function comparePrefix(key: Uint8Array, addr: Uint8Array): number {
  const kl = Math.min(key.length, 32);
  const n = Math.min(kl, addr.length);
  for (let i = 0; i < n; i++) {
    const d = key[i] - addr[i];
    if (d !== 0) return d;
  }
  return kl - addr.length;
}

function newStats(): StateRootStats {
  return { nodesRead: 0, leavesRead: 0, refsAdded: 0, nodePuts: 0, nodeDels: 0, rebuilds: 0 };
}

function addWalk(stats: StateRootStats, w: TrieWalker): void {
  stats.nodesRead += w.nodesRead;
  stats.leavesRead += w.leavesRead;
  stats.refsAdded += w.refsAdded + w.leafRefs + w.nodeRefs;
}

/**
 * The bottom branches of this thread's recent incremental roots (bottomCache.ts), shared by every
 * trie and store: entries are keyed by path and node hash, so they are right wherever they match.
 * 32,768 entries of a few hundred bytes each: about the branches a few thousand blocks touch.
 */
export const STATE_ROOT_BOTTOMS: BottomCache = new BottomCache(32_768);

/**
 * Incremental root of one storage trie; its branch-node writes go to `batch`. With `wiped`, stored
 * nodes are ignored and all of them are replaced.
 */
export function updateStorageRoot(
  kv: KvReader,
  hashedAddress: Uint8Array,
  slots: readonly Uint8Array[],
  batch: WriteBatch,
  opts: { wiped?: boolean; stats?: StateRootStats } = {},
): Uint8Array {
  const view = storageTrieView(hashedAddress);
  const wiped = opts.wiped === true;
  return updateTrie(
    kv,
    view,
    wiped ? [] : sortUniqueKeys(slots),
    batch,
    storageLeafValue,
    wiped,
    opts.stats ?? newStats(),
  );
}

/** The storage-trie job as a worker runs it (its own cursors; the slots are sorted and unique). */
export const storageJobOnWorker: StorageJobRunner = (kv, job, batch, stats) =>
  updateTrie(kv, storageTrieView(job.hashedAddress), job.slots, batch, storageLeafValue, false, stats);

/**
 * When a trie's changed keys are most of its leaves (a block of 10k transfers to new accounts over
 * 200 old ones; a token's 5k new holders over 200), the walk reads and re-hashes nearly every leaf
 * anyway, in HashBuilder one at a time; reading every row in one pass and folding them in one
 * native call (sortedTrie.ts) costs a fraction of it. A trie with at least `minKeys` changed keys
 * has its rows read while they number at most `rowsPerKey` times those keys; past that it is
 * walked as before (the rows read are the bound's cost). Tests lower the bounds.
 */
export const REBUILD = { minKeys: 1024, rowsPerKey: 2 };

/**
 * The trie of `view` rebuilt from all its rows when they number at most `limit`: its root, its
 * branch records written over the stored ones (stale ones deleted); null when there are more rows
 * (nothing written, `leafValue` not called).
 */
function rebuildFromRows(
  kv: KvReader,
  view: TrieView,
  limit: number,
  leafValue: (key: Uint8Array, raw: Uint8Array) => Uint8Array | null,
  batch: WriteBatch,
  stats: StateRootStats,
  nodeCursor: KvCursor | undefined,
): Uint8Array | null {
  const p = view.leafPrefix.length;
  const rows: [Uint8Array, Uint8Array][] = [];
  const range = { ...keyRange(leafLower(view, EMPTY_BYTES, 0), leafUpper(view, EMPTY_BYTES, 0)), limit: limit + 1 };
  // Every KvReader's iterate yields arrays of the caller's own: views of them are kept, not copies.
  for (const [k, raw] of kv.iterate(view.leafTable, range)) {
    if (rows.length === limit) return null;
    rows.push([k.subarray(p, p + 32), raw]);
  }
  stats.leavesRead += rows.length;
  // In key order, as a walk hands them over (the account trie's leafValue relies on it).
  const keys = new Uint8Array(32 * rows.length);
  const values: Uint8Array[] = [];
  for (const [key, raw] of rows) {
    const v = leafValue(key, raw);
    if (v === null) continue;
    keys.set(key, 32 * values.length);
    values.push(v);
  }
  const { packed, offsets } = packItems(values);
  const trie = sortedTrie({ keys: keys.subarray(0, 32 * values.length), values: packed, offsets }, view.leafHashes);
  replaceStoredTrie(kv, view, trie.updates, batch, stats, nodeCursor);
  stats.rebuilds++;
  return trie.root;
}

/**
 * Stores a trie built whole from its leaves (`sortedTrie`) in place of the view's stored records:
 * its records put (a key not stored before as an insert), the others deleted.
 */
function replaceStoredTrie(
  kv: KvReader,
  view: TrieView,
  updates: readonly BranchUpdate[],
  batch: WriteBatch,
  stats: StateRootStats,
  nodeCursor: KvCursor | undefined,
): void {
  const old = readAllNodes(kv, view, undefined, nodeCursor);
  const kept = new Set<string>();
  stats.nodePuts += putTrieUpdates(batch, view, updates, old, kept, true);
  stats.nodeDels += deleteStale(batch, view.nodeTable, old, kept);
}

function updateTrie(
  kv: KvReader,
  view: TrieView,
  changed: readonly Uint8Array[],
  batch: WriteBatch,
  leafValue: (key: Uint8Array, raw: Uint8Array) => Uint8Array | null,
  rebuild: boolean,
  stats: StateRootStats,
  walk: {
    leafCursor?: KvCursor;
    nodeCursor?: KvCursor;
    rootHash?: Uint8Array | null;
    created?: Uint8Array | null;
  } = {},
): Uint8Array {
  if (!rebuild && changed.length >= REBUILD.minKeys) {
    const limit = changed.length * REBUILD.rowsPerKey;
    const root = rebuildFromRows(kv, view, limit, leafValue, batch, stats, walk.nodeCursor);
    if (root !== null) return root;
  }
  const bottoms = process.env.OPAL_NO_BOTTOMS === "1" ? null : STATE_ROOT_BOTTOMS;
  const hb = borrowHashBuilder({ updates: true, bottoms, leafHashes: view.leafHashes });
  const walker = new TrieWalker(kv, view, changed, hb, leafValue, { ignoreStored: rebuild, bottoms, ...walk });
  walker.run();
  const root = hb.root();
  addWalk(stats, walker);
  const old = rebuild ? readAllNodes(kv, view) : walker.visited;
  const kept = new Set<string>();
  stats.nodePuts += putTrieUpdates(batch, view, hb.takeUpdates(), old, kept, rebuild);
  releaseHashBuilder(hb);
  stats.nodeDels += deleteStale(batch, view.nodeTable, old, kept);
  return root;
}

/**
 * One entry per account (slots united, wiped if any entry says so), sorted by hashed address. The
 * values of an account's only entry are kept; an account named twice is walked from its rows.
 */
function mergeStorageChanges(changes: readonly StorageChange[]): StorageChange[] {
  const byAddr = new Map<string, StorageChange>();
  for (const c of changes) {
    const k = bytesKey(c.hashedAddress);
    const m = byAddr.get(k);
    // An account's only entry as it is (PERF: no copy of its 10k slots); a second one merged, walked from its rows.
    byAddr.set(
      k,
      m === undefined
        ? c
        : {
            hashedAddress: c.hashedAddress,
            slots: [...m.slots, ...c.slots],
            wiped: m.wiped === true || c.wiped === true,
          },
    );
  }
  return [...byAddr.values()].sort((a, b) => compareBytes(a.hashedAddress, b.hashedAddress));
}

/**
 * The leaves of a new storage trie (`freshStorageRoot`) for sortedTrie: each kept key (`order`'s, or
 * the input's when null) and rlp(value), deleted slots (empty values) left out; of equal keys in
 * `order` (adjacent, in input order) the last is the row.
 */
function packFreshLeaves(
  slots: readonly Uint8Array[],
  values: readonly Uint8Array[],
  order: Uint32Array | null,
): SortedLeaves {
  const n = slots.length;
  let size = 0;
  for (const v of values) size += v.length === 0 ? 0 : stringLength(v);
  const leaves = new Uint8Array(size);
  const keys = new Uint8Array(32 * n);
  const offsets = new Uint32Array(n + 1);
  let pos = 0;
  let m = 0;
  for (let k = 0; k < n; k++) {
    const i = order === null ? k : order[k]!;
    if (order !== null && k + 1 < n && equalBytes(slots[order[k + 1]!]!, slots[i]!)) continue;
    const v = values[i]!;
    if (v.length === 0) continue;
    const key = slots[i]!;
    if (key.length !== 32) throw new TrieError("BAD_INPUT", "storage change: a slot key is not 32 bytes");
    keys.set(key, 32 * m);
    pos = writeString(leaves, pos, v);
    offsets[++m] = pos;
  }
  return { keys: keys.subarray(0, 32 * m), values: leaves, offsets: offsets.subarray(0, m + 1) };
}

/**
 * The storage trie of an account whose only rows are `values` at `slots` (StorageChange.values),
 * built from them in key order with no flat-row reads; stored nodes under the account (a wiped
 * incarnation's) are deleted unless rebuilt. PERF: a contract filling fresh slots (storage-writes in
 * the evm bench, 10k slots) skips a cursor pass over the rows it has just written, and the trie is
 * built in one native call (sortedTrie.ts).
 */
function freshStorageRoot(
  kv: KvReader,
  change: StorageChange,
  values: readonly Uint8Array[],
  batch: WriteBatch,
  stats: StateRootStats,
  nodeCursor: KvCursor,
): Uint8Array {
  const slots = change.slots;
  if (values.length !== slots.length) {
    throw new TrieError("BAD_INPUT", "storage change: values and slots differ in count");
  }
  // WorldState.commitBlock hands them over sorted and unique: packed as they come, and only when the
  // fold finds them out of order (it checks every pair) sorted and packed again. PERF: no pass of
  // its own over 10k keys to check the order first (~7 ms of the storage-writes import, cold).
  let trie: SortedTrie;
  try {
    // PERF: the rows commitBlock packed are the leaves already; no pass over 10k slots here.
    trie =
      change.packed !== undefined ? sortedTrieRows(change.packed) : sortedTrie(packFreshLeaves(slots, values, null));
  } catch (e) {
    if (!(e instanceof TrieError) || e.code !== "UNSORTED_KEYS") throw e;
    trie = sortedTrie(packFreshLeaves(slots, values, sortKeyOrder(slots, true)));
  }
  replaceStoredTrie(kv, storageTrieView(change.hashedAddress), trie.updates, batch, stats, nodeCursor);
  return trie.root;
}

/**
 * Incremental state root after `changes` were applied to the flat tables. One cursor per table
 * serves every walk on this thread (the storage tries, then the account trie), so a changed key
 * costs a few native seeks instead of a new iterator per leaf range. With `storagePool` (workers
 * that read the same store), the storage tries are updated there and here in parallel
 * (sharedStorageRoots.ts), then the account trie here.
 */
export function updateStateRoot(
  kv: KvReader,
  changes: StateChangeset,
  opts: {
    readonly storagePool?: TaskPool | null;
    /**
     * The state root before `changes` (the parent's): the stored tries and the unchanged rows must
     * be exactly that state's. With it, the walks start from the bottom cache at the roots too (the
     * account trie's, and each storage trie's by the old root in its account row; TrieWalkerOptions
     * `rootHash`).
     */
    readonly parentRoot?: Uint8Array | null;
  } = {},
): StateRootResult {
  const batch = new WriteBatch();
  const stats = newStats();
  const storage = mergeStorageChanges(changes.storage ?? []);
  const changed = sortUniqueKeys([...changes.accounts, ...storage.map((s) => s.hashedAddress)]);
  const storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[] = [];
  const newRoots = new Map<string, Uint8Array>();
  /** Accounts already found deleted (their storage nodes are gone from `batch`). */
  const dropped = new Set<string>();
  let byWorkers = 0;
  // Opened at first use, shared by every storage trie (visited in address order), closed at the end.
  const open: { leaves: KvCursor | null; nodes: KvCursor | null } = { leaves: null, nodes: null };
  // Lazy: a walk that reads its records by exact key (cached) never needs the native iterator.
  const nodeCursor = (): KvCursor => (open.nodes ??= new LazyCursor(() => kv.cursor("storageTrie")));
  const dropStorage = (hashedAddress: Uint8Array): void => {
    // A deleted account takes its stored storage nodes with it.
    const view = storageTrieView(hashedAddress);
    stats.nodeDels += deleteStale(batch, view.nodeTable, readAllNodes(kv, view, undefined, nodeCursor()), new Set());
  };
  try {
    // Only accounts with storage changes need their row before the account walk; the walk itself
    // reads every other changed row.
    if (storage.length > 0) {
      const rows = kv.getMany(
        "hashedAccounts",
        storage.map((s) => s.hashedAddress),
      );
      const here = (_kv: KvReader, job: StorageJob, out: WriteBatch, st: TrieWalkStats, wiped = false): Uint8Array => {
        open.leaves ??= new LazyCursor(() => kv.cursor("hashedStorage"));
        const walk = { leafCursor: open.leaves, nodeCursor: nodeCursor(), rootHash: job.root ?? null };
        return updateTrie(kv, storageTrieView(job.hashedAddress), job.slots, out, storageLeafValue, wiped, st, walk);
      };
      const known = opts.parentRoot !== undefined && opts.parentRoot !== null;
      // Wiped tries (rebuilt from their rows) stay here; the others may go to the pool.
      const jobs: StorageJob[] = [];
      for (let i = 0; i < storage.length; i++) {
        const sc = storage[i]!;
        const k = bytesKey(sc.hashedAddress);
        if (rows[i] === undefined) {
          dropStorage(sc.hashedAddress);
          dropped.add(k);
        } else if (sc.values !== undefined) {
          const root = freshStorageRoot(kv, sc, sc.values, batch, stats, nodeCursor());
          newRoots.set(k, root);
          storageRoots.push({ hashedAddress: sc.hashedAddress, root });
        } else if (sc.wiped === true) {
          const root = here(kv, { hashedAddress: sc.hashedAddress, slots: [] }, batch, stats, true);
          newRoots.set(k, root);
          storageRoots.push({ hashedAddress: sc.hashedAddress, root });
        } else {
          // The row still holds the old storage root (the trie batch patches it below).
          jobs.push({
            hashedAddress: sc.hashedAddress,
            slots: sortUniqueKeys(sc.slots),
            root: known ? accountStorageRoot(rows[i]!) : null,
          });
        }
      }
      const ran = runStorageJobs(kv, jobs, batch, stats, here, opts.storagePool ?? null);
      const roots = ran.roots;
      byWorkers = ran.byWorkers;
      for (let i = 0; i < jobs.length; i++) {
        newRoots.set(bytesKey(jobs[i]!.hashedAddress), roots[i]!);
        storageRoots.push({ hashedAddress: jobs[i]!.hashedAddress, root: roots[i]! });
      }
    }

    // The walk hands the leaves over in key order, as `changed` is sorted: `seen[j]` marks the
    // changed keys that still have a row.
    const seen = new Uint8Array(changed.length);
    let j = 0;
    const leafValue = (key: Uint8Array, raw: Uint8Array): Uint8Array => {
      while (j < changed.length && compareBytes(changed[j]!, key) < 0) j++;
      if (j < changed.length && equalBytes(changed[j]!, key)) seen[j] = 1;
      if (newRoots.size === 0) return raw;
      const root = newRoots.get(bytesKey(key));
      if (root === undefined) return raw;
      const patched = withStorageRoot(raw, root);
      if (patched !== raw) batch.put("hashedAccounts", key.slice(), patched);
      return patched;
    };
    const root = updateTrie(kv, ACCOUNT_TRIE_VIEW, changed, batch, leafValue, false, stats, {
      rootHash: opts.parentRoot ?? null,
      created: createdFlags(changed, changes.created),
    });
    for (let i = 0; i < changed.length; i++) {
      if (seen[i] === 0 && !dropped.has(bytesKey(changed[i]!))) dropStorage(changed[i]!);
    }
    return { root, batch, storageRoots, stats, storageByWorkers: byWorkers };
  } finally {
    open.leaves?.close();
    open.nodes?.close();
  }
}

/**
 * The hashed addresses of the contracts whose storage was empty before the block and whose rows
 * came packed (StorageChange.packed): every row and storage-trie record under each is new, so an
 * undo deletes them by prefix (importBlock.ts, remoteStateRoot.ts `rangedUndo`).
 */
export function packedOwners(changes: StateChangeset): Uint8Array[] {
  const owners: Uint8Array[] = [];
  for (const sc of changes.storage ?? []) if (sc.packed !== undefined) owners.push(sc.hashedAddress);
  return owners;
}

/** TrieWalkerOptions.created for `changed` from a changeset's `created` list (null: not given). */
function createdFlags(changed: readonly Uint8Array[], created: readonly Uint8Array[] | undefined): Uint8Array | null {
  if (created === undefined) return null;
  const flags = new Uint8Array(changed.length);
  if (created.length === 0) return flags;
  const fresh = new Set<string>();
  for (const h of created) fresh.add(bytesKey(h));
  for (let i = 0; i < changed.length; i++) if (fresh.has(bytesKey(changed[i]!))) flags[i] = 1;
  return flags;
}

/**
 * Full state root from the flat tables: every storage root recomputed (and patched into its account
 * row when it differs), every stored branch node rewritten, stale ones deleted.
 */
export function computeStateRoot(kv: KvReader): StateRootResult {
  const batch = new WriteBatch();
  const stats = newStats();
  const storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[] = [];
  const oldAccountNodes = readAllNodes(kv, ACCOUNT_TRIE_VIEW);
  const oldStorageNodes = new Map<string, Uint8Array>();
  for (const [k, v] of kv.iterate("storageTrie")) oldStorageNodes.set(bytesKey(k), v);
  const keptStorage = new Set<string>();

  const accounts = new HashBuilder({ updates: true, leafHashes: ACCOUNT_TRIE_VIEW.leafHashes });
  const slots = new HashBuilder({ updates: true });
  // Cursors rather than `iterate`: no [key, value] tuple per row, and scan-sized native reads.
  const accountRows = kv.cursor("hashedAccounts", SCAN);
  const storageRows = kv.cursor("hashedStorage", SCAN);
  try {
    let sOk = storageRows.seek(EMPTY_BYTES);
    for (let ok = accountRows.seek(EMPTY_BYTES); ok; ok = accountRows.next()) {
      const addr = accountRows.key;
      const row = accountRows.value;
      stats.leavesRead++;
      // Skip storage rows of addresses without an account (there should be none).
      while (sOk && comparePrefix(storageRows.key, addr) < 0) sOk = storageRows.next();
      let storageRoot = EMPTY_TRIE_ROOT;
      if (sOk && comparePrefix(storageRows.key, addr) === 0) {
        slots.reset();
        while (sOk && comparePrefix(storageRows.key, addr) === 0) {
          const k = storageRows.key;
          stats.leavesRead++;
          const leaf = storageLeafValue(k, storageRows.value);
          if (leaf !== null) slots.addLeafBytes(k, leaf, 32, 64);
          sOk = storageRows.next();
        }
        storageRoot = slots.root();
        stats.nodePuts += putTrieUpdates(
          batch,
          storageTrieView(addr),
          slots.takeUpdates(),
          oldStorageNodes,
          keptStorage,
        );
        storageRoots.push({ hashedAddress: addr, root: storageRoot });
      }
      const patched = withStorageRoot(row, storageRoot);
      if (patched !== row) batch.put("hashedAccounts", addr, patched);
      accounts.addLeafBytes(addr, patched);
    }
  } finally {
    accountRows.close();
    storageRows.close();
  }
  const root = accounts.root();
  const keptAccount = new Set<string>();
  stats.nodePuts += putTrieUpdates(batch, ACCOUNT_TRIE_VIEW, accounts.takeUpdates(), oldAccountNodes, keptAccount);
  stats.nodeDels += deleteStale(batch, "accountTrie", oldAccountNodes, keptAccount);
  stats.nodeDels += deleteStale(batch, "storageTrie", oldStorageNodes, keptStorage);
  return { root, batch, storageRoots, stats };
}
