/**
 * The state root of flat tables whose trie tables are still empty (a state written from a dump,
 * `opal-exec init-state`): one ordered pass over hashedAccounts and hashedStorage, as
 * computeStateRoot (stateRoot.ts) makes it, but the branch nodes and the patched account rows are
 * written out in bounded batches as they are built, so memory stays flat however large the state
 * (reth's `root_with_progress`, flushing intermediate trie updates).
 */
import { EMPTY_BYTES } from "../primitives/bytes.js";
import { type KvCursor, type KvStore, WriteBatch } from "../storage/kv.js";
import { withStorageRoot } from "./account.js";
import { TrieError } from "./errors.js";
import { type BranchUpdate, HashBuilder } from "./hashBuilder.js";
import { EMPTY_TRIE_ROOT } from "./node.js";
import { storageLeafValue } from "./stateRoot.js";
import { ACCOUNT_TRIE_VIEW, nodeKey, storageTrieView, type TrieView } from "./storedTrie.js";

export interface FreshStateRootOptions {
  /**
   * Ops per written batch. 20,000 ops (~3 MB of keys and records) keeps each RocksDB write well
   * under its memtable while amortising the per-write cost, measured with the 1M-account dump.
   */
  readonly flushOps?: number;
  /** Called after each flush with the leaves read so far. */
  readonly onProgress?: (accounts: number, slots: number) => void;
  /**
   * Compute only: nothing is written, and the trie tables may hold anything. A full recomputation
   * from the flat state, in constant memory, to check a root the node reached incrementally.
   */
  readonly computeOnly?: boolean;
}

export interface FreshStateRootResult {
  readonly root: Uint8Array;
  readonly accounts: number;
  readonly slots: number;
  /** Branch nodes written (account and storage tries). */
  readonly nodes: number;
}

const DEFAULT_FLUSH_OPS = 20_000;
const SCAN = Object.freeze({ scan: true });

/** compareBytes(key[0..32), addr) for a storage row key (address ‖ slot). */
function comparePrefix(key: Uint8Array, addr: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = key[i] - addr[i];
    if (d !== 0) return d;
  }
  return 0;
}

function isEmpty(kv: KvStore, table: "accountTrie" | "storageTrie"): boolean {
  const c = kv.cursor(table);
  try {
    return !c.seek(EMPTY_BYTES);
  } finally {
    c.close();
  }
}

/**
 * Builds the tries over `kv`'s flat state, writing them (and each account row's storage root) to
 * `kv` in batches, and returns the root. The trie tables must be empty: nothing stale is deleted.
 */
export function buildFreshStateRoot(kv: KvStore, opts: FreshStateRootOptions = {}): FreshStateRootResult {
  const write = opts.computeOnly !== true;
  if (write && (!isEmpty(kv, "accountTrie") || !isEmpty(kv, "storageTrie")))
    throw new TrieError("BAD_INPUT", "buildFreshStateRoot: the trie tables are not empty");
  const flushOps = opts.flushOps ?? DEFAULT_FLUSH_OPS;
  let batch = new WriteBatch();
  let accounts = 0;
  let slots = 0;
  let nodes = 0;
  const put = (view: TrieView, updates: readonly BranchUpdate[]): void => {
    if (write) for (const u of updates) batch.put(view.nodeTable, nodeKey(view, u.path), u.record);
    nodes += updates.length;
  };
  const flush = (): void => {
    if (write) kv.write(batch);
    batch = new WriteBatch();
    opts.onProgress?.(accounts, slots);
  };
  const accountBuilder = new HashBuilder({ updates: true, leafHashes: ACCOUNT_TRIE_VIEW.leafHashes });
  const slotBuilder = new HashBuilder({ updates: true });
  // Writes land in tables the cursors do not read, apart from an account row rewritten with its
  // storage root after the cursor passed it; whether a cursor sees that or not, it reads on.
  const accountRows: KvCursor = kv.cursor("hashedAccounts", SCAN);
  const storageRows: KvCursor = kv.cursor("hashedStorage", SCAN);
  try {
    let sOk = storageRows.seek(EMPTY_BYTES);
    for (let ok = accountRows.seek(EMPTY_BYTES); ok; ok = accountRows.next()) {
      const addr = accountRows.key;
      const row = accountRows.value;
      accounts++;
      while (sOk && comparePrefix(storageRows.key, addr) < 0) sOk = storageRows.next();
      let storageRoot = EMPTY_TRIE_ROOT;
      if (sOk && comparePrefix(storageRows.key, addr) === 0) {
        const view = storageTrieView(addr);
        slotBuilder.reset();
        while (sOk && comparePrefix(storageRows.key, addr) === 0) {
          const k = storageRows.key;
          const leaf = storageLeafValue(k, storageRows.value);
          if (leaf !== null) slotBuilder.addLeafBytes(k, leaf, 32, 64);
          slots++;
          sOk = storageRows.next();
          // A contract with millions of slots still flushes as it goes.
          if ((slots & 0xfff) === 0) {
            put(view, slotBuilder.takeUpdates());
            if (batch.size >= flushOps) flush();
          }
        }
        storageRoot = slotBuilder.root();
        put(view, slotBuilder.takeUpdates());
      }
      const patched = withStorageRoot(row, storageRoot);
      if (patched !== row && write) batch.put("hashedAccounts", addr, patched);
      accountBuilder.addLeafBytes(addr, patched);
      if ((accounts & 0xfff) === 0) put(ACCOUNT_TRIE_VIEW, accountBuilder.takeUpdates());
      if (batch.size >= flushOps) flush();
    }
  } finally {
    accountRows.close();
    storageRows.close();
  }
  const root = accountBuilder.root();
  put(ACCOUNT_TRIE_VIEW, accountBuilder.takeUpdates());
  flush();
  return { root, accounts, slots, nodes };
}
