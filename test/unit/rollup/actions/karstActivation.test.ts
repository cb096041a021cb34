/**
 * Karst activating mid-chain (op-e2e actions TestKarstNetworkUpgradeTransactions,
 * TestKarstActivationBlockGasLimit; kona proofs TestActivationBlockNUTBundle), on a production L2
 * state: the Unichain mainnet genesis accounts (predeploy proxies under the L2ProxyAdmin, their
 * implementations, the deterministic deployment proxy), Isthmus and Jovian activating after genesis
 * as they did there, then Karst. opal-node's own sequencer (rollup/sequencer.ts, tx pool on) builds
 * the chain on one opal-exec; a verifier derives it from L1 on another.
 *
 * Checked: the activation block is the L1-info deposit, the origin's user deposit, then the 31 NUT
 * deposits, every receipt status 1, no pool tx (it waits for the next block); its gas limit is the
 * system config's + 55,370,657 and the next block's is the config's again, or keeps the sum under
 * keep_karst_upgrade_gas, or is a setGasLimit of its L1 origin; the predeploy proxies' ERC-1967
 * implementation slots hold the CREATE2 addresses the bundle implies, whose code is what the
 * bundle's init code deploys (run again on the pre-Karst state through the deployment proxy); the
 * engine client asks for getPayloadV5 from the activation block on; the verifier's blocks hash the same.
 */
