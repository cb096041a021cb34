/**
 * Karst activating on the OP dev genesis, as `opal-devnet --forks jovian --activate karst=24` runs it:
 * the genesis holds the real predeploy proxies (opGenesisAlloc.ts) with Opal's L1Block and
 * GasPriceOracle behind two of them, so the 31 deposits of the Karst NUT bundle upgrade real
 * proxies. Checked: every receipt of the activation block has status 1; the L1Block, GasPriceOracle
 * and L2ToL1MessagePasser proxies point at new implementations holding code; the next block's
 * L1-info deposit, run by the bundle's L1Block, succeeds.
 */
import { strict as assert } from "node:assert";
import { KARST_NUT_BUNDLE_TXS } from "../../../../src/rollup/derive/karstNutBundle.js";
import { Rollup } from "../../../utils/actions/rollup.js";

/** ERC-1967 implementation slot, bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1). */
const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
const PROXIES = {
  GasPriceOracle: "0x420000000000000000000000000000000000000f",
  L1Block: "0x4200000000000000000000000000000000000015",
  L2ToL1MessagePasser: "0x4200000000000000000000000000000000000016",
} as const;

describe("node/opDevGenesis: Karst activating on the OP dev genesis", function () {
  this.timeout(300_000);

  it("the NUT bundle upgrades the genesis proxies; every deposit and the next L1-info deposit succeed", async () => {
    // 12-second blocks, Jovian at genesis, Karst 24 s later: block 2 activates it.
    const r = new Rollup({ blockTime: 12, forks: { karst: 24 } });
    for (let n = 1; n <= 3; n++) {
      await r.miner.mine([]);
      await r.sequencer.buildBlock();
    }
    const rpc = r.sequencer.exec.rpc;
    const receipts = await rpc.call<{ status: string }[]>("eth_getBlockReceipts", ["0x2"]);
    assert.equal(receipts.length, 1 + KARST_NUT_BUNDLE_TXS.length, "L1-info deposit and the bundle");
    for (const [i, x] of receipts.entries()) {
      const what = i === 0 ? "L1-info deposit" : `bundle tx ${i - 1}: ${KARST_NUT_BUNDLE_TXS[i - 1]!.intent}`;
      assert.equal(x.status, "0x1", what);
    }
    for (const [name, proxy] of Object.entries(PROXIES)) {
      const impl = async (n: number): Promise<string> =>
        `0x${(await rpc.call<string>("eth_getStorageAt", [proxy, IMPLEMENTATION_SLOT, `0x${n}`])).slice(-40)}`;
      const before = await impl(1);
      const after = await impl(2);
      assert.equal(
        before,
        `0xc0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3${proxy.slice(-4)}`,
        `${name}: the genesis implementation`,
      );
      assert.notEqual(after, before, `${name}: upgraded by the bundle`);
      assert.ok(
        (await rpc.call<string>("eth_getCode", [after, "0x2"])).length > 2,
        `${name}: new implementation has code`,
      );
    }
    const next = await rpc.call<{ status: string }[]>("eth_getBlockReceipts", ["0x3"]);
    assert.equal(next[0]?.status, "0x1", "block 3: the L1-info deposit on the bundle's L1Block");
  });
});
