/**
 * Action test of the Interop activation block (specs/interop/derivation.md "Activation Block" and
 * "Network Upgrade Transactions", specs e1d1aee8 — the revision kona's interop_tx_* fixtures
 * encode): with `interop_time` 12 s after genesis and block time 2, block 6 is the activation block.
 * Its deposits are the L1-info deposit, the L1 block's user deposit, then the four Interop upgrade
 * deposits, equal byte for byte to kona's interop_tx_0..3.hex (read from the fixtures); a verifier
 * derives the same chain from batches; the deployments land where the proxy updates point; the
 * L1-info deposit keeps its layout (Interop defines no new one); and the sequencer turns the tx
 * pool off for the activation block only.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { encodeRlp } from "../../../../src/rlp/encode.js";
import type { PayloadAttributes } from "../../../../src/rollup/derive/attributes.js";
import { DEPOSIT_EVENT_TOPIC } from "../../../../src/rollup/derive/depositLog.js";
import { Semaphore } from "../../../../src/rollup/l1/limits.js";
import type { L2BlockRef } from "../../../../src/rollup/refs.js";
import { Sequencer } from "../../../../src/rollup/sequencer/sequencer.js";
import { SequencerControl } from "../../../../src/rollup/sequencer/sequencerControl.js";
import { decodeTx } from "../../../../src/tx/envelope.js";
import { L1InfoFormat, parseL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { TxType } from "../../../../src/tx/tx.js";
import { L1Miner, PORTAL } from "../../../utils/actions/l1Miner.js";
import { l2Transfer, Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";
import { fixturePath } from "../../../utils/fixtures.js";

/** Interop 12 s after genesis (Karst, its predecessor in the fork order, at genesis). */
const FORKS = { karst: 0, interop: 12 } as const;
const INTEROP_BLOCK = 6;
const LAST_BLOCK = 9;
const RECIPIENT = hexToBytes("0x00000000000000000000000000000000000b0b00");

const hex = bytesToHex;

/** kona's encoded Interop upgrade txs, interop_tx_0.hex, interop_tx_1.hex, … in order. */
function konaInteropTxs(): Uint8Array[] {
  const dir = fixturePath("op-stack", "network-upgrade-txs", "kona");
  return readdirSync(dir)
    .filter((f) => /^interop_tx_\d+\.hex$/.test(f))
    .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]))
    .map((f) => hexToBytes(`0x${readFileSync(`${dir}/${f}`, "utf8").trim().replace(/^0x/, "")}`));
}

function konaBytecode(file: string): string {
  const text = readFileSync(fixturePath("op-stack", "network-upgrade-txs", "kona", file), "utf8").trim();
  return `0x${text.replace(/^0x/, "").toLowerCase()}`;
}

/** The opaque data of a plain call deposit: mint ‖ value ‖ gasLimit ‖ isCreation. */
function opaqueCall(mint: bigint, value: bigint, gas: bigint): Uint8Array {
  const g = new Uint8Array(8);
  new DataView(g.buffer).setBigUint64(0, gas);
  return concatBytes(bigintToBytes32(mint), bigintToBytes32(value), g, Uint8Array.of(0));
}

interface InteropChain {
  readonly r: Rollup;
  readonly v: Verifier;
  readonly depositSender: Uint8Array;
}

/**
 * Blocks 1–5 on L1 origin 0 (a transfer in block 5); L1 block 1 holds a user deposit and the
 * batches of 1–5; blocks 6–9 on origin 1 (transfers in 7 and 9, none in the activation block 6);
 * L1 block 2 holds them as a span batch. A fresh verifier derives everything.
 */