import { strict as assert } from "node:assert";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { DEPOSIT_EVENT_TOPIC } from "../../../../src/rollup/derive/depositLog.js";
import { KARST_NUT_BUNDLE_TXS } from "../../../../src/rollup/derive/karstNutBundle.js";
import { CONFIG_UPDATE_TOPIC, ConfigUpdateType } from "../../../../src/rollup/derive/systemConfig.js";
import { karstUpgradeTxs } from "../../../../src/rollup/derive/upgradeTxs.js";
import { Semaphore } from "../../../../src/rollup/l1/limits.js";
import { Sequencer } from "../../../../src/rollup/sequencer/sequencer.js";
import { SequencerControl } from "../../../../src/rollup/sequencer/sequencerControl.js";
import { registryGenesisAlloc } from "../../../utils/actions/genesisAlloc.js";
import { L1Miner, PORTAL, SYSTEM_CONFIG } from "../../../utils/actions/l1Miner.js";
import { l2Transfer, Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

/** 12-second L2 blocks, one per L1 block: block n has L1 origin n, and every block starts an epoch. */
const BLOCK_TIME = 12;
const FORKS = { isthmus: 12, jovian: 24, karst: 36 } as const;
const ISTHMUS_BLOCK = 1;
const JOVIAN_BLOCK = 2;
const KARST_BLOCK = 3;
const BASE_GAS = 30_000_000n;
/** fixtures/op-stack/nuts/SOURCE.md: the Karst bundle's gas limits summed. */
const UPGRADE_GAS = 55_370_657n;

/** ERC-1967 implementation slot, bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1). */
const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
/** The deterministic deployment proxy (specs protocol/l2-upgrades-2-contracts.md). */
const DEPLOYMENT_PROXY = "4e59b44847b379578588920ca78fbf26c0b4956c";

/**
 * Predeploy proxy of each implementation the bundle deploys ("Deploy <name> Implementation"), as
 * contracts-bedrock src/libraries/Predeploys.sol gives the addresses. The ones the
 * L2ContractsManager upgrades on a chain without custom gas token or interop.
 */
const PROXY_OF: Readonly<Record<string, string>> = {
  L2CrossDomainMessenger: "0x4200000000000000000000000000000000000007",
  GasPriceOracle: "0x420000000000000000000000000000000000000f",
  L2StandardBridge: "0x4200000000000000000000000000000000000010",
  SequencerFeeVault: "0x4200000000000000000000000000000000000011",
  OptimismMintableERC20Factory: "0x4200000000000000000000000000000000000012",
  L2ERC721Bridge: "0x4200000000000000000000000000000000000014",
  L1Block: "0x4200000000000000000000000000000000000015",
  L2ToL1MessagePasser: "0x4200000000000000000000000000000000000016",
  OptimismMintableERC721Factory: "0x4200000000000000000000000000000000000017",
  L2ProxyAdmin: "0x4200000000000000000000000000000000000018",
  BaseFeeVault: "0x4200000000000000000000000000000000000019",
  L1FeeVault: "0x420000000000000000000000000000000000001a",
  OperatorFeeVault: "0x420000000000000000000000000000000000001b",
  SchemaRegistry: "0x4200000000000000000000000000000000000020",
  EAS: "0x4200000000000000000000000000000000000021",
  ConditionalDeployer: "0x420000000000000000000000000000000000002c",
  L2DevFeatureFlags: "0x420000000000000000000000000000000000002d",
};
/** Interop predeploys: upgraded only where the interop system feature is on, so left alone here. */
const INTEROP_PROXIES = [
  "0x4200000000000000000000000000000000000022",
  "0x4200000000000000000000000000000000000023",
  "0x4200000000000000000000000000000000000024",
  "0x4200000000000000000000000000000000000025",
];

const hex = (b: Uint8Array): string => bytesToHex(b);
const keccakHex = (b: Uint8Array): string => Buffer.from(keccak_256(b)).toString("hex");

/** The (salt, initcode) hex a bundle tx deploys: raw to the deployment proxy, or `deploy(bytes32,bytes)`. */
function deployment(data: string, to: string | null): { salt: string; init: string } {
  const d = data.slice(2);
  if (to === `0x${DEPLOYMENT_PROXY}`) return { salt: d.slice(0, 64), init: d.slice(64) };
  const offset = Number.parseInt(d.slice(72, 136), 16);
  const at = 8 + offset * 2;
  const len = Number.parseInt(d.slice(at, at + 64), 16);
  return { salt: d.slice(8, 72), init: d.slice(at + 64, at + 64 + len * 2) };
}

/** EIP-1014 CREATE2 address from the deployment proxy. */
function create2(salt: string, init: string): string {
  return `0x${keccakHex(hexToBytes(`0xff${DEPLOYMENT_PROXY}${salt}${keccakHex(hexToBytes(`0x${init}`))}`)).slice(24)}`;
}

/**
 * Runtime code of a helper that forwards its calldata (salt ‖ initcode) to the deployment proxy and
 * returns the code now at the address it answers: CALLDATACOPY; CALL proxy; address = mload(0) >> 96;
 * EXTCODECOPY; RETURN (reverts when the proxy call fails).
 */
const DEPLOY_AND_RETURN_CODE = `0x${[
  "36600060003760", // CALLDATASIZE PUSH1 0 PUSH1 0 CALLDATACOPY PUSH1
  "14600036600060", // 0x14 (retSize) PUSH1 0 (retOffset) CALLDATASIZE PUSH1 0 (argsOffset) PUSH1
  "0073",
  DEPLOYMENT_PROXY, // 0 (value) PUSH20 proxy
  "5af1", // GAS CALL
  "15603c57", // ISZERO PUSH1 0x3c JUMPI
  "60005160601c", // PUSH1 0 MLOAD PUSH1 96 SHR
  "803b8060006000", // DUP1 EXTCODESIZE DUP1 PUSH1 0 PUSH1 0
  "843c", // DUP5 EXTCODECOPY
  "6000f3", // PUSH1 0 RETURN
  "5b60006000fd", // 0x3c: JUMPDEST PUSH1 0 PUSH1 0 REVERT
].join("")}`;

interface KarstRun {
  readonly r: Rollup;
  readonly v: Verifier;
  readonly userTx: Uint8Array;
  readonly depositTx: Uint8Array;
}

/**
 * L1 1–5 each before its L2 block; a user deposit in L1 3 (the activation block's origin), a
 * setGasLimit in L1 4 when `setGasLimit`; a pool tx sent before block 3. Blocks 1–5, batched in
 * L1 6, derived by a verifier.
 */
async function runKarst(opts: { keep: boolean; setGasLimit?: bigint }): Promise<KarstRun> {
  const r = new Rollup({
    blockTime: BLOCK_TIME,
    forks: FORKS,
    l2Alloc: registryGenesisAlloc("unichain-mainnet"),
    keepKarstUpgradeGas: opts.keep,
    sequencerTxPool: true,
  });
  const clock = { now: r.cfg.genesis.l2Time };
  const controller = r.sequencer.controller;
  await controller.forkchoice();
  const control = new SequencerControl(
    { enabled: true, stopped: false, adminStatePath: null, conductorEnabled: false },
    () => controller.state.unsafe.hash,
  );
  const quiet = { error() {}, warn() {}, info() {}, debug() {} };
  const seq = new Sequencer({
    cfg: r.cfg,
    controller,
    l1: r.sequencer.l1,
    l2: r.sequencer.engine,
    l1Chain: null,
    control,
    lock: new Semaphore(1),
    log: quiet,
    conductor: null,
    maxSafeLag: 0,
    now: () => clock.now,
  });
  const build = async (n: number): Promise<void> => {
    clock.now = r.cfg.genesis.l2Time + n * BLOCK_TIME;
    const s = await seq.step();
    assert.equal(s.kind, "built", `block ${n}: ${JSON.stringify(s)}`);
    assert.equal(r.sequencer.unsafe.number, n);
  };
  const depositTx = r.miner.tx(
    r.miner.accounts[0]!,
    PORTAL,
    L1Miner.depositCall(
      hexToBytes("0x00000000000000000000000000000000000d0d00"),
      hexToBytes("0x00000000000000000000000000000000000b0b00"),
      concatBytes(bigintToBytes32(5n), bigintToBytes32(5n), hexToBytes("0x00000000000186a0"), Uint8Array.of(0)),
      DEPOSIT_EVENT_TOPIC,
    ),
  );
  const userTx = l2Transfer(0n);
  for (let n = 1; n <= 5; n++) {
    const l1Txs: Uint8Array[] = [];
    if (n === KARST_BLOCK) l1Txs.push(depositTx);
    if (n === KARST_BLOCK + 1 && opts.setGasLimit !== undefined) {
      const call = L1Miner.configUpdateCall(
        ConfigUpdateType.GasLimit,
        bigintToBytes32(opts.setGasLimit),
        CONFIG_UPDATE_TOPIC,
      );
      l1Txs.push(r.miner.tx(r.miner.accounts[0]!, SYSTEM_CONFIG, call));
    }
    await r.miner.mine(l1Txs);
    if (n === KARST_BLOCK) await r.sequencer.exec.rpc.call("eth_sendRawTransaction", [hex(userTx)]);
    await build(n);
  }
  await r.miner.mine(await r.batcher.batchTxs());
  const log = recordingLog();
  const v = r.verifier(log);
  try {
    await v.sync();
  } catch (e) {
    console.log(log.lines.join("\n"));
    throw e;
  }
  return { r, v, userTx, depositTx };
}

async function gasLimitOf(r: Rollup, n: number): Promise<bigint> {
  return (await r.sequencer.engine.mustBlock(n)).gasLimit;
}

async function txHashes(r: Rollup, n: number): Promise<string[]> {
  return (await r.sequencer.engine.mustBlock(n)).txs.map((t) => hex(t.hash));
}

/** The verifier derived blocks 1–5 with the sequencer's hashes. */
async function assertSameChain(run: KarstRun): Promise<void> {
  const { r, v } = run;
  assert.equal(v.heads.safe.number, 5, "verifier safe head");
  for (let n = 1; n <= 5; n++) {
    const want = await r.sequencer.engine.mustBlock(n);
    const got = await v.engine.mustBlock(n);
    assert.equal(hex(got.ref.hash), hex(want.ref.hash), `block ${n} hash`);
  }
}

describe("actions: Karst activation (op-node v1.19.1)", function () {
  this.timeout(300_000);
  let strip: KarstRun;

  before(async () => {
    strip = await runKarst({ keep: false });
  });

  it("the activation block: L1-info deposit, the user deposit, the 31 NUT deposits, every receipt status 1", async () => {
    const { r } = strip;
    const block = await r.sequencer.engine.mustBlock(KARST_BLOCK);
    assert.equal(block.ref.timestamp, r.cfg.karstTime);
    assert.equal((await r.sequencer.engine.mustBlock(KARST_BLOCK - 1)).ref.timestamp, r.cfg.karstTime! - BLOCK_TIME);
    const txs = await r.sequencer.engine.transactionsByNumber(KARST_BLOCK);
    assert.equal(txs.length, 1 + 1 + 31);
    assert.equal(txs[0]![0], 0x7e);
    assert.equal(txs[1]![0], 0x7e, "the user deposit right after the L1-info deposit");
    assert.deepEqual(txs.slice(2).map(hex), karstUpgradeTxs().map(hex), "then the bundle, in order");
    const receipts = await r.sequencer.exec.rpc.call<{ status: string; transactionHash: string }[]>(
      "eth_getBlockReceipts",
      [`0x${KARST_BLOCK.toString(16)}`],
    );
    assert.equal(receipts.length, txs.length);
    receipts.forEach((rc, i) => {
      const what = i < 2 ? `deposit ${i}` : `NUT ${i - 2} (${KARST_NUT_BUNDLE_TXS[i - 2]!.intent})`;
      assert.equal(rc.status, "0x1", `${what} succeeded`);
    });
    // The Isthmus and Jovian activations before it ran too (their last deposits set the GPO flags).
    for (const n of [ISTHMUS_BLOCK, JOVIAN_BLOCK]) {
      const rs = await r.sequencer.exec.rpc.call<{ status: string }[]>("eth_getBlockReceipts", [`0x${n.toString(16)}`]);
      assert.ok(rs.length > 1 && rs.every((x) => x.status === "0x1"), `block ${n} upgrade deposits succeeded`);
    }
  });

  it("the sequencer keeps its pool closed in the activation block: the pool tx lands in the next block", async () => {
    const { r, userTx } = strip;
    const userHash = `0x${keccakHex(userTx)}`;
    assert.ok(!(await txHashes(r, KARST_BLOCK)).includes(userHash), "not in the activation block");
    assert.ok((await txHashes(r, KARST_BLOCK + 1)).includes(userHash), "in the block after it");
  });

  it("gas limit: base + 55,370,657 in the activation block, base again in the next (upgrade gas stripped)", async () => {
    const { r } = strip;
    assert.equal(r.cfg.keepKarstUpgradeGas, false);
    assert.equal(await gasLimitOf(r, KARST_BLOCK - 1), BASE_GAS);
    assert.equal(await gasLimitOf(r, KARST_BLOCK), BASE_GAS + UPGRADE_GAS);
    assert.equal(await gasLimitOf(r, KARST_BLOCK + 1), BASE_GAS);
    assert.equal(await gasLimitOf(r, KARST_BLOCK + 2), BASE_GAS);
  });

  it("the predeploy proxies point at the CREATE2 addresses the bundle implies, holding the code its init code deploys", async () => {
    const { r } = strip;
    const rpc = r.sequencer.exec.rpc;
    const at = async (addr: string, n: number): Promise<string> =>
      `0x${(await rpc.call<string>("eth_getStorageAt", [addr, IMPLEMENTATION_SLOT, `0x${n.toString(16)}`])).slice(-40)}`;
    const checked: string[] = [];
    for (const t of KARST_NUT_BUNDLE_TXS) {
      const m = /^Deploy (\w+) Implementation$/.exec(t.intent) ?? /^(ConditionalDeployer) Deployment$/.exec(t.intent);
      if (m === null || PROXY_OF[m[1]!] === undefined) continue;
      const proxy = PROXY_OF[m[1]!]!;
      const { salt, init } = deployment(t.data, t.to);
      const impl = create2(salt, init);
      assert.notEqual(await at(proxy, KARST_BLOCK - 1), impl, `${m[1]} not upgraded before Karst`);
      assert.equal(await at(proxy, KARST_BLOCK), impl, `${m[1]} proxy ${proxy} → ${impl}`);
      // The code at the implementation: the init code run again, alone, on the pre-Karst state.
      const code = await rpc.call<string>("eth_getCode", [impl, `0x${KARST_BLOCK.toString(16)}`]);
      const fresh = await rpc.call<string>("eth_call", [
        { to: "0x00000000000000000000000000000000000c0de5", data: `0x${salt}${init}`, gas: "0x2faf080" },
        `0x${(KARST_BLOCK - 1).toString(16)}`,
        { "0x00000000000000000000000000000000000c0de5": { code: DEPLOY_AND_RETURN_CODE } },
      ]);
      assert.ok(code.length > 2, `${m[1]} implementation has code`);
      assert.equal(keccakHex(hexToBytes(code)), keccakHex(hexToBytes(fresh)), `${m[1]} code hash`);
      checked.push(m[1]!);
    }
    assert.equal(new Set(checked).size, Object.keys(PROXY_OF).length, `checked ${checked.join(", ")}`);
    for (const p of INTEROP_PROXIES) {
      assert.equal(await at(p, KARST_BLOCK), await at(p, KARST_BLOCK - 1), `${p} left alone`);
    }
  });

  it("the engine client asks for getPayloadV5 from the activation block on, getPayloadV4 before", async () => {
    const asked = strip.r.sequencer.rpc.asked.filter((m) => m.startsWith("engine_getPayload"));
    assert.deepEqual(asked, [
      "engine_getPayloadV4",
      "engine_getPayloadV4",
      "engine_getPayloadV5",
      "engine_getPayloadV5",
      "engine_getPayloadV5",
    ]);
    assert.ok(!strip.r.sequencer.rpc.asked.includes("engine_newPayloadV5"), "newPayload stays V4");
  });

  it("a verifier derives the same blocks from L1, the activation block and after", async () => {
    await assertSameChain(strip);
  });

  it("keep_karst_upgrade_gas: the next blocks keep base + upgrade gas; the verifier agrees", async () => {
    const keep = await runKarst({ keep: true });
    assert.equal(await gasLimitOf(keep.r, KARST_BLOCK), BASE_GAS + UPGRADE_GAS);
    assert.equal(await gasLimitOf(keep.r, KARST_BLOCK + 1), BASE_GAS + UPGRADE_GAS);
    assert.equal(await gasLimitOf(keep.r, KARST_BLOCK + 2), BASE_GAS + UPGRADE_GAS);
    await assertSameChain(keep);
  });

  it("a setGasLimit in the next block's L1 origin wins over the strip", async () => {
    const set = await runKarst({ keep: false, setGasLimit: 45_000_000n });
    assert.equal(await gasLimitOf(set.r, KARST_BLOCK), BASE_GAS + UPGRADE_GAS);
    assert.equal(await gasLimitOf(set.r, KARST_BLOCK + 1), 45_000_000n);
    assert.equal(await gasLimitOf(set.r, KARST_BLOCK + 2), 45_000_000n);
    await assertSameChain(set);
  });
});
