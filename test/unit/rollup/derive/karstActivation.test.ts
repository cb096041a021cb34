/**
 * The Karst activation block in opal-node's derivation, unit by unit, as op-node v1.19.1 builds it:
 * the attributes (L1-info deposit, the origin's user deposits, then the 31 NUT deposits; gas limit
 * = the system config's after the origin's ConfigUpdate logs + 55,370,657; deposits only), the
 * system config read back from the activation block (upgrade gas taken off unless
 * keep_karst_upgrade_gas; refused when the header is below it), and the Engine API versions around
 * it (getPayload V5 from Karst, newPayload V4, forkchoiceUpdated V3).
 */
import { strict as assert } from "node:assert";
import { encodeJovianExtraData } from "../../../../src/block/opExtraData.js";
import type { Receipt } from "../../../../src/block/receipt.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import {
  type L1Info,
  l1BlockInfoFor,
  type PayloadAttributes,
  preparePayloadAttributes,
} from "../../../../src/rollup/derive/attributes.js";
import {
  CONFIG_UPDATE_TOPIC,
  ConfigUpdateType,
  type SystemConfig,
} from "../../../../src/rollup/derive/systemConfig.js";
import { karstUpgradeTxs } from "../../../../src/rollup/derive/upgradeTxs.js";
import {
  EngineClientError,
  fcuVersionFor,
  getPayloadVersionAt,
  type L2Block,
  newPayloadVersionAt,
  systemConfigOfBlock,
} from "../../../../src/rollup/engine/engineClient.js";
import type { L2BlockRef } from "../../../../src/rollup/refs.js";
import { encodeL1BlockInfo, L1InfoFormat } from "../../../../src/tx/l1BlockInfo.js";

/** fixtures/op-stack/nuts/SOURCE.md: the bundle's gas limits summed. */
const UPGRADE_GAS = 55_370_657n;
const BASE_GAS = 30_000_000n;
const KARST = 1_000;

const base = networkRollupConfig("op-mainnet");
assert.ok(base !== null);
/** Every fork through Jovian at genesis, Karst at 1000, 2-second blocks. */
const CFG: RollupConfig = {
  ...base,
  blockTime: 2,
  regolithTime: 0,
  canyonTime: 0,
  deltaTime: 0,
  ecotoneTime: 0,
  fjordTime: 0,
  graniteTime: 0,
  holoceneTime: 0,
  isthmusTime: 0,
  jovianTime: 0,
  karstTime: KARST,
  interopTime: null,
  keepKarstUpgradeGas: false,
};

const h = (b: number): Uint8Array => new Uint8Array(32).fill(b);

const SC: SystemConfig = Object.freeze({
  batcherAddr: new Uint8Array(20).fill(0xba),
  overhead: new Uint8Array(32),
  scalar: concatBytes(Uint8Array.of(1), new Uint8Array(23), Uint8Array.of(0, 0, 0, 5, 0, 0, 0, 7)),
  gasLimit: BASE_GAS,
  eip1559Params: Uint8Array.of(0, 0, 0, 250, 0, 0, 0, 6),
  operatorFeeParams: new Uint8Array(32),
  minBaseFee: 0n,
  daFootprintGasScalar: 400,
});

function l1Info(n: number, timestamp: number): L1Info {
  return {
    hash: h(n),
    number: n,
    parentHash: h(n - 1),
    timestamp,
    baseFee: 7n,
    mixHash: h(0xaa),
    excessBlobGas: 0,
    parentBeaconBlockRoot: h(0xbb),
  };
}

/** A receipt of the L1 SystemConfig with one ConfigUpdate(GasLimit) log. */
function setGasLimitReceipt(gas: bigint): Receipt {
  const type = new Uint8Array(32);
  type[31] = ConfigUpdateType.GasLimit;
  return {
    type: 2,
    status: 1,
    postState: null,
    cumulativeGasUsed: 50_000,
    logsBloom: new Uint8Array(256),
    logs: [
      {
        address: CFG.l1SystemConfigAddress,
        topics: [CONFIG_UPDATE_TOPIC, new Uint8Array(32), type],
        data: concatBytes(bigintToBytes32(32n), bigintToBytes32(32n), bigintToBytes32(gas)),
      },
    ],
    depositNonce: null,
    depositReceiptVersion: null,
  };
}

function parentAt(timestamp: number, origin: number): L2BlockRef {
  return {
    hash: h(0x20),
    number: 10,
    parentHash: h(0x1f),
    timestamp,
    l1origin: { hash: h(origin), number: origin },
    sequenceNumber: 0,
  };
}

async function attributes(
  cfg: RollupConfig,
  parent: L2BlockRef,
  origin: number,
  receipts: readonly Receipt[] = [],
): Promise<PayloadAttributes> {
  const info = l1Info(origin, Math.max(0, parent.timestamp - 4));
  return preparePayloadAttributes(
    cfg,
    {
      l1: { infoByHash: async () => info, fetchReceipts: async () => ({ info, receipts }) },
      l2: { systemConfigByL2Hash: async () => SC },
      l1Chain: null,
    },
    parent,
    { hash: h(origin), number: origin },
  );
}

