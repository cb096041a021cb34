/**
 * optimism_outputAtBlock's withdrawal storage root and `--fetch-withdrawal-root-from-state`: from
 * Isthmus the header's withdrawalsRoot is the message passer's storage root and is read from there;
 * the flag (or a pre-Isthmus block) reads it from state with eth_getProof. Both give the same output.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { L2Source } from "../../../../src/rollup/api/l2Source.js";
import { Rollup } from "../../../utils/actions/rollup.js";

describe("rollup/l2Source: output roots and --fetch-withdrawal-root-from-state", function () {
  this.timeout(30_000);

  for (const isthmusAtGenesis of [true, false]) {
    it(`${isthmusAtGenesis ? "Isthmus" : "pre-Isthmus"}: header or state give the same output root`, async () => {
      const r = new Rollup(isthmusAtGenesis ? {} : { forks: { isthmus: null, jovian: null } });
      await r.sequencer.buildBlock();
      const exec = r.sequencer.exec;
      const g = { l1: r.cfg.genesis.l1, l2: r.cfg.genesis.l2 };
      const before = exec.rpc.calls.length;
      const fromHeader = await new L2Source(exec.rpc, g, { cfg: r.cfg, fromState: false }).outputAtBlock(1);
      const headerCalls = exec.rpc.calls.slice(before);
      const mid = exec.rpc.calls.length;
      const fromState = await new L2Source(exec.rpc, g, { cfg: r.cfg, fromState: true }).outputAtBlock(1);
      const stateCalls = exec.rpc.calls.slice(mid);
      assert.equal(bytesToHex(fromHeader.outputRoot), bytesToHex(fromState.outputRoot));
      assert.equal(bytesToHex(fromHeader.withdrawalStorageRoot), bytesToHex(fromState.withdrawalStorageRoot));
      assert.ok(stateCalls.includes("eth_getProof"));
      assert.equal(headerCalls.includes("eth_getProof"), !isthmusAtGenesis);
    });
  }
});