async function buildChain(): Promise<InteropChain> {
  const r = new Rollup({ forks: FORKS });
  const sender = devAccounts()[5]!;
  let nonce = 0n;
  const userTxsAt = new Set([5, 7, 9]);
  const build = async (to: number): Promise<void> => {
    while (r.sequencer.unsafe.number < to) {
      const n = r.sequencer.unsafe.number + 1;
      await r.sequencer.buildBlock(
        userTxsAt.has(n) ? [l2Transfer(nonce++, { key: sender.privateKey, to: RECIPIENT })] : [],
      );
    }
  };
  await build(5);
  const depositSender = hexToBytes("0x00000000000000000000000000000000000d0d01");
  const deposit = r.miner.tx(
    r.miner.accounts[0]!,
    PORTAL,
    L1Miner.depositCall(depositSender, RECIPIENT, opaqueCall(3n, 3n, 100_000n), DEPOSIT_EVENT_TOPIC),
  );
  await r.miner.mine([deposit, ...(await r.batcher.batchTxs())]);
  await build(LAST_BLOCK);
  await r.miner.mine(await r.batcher.batchTxs({ span: true }));
  const log = recordingLog();
  const v = r.verifier(log);
  try {
    await v.sync();
  } catch (e) {
    console.log(log.lines.join("\n"));
    throw e;
  }
  return { r, v, depositSender };
}

async function depositsOf(v: Verifier, n: number): Promise<Uint8Array[]> {
  return (await v.engine.transactionsByNumber(n)).filter((t) => t[0] === 0x7e);
}