/** An L2 block as the engine client reads it back: Jovian L1-info calldata and extraData. */
function l2Block(cfg: RollupConfig, timestamp: number, gasLimit: bigint): L2Block {
  const info = l1BlockInfoFor(cfg, null, SC, 0, l1Info(5, timestamp - 4), timestamp);
  assert.equal(info.format, L1InfoFormat.Jovian);
  return {
    ref: { ...parentAt(timestamp, 5), number: 20 },
    gasLimit,
    extraData: encodeJovianExtraData(250, 6, 0n),
    prevRandao: h(0xaa),
    feeRecipient: new Uint8Array(20),
    withdrawalsRoot: null,
    withdrawalCount: null,
    parentBeaconBlockRoot: null,
    txs: [],
    firstTxInput: encodeL1BlockInfo(info),
  };
}

describe("rollup/derive: the Karst activation block (op-node v1.19.1)", () => {
  it("attributes: L1-info deposit then the 31 NUT deposits, gas limit + upgrade gas, deposits only", async () => {
    const a = await attributes(CFG, parentAt(KARST - 2, 5), 5);
    const nuts = karstUpgradeTxs();
    assert.equal(nuts.length, 31);
    assert.equal(a.timestamp, KARST);
    assert.equal(a.transactions.length, 1 + 31);
    assert.equal(a.transactions[0]![0], 0x7e, "the L1-info deposit first");
    assert.deepEqual(a.transactions.slice(1).map(bytesToHex), nuts.map(bytesToHex));
    assert.equal(a.gasLimit, BASE_GAS + UPGRADE_GAS);
    assert.equal(a.noTxPool, true);
  });

  it("attributes: a setGasLimit in the activation block's new L1 origin is the base the upgrade gas is added to", async () => {
    const a = await attributes(CFG, parentAt(KARST - 2, 5), 6, [setGasLimitReceipt(45_000_000n)]);
    assert.equal(a.gasLimit, 45_000_000n + UPGRADE_GAS);
    assert.deepEqual(a.transactions.slice(1).map(bytesToHex), karstUpgradeTxs().map(bytesToHex));
  });

  it("attributes: before and after the activation block, no NUT deposits and the config's gas limit", async () => {
    for (const t of [KARST - 4, KARST]) {
      const a = await attributes(CFG, parentAt(t, 5), 5);
      assert.equal(a.transactions.length, 1, `parent at ${t}`);
      assert.equal(a.gasLimit, BASE_GAS, `parent at ${t}`);
    }
    const atGenesis = await attributes({ ...CFG, karstTime: 0 }, parentAt(0, 5), 5);
    assert.equal(atGenesis.transactions.length, 1, "Karst at genesis has no activation block");
    assert.equal(atGenesis.gasLimit, BASE_GAS);
  });

  it("system config read back from the activation block: upgrade gas off, unless keep_karst_upgrade_gas", () => {
    const act = (cfg: RollupConfig, gas: bigint) => systemConfigOfBlock(cfg, l2Block(cfg, KARST, gas)).gasLimit;
    assert.equal(act(CFG, BASE_GAS + UPGRADE_GAS), BASE_GAS);
    assert.equal(act({ ...CFG, keepKarstUpgradeGas: true }, BASE_GAS + UPGRADE_GAS), BASE_GAS + UPGRADE_GAS);
    // Only the activation block: the blocks around it are read as they are.
    for (const t of [KARST - 2, KARST + 2]) {
      assert.equal(systemConfigOfBlock(CFG, l2Block(CFG, t, BASE_GAS + UPGRADE_GAS)).gasLimit, BASE_GAS + UPGRADE_GAS);
    }
    // op-node PayloadToSystemConfig: a header below the upgrade gas is an error, not an underflow.
    assert.throws(
      () => systemConfigOfBlock(CFG, l2Block(CFG, KARST, UPGRADE_GAS - 1n)),
      (e: unknown) => e instanceof EngineClientError && /below upgrade gas 55370657/.test(e.message),
    );
    assert.equal(act({ ...CFG, keepKarstUpgradeGas: true }, UPGRADE_GAS - 1n), UPGRADE_GAS - 1n);
  });

  it("Engine API: getPayload V5 from Karst, newPayload V4, forkchoiceUpdated V3", async () => {
    assert.equal(getPayloadVersionAt(CFG, KARST - 2), 4);
    assert.equal(getPayloadVersionAt(CFG, KARST), 5);
    assert.equal(getPayloadVersionAt(CFG, KARST + 1_000_000), 5);
    assert.equal(getPayloadVersionAt({ ...CFG, karstTime: null }, KARST), 4);
    assert.equal(newPayloadVersionAt(CFG, KARST), 4);
    const a = await attributes(CFG, parentAt(KARST - 2, 5), 5);
    assert.equal(fcuVersionFor(CFG, a), 3);
    assert.equal(fcuVersionFor(CFG, null), 3);
  });
});
