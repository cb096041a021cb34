/** Two chains agree: head number, hash and state root, and the canonical hashes at a few heights. */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";

export function sameChain(a: Blockchain, b: Blockchain): void {
  assert.equal(b.head.number, a.head.number);
  assert.equal(bytesToHex(b.headBlockHash), bytesToHex(a.headBlockHash));
  assert.equal(bytesToHex(b.head.stateRoot), bytesToHex(a.head.stateRoot));
  for (const n of [1, 77, 150, a.head.number]) {
    assert.equal(
      bytesToHex(b.store.canonicalHash(n) as Uint8Array),
      bytesToHex(a.store.canonicalHash(n) as Uint8Array),
    );
  }
}
