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
import { bytesKey, compareBytes, equalBytes } from "../primitives/bytes.js";
import { stringLength, writeString } from "../rlp/encode.js";
import { type KvReader, WriteBatch } from "../storage/kv.js";
import { withStorageRoot } from "./account.js";
import { HashBuilder } from "./hashBuilder.js";
import { EMPTY_TRIE_ROOT } from "./node.js";
import {
  ACCOUNT_TRIE_VIEW,
  deleteStale,
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
}

export interface StateChangeset {
  /** keccak(address) of every hashedAccounts row written or deleted. */
  readonly accounts: readonly Uint8Array[];
  readonly storage?: readonly StorageChange[];
}

export interface StateRootStats {
  nodesRead: number;
  leavesRead: number;
  refsAdded: number;
  nodePuts: number;
  nodeDels: number;
}

export interface StateRootResult {
  readonly root: Uint8Array;
  /** Branch-node writes and patched hashedAccounts rows. */
  readonly batch: WriteBatch;
  /** New storage roots of the accounts whose storage was recomputed. */
  readonly storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[];
  readonly stats: StateRootStats;
}

/** Trie leaf value of a stored storage word: rlp(word); empty (zero) rows are absent. */
export function storageLeafValue(_key: Uint8Array, raw: Uint8Array): Uint8Array | null {
  if (raw.length === 0) return null;
  const out = new Uint8Array(stringLength(raw));
  writeString(out, 0, raw);
  return out;
}

function newStats(): StateRootStats {
  return { nodesRead: 0, leavesRead: 0, refsAdded: 0, nodePuts: 0, nodeDels: 0 };
}

function addWalk(stats: StateRootStats, w: TrieWalker): void {
  stats.nodesRead += w.nodesRead;
  stats.leavesRead += w.leavesRead;
  stats.refsAdded += w.refsAdded;
}

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

function updateTrie(
  kv: KvReader,
  view: TrieView,
  changed: readonly Uint8Array[],
  batch: WriteBatch,
  leafValue: (key: Uint8Array, raw: Uint8Array) => Uint8Array | null,
  rebuild: boolean,
  stats: StateRootStats,
): Uint8Array {
  const hb = new HashBuilder({ updates: true });
  const walker = new TrieWalker(kv, view, changed, hb, leafValue, { ignoreStored: rebuild });
  walker.run();
  const root = hb.root();
  addWalk(stats, walker);
  const old = rebuild ? readAllNodes(kv, view) : walker.visited;
  const kept = new Set<string>();
  stats.nodePuts += putTrieUpdates(batch, view, hb.takeUpdates(), old, kept);
  stats.nodeDels += deleteStale(batch, view.nodeTable, old, kept);
  return root;
}

/** One entry per account (slots united, wiped if any entry says so), sorted by hashed address. */
function mergeStorageChanges(changes: readonly StorageChange[]): StorageChange[] {
  const byAddr = new Map<string, { hashedAddress: Uint8Array; slots: Uint8Array[]; wiped: boolean }>();
  for (const c of changes) {
    const k = bytesKey(c.hashedAddress);
    let m = byAddr.get(k);
    if (m === undefined) byAddr.set(k, (m = { hashedAddress: c.hashedAddress, slots: [], wiped: false }));
    for (const s of c.slots) m.slots.push(s);
    if (c.wiped === true) m.wiped = true;
  }
  return [...byAddr.values()].sort((a, b) => compareBytes(a.hashedAddress, b.hashedAddress));
}

/** Incremental state root after `changes` were applied to the flat tables. */
export function updateStateRoot(kv: KvReader, changes: StateChangeset): StateRootResult {
  const batch = new WriteBatch();
  const stats = newStats();
  const storage = mergeStorageChanges(changes.storage ?? []);
  const changed = sortUniqueKeys([...changes.accounts, ...storage.map((s) => s.hashedAddress)]);
  const rows = kv.getMany("hashedAccounts", changed);
  const exists = new Set<string>();
  for (let i = 0; i < changed.length; i++) {
    if (rows[i] !== undefined) {
      exists.add(bytesKey(changed[i]));
      continue;
    }
    // A deleted account takes its stored storage nodes with it.
    const view = storageTrieView(changed[i]);
    stats.nodeDels += deleteStale(batch, view.nodeTable, readAllNodes(kv, view), new Set());
  }

  const storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[] = [];
  const newRoots = new Map<string, Uint8Array>();
  for (const sc of storage) {
    const k = bytesKey(sc.hashedAddress);
    if (!exists.has(k)) continue;
    const root = updateStorageRoot(kv, sc.hashedAddress, sc.slots, batch, { wiped: sc.wiped === true, stats });
    newRoots.set(k, root);
    storageRoots.push({ hashedAddress: sc.hashedAddress, root });
  }

  const leafValue = (key: Uint8Array, raw: Uint8Array): Uint8Array => {
    if (newRoots.size === 0) return raw;
    const root = newRoots.get(bytesKey(key));
    if (root === undefined) return raw;
    const patched = withStorageRoot(raw, root);
    if (patched !== raw) batch.put("hashedAccounts", key.slice(), patched);
    return patched;
  };
  const root = updateTrie(kv, ACCOUNT_TRIE_VIEW, changed, batch, leafValue, false, stats);
  return { root, batch, storageRoots, stats };
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

  const accounts = new HashBuilder({ updates: true });
  const slots = new HashBuilder({ updates: true });
  const sit = kv.iterate("hashedStorage")[Symbol.iterator]();
  let s = sit.next();
  for (const [addr, row] of kv.iterate("hashedAccounts")) {
    stats.leavesRead++;
    // Skip storage rows of addresses without an account (there should be none).
    while (!s.done && compareBytes(s.value[0].subarray(0, 32), addr) < 0) s = sit.next();
    let storageRoot = EMPTY_TRIE_ROOT;
    if (!s.done && equalBytes(s.value[0].subarray(0, 32), addr)) {
      slots.reset();
      while (!s.done && equalBytes(s.value[0].subarray(0, 32), addr)) {
        const [k, v] = s.value;
        stats.leavesRead++;
        const leaf = storageLeafValue(k, v);
        if (leaf !== null) slots.addLeafBytes(k, leaf, 32, 64);
        s = sit.next();
      }
      storageRoot = slots.root();
      stats.nodePuts += putTrieUpdates(batch, storageTrieView(addr), slots.takeUpdates(), oldStorageNodes, keptStorage);
      storageRoots.push({ hashedAddress: addr, root: storageRoot });
    }
    const patched = withStorageRoot(row, storageRoot);
    if (patched !== row) batch.put("hashedAccounts", addr, patched);
    accounts.addLeafBytes(addr, patched);
  }
  const root = accounts.root();
  const keptAccount = new Set<string>();
  stats.nodePuts += putTrieUpdates(batch, ACCOUNT_TRIE_VIEW, accounts.takeUpdates(), oldAccountNodes, keptAccount);
  stats.nodeDels += deleteStale(batch, "accountTrie", oldAccountNodes, keptAccount);
  stats.nodeDels += deleteStale(batch, "storageTrie", oldStorageNodes, keptStorage);
  return { root, batch, storageRoots, stats };
}