describe("actions: the Interop activation block", function () {
  this.timeout(60_000);
  let chain: InteropChain;

  before(async () => {
    chain = await buildChain();
  });

  it("sits at the first block at or after interop_time, and the verifier derives the sequencer's chain", async () => {
    const { r, v } = chain;
    assert.equal(r.cfg.interopTime, r.cfg.genesis.l2Time + FORKS.interop);
    const act = await r.sequencer.engine.mustBlock(INTEROP_BLOCK);
    assert.equal(act.ref.timestamp, r.cfg.interopTime);
    assert.equal(act.ref.l1origin.number, 1);
    assert.equal(v.heads.safe.number, LAST_BLOCK);
    for (let n = 1; n <= LAST_BLOCK; n++) {
      const want = await r.sequencer.engine.mustBlock(n);
      const got = await v.engine.mustBlock(n);
      assert.equal(hex(got.ref.hash), hex(want.ref.hash), `block ${n} hash`);
      const wantTxs = (await r.sequencer.engine.transactionsByNumber(n)).map(hex);
      assert.deepEqual((await v.engine.transactionsByNumber(n)).map(hex), wantTxs, `block ${n} txs`);
    }
  });

  it("carries the L1-info deposit, the user deposit, then kona's interop_tx_0..3 byte for byte", async () => {
    const { v } = chain;
    const want = konaInteropTxs();
    assert.equal(want.length, 4, "the fixtures hold four Interop upgrade txs");
    const deps = await depositsOf(v, INTEROP_BLOCK);
    assert.equal(deps.length, 2 + want.length);
    assert.deepEqual(deps.slice(2).map(hex), want.map(hex));
    const info = decodeTx(deps[0]!);
    const user = decodeTx(deps[1]!);
    assert.ok(info.type === TxType.Deposit && user.type === TxType.Deposit);
    assert.equal(hex(info.from), "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
    assert.equal(hex(user.from), hex(chain.depositSender));
    assert.equal(user.mint, 3n);
    // Only deposits in the activation block; every other block has the L1-info deposit alone
    // (block 6's origin is the only one with a user deposit).
    assert.equal((await v.engine.transactionsByNumber(INTEROP_BLOCK)).length, deps.length);
    for (let n = 1; n <= LAST_BLOCK; n++) {
      if (n !== INTEROP_BLOCK) assert.equal((await depositsOf(v, n)).length, 1, `block ${n} deposits`);
    }
  });

  it("deploys CrossL2Inbox and L2ToL2CrossDomainMessenger at the addresses their proxy updates name", async () => {
    const { v } = chain;
    const raw = await v.engine.transactionsByNumber(INTEROP_BLOCK);
    const deployed: string[] = [];
    const targets: [proxy: string, implementation: string][] = [];
    for (const t of raw.slice(2)) {
      const tx = decodeTx(t);
      assert.equal(tx.type, TxType.Deposit);
      const rc = await v.exec.rpc.call<{ status: string; contractAddress: string | null }>(
        "eth_getTransactionReceipt",
        [hex(keccak256(t))],
      );
      if (tx.to === null) {
        assert.equal(rc.status, "0x1", "the deployment succeeds");
        const at = hex(keccak256(encodeRlp([tx.from, new Uint8Array(0)])).slice(12));
        assert.equal(rc.contractAddress?.toLowerCase(), at, "CREATE(deployer, 0)");
        // The runtime code is what the creation code returns: a slice of it.
        const code = await v.exec.rpc.call<string>("eth_getCode", [at, "latest"]);
        assert.ok(code.length > 2, `code at ${at}`);
        assert.ok(hex(tx.data).includes(code.slice(2).toLowerCase()), "runtime code comes from the creation code");
        deployed.push(at);
      } else {
        assert.equal(
          hex(tx.data.subarray(0, 4)),
          hex(keccak256(new TextEncoder().encode("upgradeTo(address)")).subarray(0, 4)),
        );
        targets.push([hex(tx.to), hex(tx.data.subarray(16, 36))]);
      }
    }
    assert.equal(deployed.length, 2);
    assert.deepEqual(
      targets.map(([, impl]) => impl),
      deployed,
      "each proxy update names the contract deployed just before it",
    );
    assert.deepEqual(
      targets.map(([proxy]) => proxy),
      ["0x4200000000000000000000000000000000000022", "0x4200000000000000000000000000000000000023"],
    );
    // The deployments carry kona's bytecode files.
    const creations = raw
      .slice(2)
      .map((t) => decodeTx(t))
      .filter((t) => t.to === null);
    assert.equal(hex(creations[0]!.data), konaBytecode("crossl2inbox_interop.hex"));
    assert.equal(hex(creations[1]!.data), konaBytecode("l2tol2_xdm_interop.hex"));
  });

  it("keeps the Jovian L1-info layout before, in and after the activation block", async () => {
    const { v } = chain;
    for (const n of [INTEROP_BLOCK - 1, INTEROP_BLOCK, INTEROP_BLOCK + 1]) {
      const block = await v.engine.mustBlock(n);
      assert.ok(block.firstTxInput !== null);
      const info = parseL1BlockInfo(block.firstTxInput);
      assert.ok(info !== null);
      assert.equal(info.format, L1InfoFormat.Jovian, `block ${n}`);
      assert.equal(Number(info.number), block.ref.l1origin.number);
    }
  });

  it("the sequencer builds the activation block with noTxPool and the blocks around it with the pool", async () => {
    const r = new Rollup({ forks: FORKS });
    const controller = r.sequencer.controller;
    await controller.forkchoice();
    const seen = new Map<number, boolean>();
    const build = controller.build.bind(controller);
    controller.build = (parent: L2BlockRef, attrs: PayloadAttributes) => {
      seen.set(attrs.timestamp, attrs.noTxPool);
      return build(parent, attrs);
    };
    const clock = { now: r.cfg.genesis.l2Time };
    const quiet = { error() {}, warn() {}, info() {}, debug() {} };
    const seq = new Sequencer({
      cfg: r.cfg,
      controller,
      l1: r.sequencer.l1,
      l2: r.sequencer.engine,
      l1Chain: null,
      control: new SequencerControl(
        { enabled: true, stopped: false, adminStatePath: null, conductorEnabled: false },
        () => controller.state.unsafe.hash,
      ),
      lock: new Semaphore(1),
      log: quiet,
      conductor: null,
      maxSafeLag: 0,
      now: () => clock.now,
      onBlock: () => undefined,
    });
    await r.miner.mine(); // L1 block 1 at +12: origin of the activation block, not past the drift
    clock.now = r.cfg.genesis.l2Time + 2 * (INTEROP_BLOCK + 2);
    while ((await seq.step()).kind === "built") {}
    assert.equal(r.sequencer.unsafe.number, INTEROP_BLOCK + 2);
    const g = r.cfg.genesis.l2Time;
    for (let n = 1; n <= INTEROP_BLOCK + 2; n++) {
      assert.equal(seen.get(g + 2 * n), n === INTEROP_BLOCK, `block ${n} noTxPool`);
    }
    const act = await r.sequencer.engine.mustBlock(INTEROP_BLOCK);
    assert.equal(act.txs.length, 1 + konaInteropTxs().length);
  });
});
