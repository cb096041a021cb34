/**
 * buildFreshStateRoot in compute-only mode: over a live chain's store (trie tables full), the root
 * recomputed from the flat state alone equals the root the chain reached incrementally, and the
 * store is left as it was; a flat row changed behind the chain's back shows as a different root.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { TrieError } from "../../../src/trie/errors.js";
import { buildFreshStateRoot } from "../../../src/trie/freshStateRoot.js";
import { sourceChain } from "../devp2p/sync/syncFixtures.js";

describe("trie/freshStateRoot: compute only", () => {
  it("recomputes an incrementally reached root from the flat state without writing", () => {
    const chain = sourceChain(20);
    const rows = (t: "accountTrie" | "storageTrie" | "hashedAccounts") => [...chain.kv.iterate(t)].length;
    const before = [rows("accountTrie"), rows("storageTrie"), rows("hashedAccounts")];
    assert.ok(before[0]! > 0, "the trie tables hold the chain's nodes");
    const r = buildFreshStateRoot(chain.kv, { computeOnly: true });
    assert.equal(bytesToHex(r.root), bytesToHex(chain.head.stateRoot));
    assert.deepEqual([rows("accountTrie"), rows("storageTrie"), rows("hashedAccounts")], before);
    // Writing mode still refuses trie tables that hold nodes.
    assert.throws(() => buildFreshStateRoot(chain.kv), TrieError);
    // One flat account row changed: the recomputed root differs.
    const [k, v] = [...chain.kv.iterate("hashedAccounts", { limit: 1 })][0]!;
    const changed = v.slice();
    changed[changed.length - 1]! ^= 1;
    chain.kv.write(new WriteBatch().put("hashedAccounts", k, changed));
    assert.notEqual(bytesToHex(buildFreshStateRoot(chain.kv, { computeOnly: true }).root), bytesToHex(r.root));
  });
});
