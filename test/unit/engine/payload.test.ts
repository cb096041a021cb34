/**
 * engine/payload: payloadToBlock refuses malformed payload JSON with a PayloadError naming the field
 * (regressions found by the structure-aware fuzzer, test/reliability/fuzzTargets.ts).
 */
import { strict as assert } from "node:assert";
import { PayloadError, payloadToBlock } from "../../../src/engine/payload.js";

const PAYLOAD = {
  parentHash: `0x${"11".repeat(32)}`,
  feeRecipient: `0x${"22".repeat(20)}`,
  stateRoot: `0x${"33".repeat(32)}`,
  receiptsRoot: `0x${"44".repeat(32)}`,
  logsBloom: `0x${"00".repeat(256)}`,
  prevRandao: `0x${"55".repeat(32)}`,
  blockNumber: "0x1",
  gasLimit: "0x1c9c380",
  gasUsed: "0x0",
  timestamp: "0x64",
  extraData: "0x",
  baseFeePerGas: "0x7",
  blockHash: `0x${"66".repeat(32)}`,
  transactions: [],
  withdrawals: [{ index: "0x0", validatorIndex: "0x1", address: `0x${"77".repeat(20)}`, amount: "0x2" }],
  blobGasUsed: "0x0",
  excessBlobGas: "0x0",
};

describe("engine/payload", () => {
  it("decodes a V3 payload with a withdrawal", () => {
    const d = payloadToBlock(PAYLOAD as never, 3, new Uint8Array(32), null, false);
    assert.equal(d.header.number, 1);
    assert.equal(d.body.withdrawals?.length, 1);
    assert.equal(d.body.withdrawals?.[0]?.amount, 2n);
  });

  for (const bad of [null, 7, "0x1", [], [{}]]) {
    it(`a withdrawal that is ${JSON.stringify(bad)} is a PayloadError, not a TypeError`, () => {
      const p = { ...PAYLOAD, withdrawals: [bad] };
      assert.throws(
        () => payloadToBlock(p as never, 3, new Uint8Array(32), null, false),
        (e: unknown) => e instanceof PayloadError && /withdrawals\[0\]/.test(e.message),
      );
    });
  }
});
