/**
 * rollup/derive/upgradeTxs: the generated upgrade deposits equal kona's encoded txs byte for byte
 * (Ecotone, Fjord, Isthmus, Interop); Jovian, which has no encoded fixture, is checked field by field against
 * specs/protocol/jovian/derivation.md; the bundled bytecode matches the fixtures; `upgradeTxsAt` picks
 * activation blocks only, in fork order.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import {
  renderUpgradeBytecodeModule,
  upgradeBytecodeUpToDate,
  upgradeTxsFixturesDir,
} from "../../../../scripts/bundleUpgradeBytecode.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { createAddress } from "../../../../src/evm/evm.js";
import { utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import {
  JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_HEX,
  JOVIAN_L1_BLOCK_DEPLOYMENT_HEX,
} from "../../../../src/rollup/derive/upgradeBytecode.js";
import {
  ecotoneUpgradeTxs,
  fjordUpgradeTxs,
  interopUpgradeTxs,
  isthmusUpgradeTxs,
  jovianUpgradeTxs,
  karstUpgradeGas,
  karstUpgradeTxs,
  upgradeGasAt,
  upgradeGasToStrip,
  upgradeSourceHash,
  upgradeTxsAt,
} from "../../../../src/rollup/derive/upgradeTxs.js";
import { decodeTx } from "../../../../src/tx/envelope.js";
import { type DepositTx, TxType } from "../../../../src/tx/tx.js";
import { fixturePath } from "../../../utils/fixtures.js";

const KONA = fixturePath("op-stack", "network-upgrade-txs", "kona");
const SPECS = fixturePath("op-stack", "network-upgrade-txs", "specs-bytecode");

function konaTx(fork: string, n: number): Uint8Array {
  return hexToBytes(readFileSync(`${KONA}/${fork}_tx_${n}.hex`, "utf8").trim());
}

function deposit(bytes: Uint8Array): DepositTx {
  const tx = decodeTx(bytes);
  assert.equal(tx.type, TxType.Deposit);
  return tx as DepositTx;
}

/** CREATE(from, 0) as 0x-hex, through the EVM's own implementation. */
function createdAt(from: Uint8Array): string {
  return `0x${createAddress(from, 0n).toString(16).padStart(40, "0")}`;
}

const lower = (s: string): string => s.toLowerCase();

