/**
 * Consolidation's withdrawals check (op-node attributes.go `checkWithdrawals`): from Canyon the block
 * carries an empty withdrawals list; from Isthmus its withdrawalsRoot is the L2ToL1MessagePasser's
 * storage root, so a chain whose message passer holds storage (every real OP genesis) still matches.
 */
import { strict as assert } from "node:assert";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import type { PayloadAttributes } from "../../../../src/rollup/derive/attributes.js";
import { attributesMismatch } from "../../../../src/rollup/engine/consolidate.js";
import type { L2Block } from "../../../../src/rollup/engine/engineClient.js";
import { EMPTY_TRIE_ROOT } from "../../../../src/trie/orderedRoot.js";

const base = networkRollupConfig("op-mainnet");
assert.ok(base !== null);
const T = 2_000_000_000;
/** Canyon through Ecotone active at T, Holocene and later not (no extraData checks). */
const CANYON: RollupConfig = {
  ...base,
  canyonTime: 0,
  deltaTime: 0,
  ecotoneTime: 0,
  fjordTime: 0,
  graniteTime: 0,
  holoceneTime: null,
  isthmusTime: null,
  jovianTime: null,
  karstTime: null,
  interopTime: null,
};
const ISTHMUS: RollupConfig = { ...CANYON, holoceneTime: T + 10, isthmusTime: T };
const PARENT = new Uint8Array(32).fill(1);
const MESSAGE_PASSER_ROOT = new Uint8Array(32).fill(0x5e);

function attrs(): PayloadAttributes {
  return {
    timestamp: T,
    prevRandao: new Uint8Array(32),
    suggestedFeeRecipient: new Uint8Array(20),
    transactions: [],
    noTxPool: true,
    gasLimit: 30_000_000n,
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32),
    eip1559Params: null,
    minBaseFee: null,
  };
}

function block(withdrawalsRoot: Uint8Array | null, withdrawalCount: number | null): L2Block {
  return {
    ref: {
      hash: new Uint8Array(32).fill(2),
      number: 10,
      parentHash: PARENT,
      timestamp: T,
      l1origin: { hash: new Uint8Array(32), number: 1 },
      sequenceNumber: 0,
    },
    gasLimit: 30_000_000n,
    extraData: new Uint8Array(0),
    prevRandao: new Uint8Array(32),
    feeRecipient: new Uint8Array(20),
    withdrawalsRoot,
    withdrawalCount,
    parentBeaconBlockRoot: new Uint8Array(32),
    txs: [],
    firstTxInput: null,
  };
}

describe("rollup/engine: consolidation's withdrawals check", () => {
  it("Isthmus: a block whose withdrawalsRoot is the message passer's storage root matches", () => {
    assert.equal(attributesMismatch(ISTHMUS, attrs(), PARENT, block(MESSAGE_PASSER_ROOT, 0)), null);
    assert.equal(attributesMismatch(ISTHMUS, attrs(), PARENT, block(EMPTY_TRIE_ROOT, 0)), null);
  });

  it("Isthmus: withdrawals in the block, or no withdrawalsRoot, do not match", () => {
    assert.match(attributesMismatch(ISTHMUS, attrs(), PARENT, block(MESSAGE_PASSER_ROOT, 1)) ?? "", /withdrawals/);
    assert.match(attributesMismatch(ISTHMUS, attrs(), PARENT, block(MESSAGE_PASSER_ROOT, null)) ?? "", /withdrawals/);
    assert.match(attributesMismatch(ISTHMUS, attrs(), PARENT, block(null, 0)) ?? "", /withdrawalsRoot/);
  });

  it("Canyon before Isthmus: the withdrawals list must be empty (the root is the empty list's)", () => {
    assert.equal(attributesMismatch(CANYON, attrs(), PARENT, block(EMPTY_TRIE_ROOT, 0)), null);
    assert.equal(attributesMismatch(CANYON, attrs(), PARENT, block(EMPTY_TRIE_ROOT, null)), null);
    assert.equal(attributesMismatch(CANYON, attrs(), PARENT, block(MESSAGE_PASSER_ROOT, 1)), "block has withdrawals");
    assert.equal(
      attributesMismatch(CANYON, attrs(), PARENT, block(MESSAGE_PASSER_ROOT, null)),
      "block has withdrawals",
    );
  });
});