describe("rollup/derive/upgradeTxs", () => {
  for (const [fork, build, count] of [
    ["ecotone", ecotoneUpgradeTxs, 6],
    ["fjord", fjordUpgradeTxs, 3],
    ["isthmus", isthmusUpgradeTxs, 8],
    ["interop", interopUpgradeTxs, 4],
  ] as const) {
    it(`${fork}: ${count} txs, each equal to kona's ${fork}_tx_<n>.hex`, () => {
      const txs = build();
      assert.equal(txs.length, count);
      for (let i = 0; i < count; i++) {
        assert.equal(bytesToHex(txs[i]), bytesToHex(konaTx(fork, i)), `${fork} tx ${i}`);
      }
    });
  }

  it("upgradeSourceHash is domain 2 over keccak(intent), as the specs print it", () => {
    // specs/protocol/ecotone/derivation.md, "L1Block Deployment" and the EIP-4788 deployment.
    assert.equal(
      bytesToHex(upgradeSourceHash("Ecotone: L1 Block Deployment")),
      "0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8",
    );
    assert.equal(
      bytesToHex(upgradeSourceHash("Ecotone: beacon block roots contract deployment")),
      "0x69b763c48478b9dc2f65ada09b3d92133ec592ea715ec65ad6e7f3dc519dc00c",
    );
    const domain = new Uint8Array(32);
    domain[31] = 2;
    const intent = "anything";
    const expected = keccak256(new Uint8Array([...domain, ...keccak256(utf8ToBytes(intent))]));
    assert.deepEqual(upgradeSourceHash(intent), expected);
  });

  it("interop: the deployments carry kona's and the spec's bytecode, CrossL2Inbox first, each followed by its proxy update", () => {
    const txs = interopUpgradeTxs().map(deposit);
    const konaCode = (f: string): string => `0x${lower(readFileSync(`${KONA}/${f}`, "utf8").trim())}`;
    const specCode = (f: string): string => lower(readFileSync(`${SPECS}/${f}`, "utf8").trim());
    assert.equal(bytesToHex(txs[0].data), konaCode("crossl2inbox_interop.hex"));
    assert.equal(bytesToHex(txs[0].data), specCode("interop-cross-l2-inbox-deployment.txt"));
    assert.equal(bytesToHex(txs[2].data), konaCode("l2tol2_xdm_interop.hex"));
    assert.equal(bytesToHex(txs[2].data), specCode("interop-l2-to-l2-cross-domain-messenger-deployment.txt"));
    for (const [deploy, proxy] of [
      [txs[0], txs[1]],
      [txs[2], txs[3]],
    ] as const) {
      assert.equal(deploy.to, null);
      assert.equal(bytesToHex(proxy.from), "0x0000000000000000000000000000000000000000");
      assert.equal(bytesToHex(proxy.data), `0x3659cfe6000000000000000000000000${createdAt(deploy.from).slice(2)}`);
      for (const tx of [deploy, proxy]) {
        assert.equal(tx.mint, 0n);
        assert.equal(tx.value, 0n);
        assert.equal(tx.isSystemTx, false);
      }
    }
  });

  describe("jovian (specs/protocol/jovian/derivation.md)", () => {
    const txs = jovianUpgradeTxs().map(deposit);

    it("has 5 deposits: L1Block deploy, L1Block proxy, GPO deploy, GPO proxy, setJovian", () => {
      assert.equal(txs.length, 5);
      for (const tx of txs) {
        assert.equal(tx.mint, 0n);
        assert.equal(tx.value, 0n);
        assert.equal(tx.isSystemTx, false);
      }
    });

    it("carries the source hashes printed in the spec", () => {
      // Values copied from specs/protocol/jovian/derivation.md (ethereum-optimism/specs @ fd72cf7),
      // "Network Upgrade Transactions", each `sourceHash` line and its intent.
      const expected = [
        ["Jovian: L1Block Deployment", "0x98faf23b9795967bc0b1c543144739d50dba3ea40420e77ad6ca9848dbfb62e8"],
        ["Jovian: L1Block Proxy Update", "0x08447273a4fbce97bc8c515f97ac74efc461f6a4001553712f31ebc11288bad2"],
        ["Jovian: GasPriceOracle Deployment", "0xd939cca6eca7bd0ee0c7e89f7e5b5cf7bf6f7afe7b6966bb45dfb95344b31545"],
        ["Jovian: GasPriceOracle Proxy Update", "0x46b597e2d8346ed7749b46734074361e0b41a0ab9af7afda5bb4e367e072bcb8"],
        ["Jovian: Gas Price Oracle Set Jovian", "0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c"],
      ];
      for (let i = 0; i < expected.length; i++) {
        assert.equal(bytesToHex(txs[i].sourceHash), expected[i][1], expected[i][0]);
        assert.equal(bytesToHex(upgradeSourceHash(expected[i][0])), expected[i][1]);
      }
    });

    it("deploys the spec's bytecode from 0x4210…0006/0007 with the spec's gas", () => {
      const [l1Block, , gpo] = txs;
      assert.equal(bytesToHex(l1Block.from), "0x4210000000000000000000000000000000000006");
      assert.equal(l1Block.to, null);
      assert.equal(l1Block.gasLimit, 447_315n);
      assert.equal(bytesToHex(gpo.from), "0x4210000000000000000000000000000000000007");
      assert.equal(gpo.to, null);
      assert.equal(gpo.gasLimit, 1_750_714n);
      const specL1Block = readFileSync(`${SPECS}/jovian-l1-block-deployment.txt`, "utf8").trim();
      const specGpo = readFileSync(`${SPECS}/jovian-gas-price-oracle-deployment.txt`, "utf8").trim();
      assert.equal(bytesToHex(l1Block.data), lower(specL1Block));
      assert.equal(bytesToHex(gpo.data), lower(specGpo));
      // kona's copies are the same bytes.
      const konaL1Block = readFileSync(`${KONA}/jovian-l1-block-deployment.hex`, "utf8").trim();
      const konaGpo = readFileSync(`${KONA}/jovian-gas-price-oracle-deployment.hex`, "utf8").trim();
      assert.equal(bytesToHex(l1Block.data), `0x${lower(konaL1Block).replace(/^0x/, "")}`);
      assert.equal(bytesToHex(gpo.data), `0x${lower(konaGpo).replace(/^0x/, "")}`);
      assert.equal(JOVIAN_L1_BLOCK_DEPLOYMENT_HEX, lower(specL1Block));
      assert.equal(JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_HEX, lower(specGpo));
    });

    it("points the proxies at CREATE(deployer, 0), the spec's addresses", () => {
      const [l1Block, l1Proxy, gpo, gpoProxy, setJovian] = txs;
      assert.equal(createdAt(l1Block.from), lower("0x3Ba4007f5C922FBb33C454B41ea7a1f11E83df2C"));
      assert.equal(createdAt(gpo.from), lower("0x4f1db3c6AbD250ba86E0928471A8F7DB3AFd88F1"));

      assert.equal(bytesToHex(l1Proxy.from), "0x0000000000000000000000000000000000000000");
      assert.equal(bytesToHex(l1Proxy.to!), "0x4200000000000000000000000000000000000015");
      assert.equal(l1Proxy.gasLimit, 50_000n);
      assert.equal(
        bytesToHex(l1Proxy.data),
        "0x3659cfe60000000000000000000000003ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
      );

      assert.equal(bytesToHex(gpoProxy.from), "0x0000000000000000000000000000000000000000");
      assert.equal(bytesToHex(gpoProxy.to!), "0x420000000000000000000000000000000000000f");
      assert.equal(gpoProxy.gasLimit, 50_000n);
      assert.equal(
        bytesToHex(gpoProxy.data),
        "0x3659cfe60000000000000000000000004f1db3c6abd250ba86e0928471a8f7db3afd88f1",
      );

      assert.equal(bytesToHex(setJovian.from), "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
      assert.equal(bytesToHex(setJovian.to!), "0x420000000000000000000000000000000000000f");
      assert.equal(setJovian.gasLimit, 90_000n);
      assert.equal(bytesToHex(setJovian.data), bytesToHex(keccak256(utf8ToBytes("setJovian()")).subarray(0, 4)));
    });
  });

  it("the proxy updates of every fork target CREATE(deployer, 0) of that fork's deployments", () => {
    for (const build of [ecotoneUpgradeTxs, fjordUpgradeTxs, isthmusUpgradeTxs, jovianUpgradeTxs, interopUpgradeTxs]) {
      const txs = build().map(deposit);
      const deployed = txs.filter((t) => t.to === null).map((t) => createdAt(t.from));
      const targets = txs
        .filter((t) => t.data.length === 36 && bytesToHex(t.data.subarray(0, 4)) === "0x3659cfe6")
        .map((t) => bytesToHex(t.data.subarray(16)));
      for (const t of targets) assert.ok(deployed.includes(t), `${t} is not deployed in the same fork`);
    }
  });

  it("the fork setters are keccak selectors of setEcotone/setFjord/setIsthmus", () => {
    const sel = (s: string): string => bytesToHex(keccak256(utf8ToBytes(s)).subarray(0, 4));
    assert.equal(bytesToHex(deposit(ecotoneUpgradeTxs()[4]).data), sel("setEcotone()"));
    assert.equal(bytesToHex(deposit(fjordUpgradeTxs()[2]).data), sel("setFjord()"));
    assert.equal(bytesToHex(deposit(isthmusUpgradeTxs()[6]).data), sel("setIsthmus()"));
  });

  describe("upgradeTxsAt", () => {
    const base = networkRollupConfig("op-mainnet");
    assert.ok(base !== null);
    const cfg: RollupConfig = {
      ...base,
      blockTime: 2,
      ecotoneTime: 1000,
      fjordTime: 1100,
      graniteTime: 1100,
      holoceneTime: 1200,
      isthmusTime: 1200,
      jovianTime: 1300,
      karstTime: 1350,
      interopTime: 1400,
    };

    it("gives each fork's txs in its activation block only", () => {
      assert.deepEqual(upgradeTxsAt(cfg, 998), []);
      assert.deepEqual(upgradeTxsAt(cfg, 1000), ecotoneUpgradeTxs());
      assert.deepEqual(upgradeTxsAt(cfg, 1002), []);
      assert.deepEqual(upgradeTxsAt(cfg, 1100), fjordUpgradeTxs());
      assert.deepEqual(upgradeTxsAt(cfg, 1200), isthmusUpgradeTxs());
      assert.deepEqual(upgradeTxsAt(cfg, 1300), jovianUpgradeTxs());
      assert.deepEqual(upgradeTxsAt(cfg, 1302), []);
      assert.deepEqual(upgradeTxsAt(cfg, 1348), []);
      assert.deepEqual(upgradeTxsAt(cfg, 1350), karstUpgradeTxs());
      assert.deepEqual(upgradeTxsAt(cfg, 1352), []);
      assert.deepEqual(upgradeTxsAt(cfg, 1398), []);
      assert.deepEqual(upgradeTxsAt(cfg, 1400), interopUpgradeTxs());
      assert.deepEqual(upgradeTxsAt(cfg, 1402), []);
    });

    it("interop activating with Jovian and Karst comes after their txs, in fork order; at genesis none", () => {
      const c: RollupConfig = { ...cfg, karstTime: 1300, interopTime: 1300 };
      assert.deepEqual(upgradeTxsAt(c, 1300), [...jovianUpgradeTxs(), ...karstUpgradeTxs(), ...interopUpgradeTxs()]);
      const g: RollupConfig = {
        ...cfg,
        ecotoneTime: 0,
        fjordTime: 0,
        graniteTime: 0,
        holoceneTime: 0,
        isthmusTime: 0,
        jovianTime: 0,
        karstTime: 0,
        interopTime: 0,
      };
      assert.deepEqual(upgradeTxsAt(g, 2), []);
    });

    it("a fork time between blocks activates at the first block at or after it", () => {
      const c: RollupConfig = { ...cfg, ecotoneTime: 1001 };
      assert.deepEqual(upgradeTxsAt(c, 1000), []);
      assert.deepEqual(upgradeTxsAt(c, 1002), ecotoneUpgradeTxs());
    });

    it("concatenates, in fork order, forks activating in the same block", () => {
      const c: RollupConfig = { ...cfg, fjordTime: 1000, graniteTime: 1000, holoceneTime: 1000, isthmusTime: 1000 };
      assert.deepEqual(upgradeTxsAt(c, 1000), [...ecotoneUpgradeTxs(), ...fjordUpgradeTxs(), ...isthmusUpgradeTxs()]);
    });

    it("upgrade gas: the Karst bundle's total in the Karst activation block only (op-node v1.19.1 attributes.go)", () => {
      // 55,370,657: the bundle's gas limits summed (fixtures/op-stack/nuts/SOURCE.md, kona's tests).
      assert.equal(karstUpgradeGas(), 55_370_657n);
      for (const t of [1300, 1348, 1352, 1400]) assert.equal(upgradeGasAt(cfg, t), 0n, `t=${t}`);
      assert.equal(upgradeGasAt(cfg, 1350), 55_370_657n);
      assert.equal(upgradeGasAt({ ...cfg, karstTime: 1349 }, 1350), 55_370_657n, "first block at or after karst_time");
      assert.equal(upgradeGasAt({ ...cfg, karstTime: 0 }, 2), 0n, "Karst at genesis has no activation block");
      assert.equal(upgradeGasAt({ ...cfg, karstTime: null }, 1350), 0n);
    });

    it("upgrade gas stripped when reading a block back: Karst activation block only, unless keep_karst_upgrade_gas", () => {
      assert.equal(upgradeGasToStrip({ ...cfg, keepKarstUpgradeGas: false }, 1350), 55_370_657n);
      assert.equal(upgradeGasToStrip({ ...cfg, keepKarstUpgradeGas: false }, 1352), 0n);
      assert.equal(upgradeGasToStrip({ ...cfg, keepKarstUpgradeGas: false }, 1348), 0n);
      assert.equal(upgradeGasToStrip({ ...cfg, keepKarstUpgradeGas: true }, 1350), 0n);
    });

    it("forks active at genesis (time 0) have no activation block", () => {
      const c: RollupConfig = { ...cfg, ecotoneTime: 0, fjordTime: 0, graniteTime: 0, holoceneTime: 0, isthmusTime: 0 };
      assert.deepEqual(upgradeTxsAt(c, 0), []);
      assert.deepEqual(upgradeTxsAt(c, 2), []);
    });
  });

  it("src/rollup/derive/upgradeBytecode.ts is up to date with the fixtures", () => {
    assert.ok(upgradeBytecodeUpToDate(), "run npx tsx scripts/bundleUpgradeBytecode.ts");
    const text = renderUpgradeBytecodeModule(upgradeTxsFixturesDir());
    assert.match(text, /GENERATED FILE/);
    assert.match(text, /specs-bytecode\/jovian-l1-block-deployment\.txt: [0-9a-f]{64}/);
  });
});
