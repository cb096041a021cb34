/**
 * Action tests across hard-fork activations (op-e2e actions upgrade tests): Ecotone, Fjord, Granite,
 * Holocene, Isthmus and Jovian activate after L2 genesis; the sequencer builds blocks across all of
 * them, the batcher submits singular and span batches, zlib and brotli channels, and a verifier
 * derives the same chain. Checks the upgrade deposits of each activation block (also against the
 * published Ecotone bytes), the L1-info deposit layout per block, the Fjord gate on brotli channels
 * and the Jovian rule that its activation block carries no user transactions.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { type DevAccount, devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { encodeRlp } from "../../../../src/rlp/encode.js";
import { DEPOSIT_EVENT_TOPIC } from "../../../../src/rollup/derive/depositLog.js";
import {
  ecotoneUpgradeTxs,
  fjordUpgradeTxs,
  isthmusUpgradeTxs,
  jovianUpgradeTxs,
} from "../../../../src/rollup/derive/upgradeTxs.js";
import { decodeTx, encodeTx } from "../../../../src/tx/envelope.js";
import { L1InfoFormat, parseL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { L1Miner, PORTAL } from "../../../utils/actions/l1Miner.js";
import { L2_CHAIN_ID, Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";
import { fixturePath } from "../../../utils/fixtures.js";

/** Fork times (seconds after L2 genesis); regolith, canyon and delta at genesis. */
const FORKS = { ecotone: 6, fjord: 12, granite: 14, holocene: 16, isthmus: 20, jovian: 24 } as const;
/** The activation block numbers with block time 2. */
const ECOTONE_BLOCK = 3;
const FJORD_BLOCK = 6;
const ISTHMUS_BLOCK = 10;
const JOVIAN_BLOCK = 12;

/** Signs EIP-1559 L2 transfers from one dev account, tracking its nonce. */
class L2Wallet {
  private nonce = 0n;
  constructor(readonly account: DevAccount) {}

  transfer(to: Uint8Array, value: bigint): Uint8Array {
    const unsigned: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId: L2_CHAIN_ID,
      nonce: this.nonce,
      maxPriorityFeePerGas: 1_000_000n,
      maxFeePerGas: 10_000_000_000n,
      gasLimit: 21_000n,
      to,
      value,
      data: new Uint8Array(0),
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    this.nonce++;
    return encodeTx(signTx(unsigned, this.account.privateKey));
  }
}

const RECIPIENT = hexToBytes("0x00000000000000000000000000000000000b0b00");

/** The opaque data of a plain call deposit: mint ‖ value ‖ gasLimit ‖ isCreation ‖ data. */
function opaqueCall(mint: bigint, value: bigint, gas: bigint): Uint8Array {
  const g = new Uint8Array(8);
  new DataView(g.buffer).setBigUint64(0, gas);
  return concatBytes(bigintToBytes32(mint), bigintToBytes32(value), g, Uint8Array.of(0));
}

function hex(b: Uint8Array): string {
  return bytesToHex(b);
}

/** The verifier's safe chain equals the sequencer's up to `upTo`: heads, hashes and tx bytes, block by block. */
async function assertSameChain(r: Rollup, v: Verifier, upTo: number): Promise<void> {
  assert.equal(v.heads.safe.number, upTo, "verifier safe head number");
  for (let n = 1; n <= upTo; n++) {
    const want = await r.sequencer.engine.mustBlock(n);
    const got = await v.engine.mustBlock(n);
    assert.equal(hex(got.ref.hash), hex(want.ref.hash), `block ${n} hash`);
    const wantTxs = (await r.sequencer.engine.transactionsByNumber(n)).map(hex);
    const gotTxs = (await v.engine.transactionsByNumber(n)).map(hex);
    assert.deepEqual(gotTxs, wantTxs, `block ${n} transactions`);
  }
  assert.equal(hex(v.heads.safe.hash), hex((await r.sequencer.engine.mustBlock(upTo)).ref.hash));
}

async function sync(v: Verifier, log: { lines: string[] }): Promise<void> {
  try {
    await v.sync();
  } catch (e) {
    console.log(log.lines.join("\n"));
    throw e;
  }
}

/** The deposits (type 0x7e) at the start of block `n` of the verifier. */
async function depositsOf(v: Verifier, n: number): Promise<Uint8Array[]> {
  return (await v.engine.transactionsByNumber(n)).filter((t) => t[0] === 0x7e);
}

function readFixtureTx(name: string): Uint8Array {
  const text = readFileSync(fixturePath("op-stack", "network-upgrade-txs", "kona", name), "utf8").trim();
  return hexToBytes(text.startsWith("0x") ? text : `0x${text}`);
}

interface ForkChain {
  readonly r: Rollup;
  readonly v: Verifier;
  readonly log: { lines: string[] };
  /** Encoded user deposit placed in L1 block 1 (the origin of the Fjord activation block). */
  readonly depositSender: Uint8Array;
}

/**
 * L1 1: a user deposit and blocks 1–5 as singular batches (zlib); L1 2: blocks 6–11 as one span
 * batch in a brotli channel; L1 3: blocks 12–14 as a span batch (zlib). User transfers in blocks
 * 3 (Ecotone), 7, 10 (Isthmus) and 13; none in 12 (Jovian).
 */
async function buildForkChain(): Promise<ForkChain> {
  const r = new Rollup({ forks: FORKS });
  const wallet = new L2Wallet(devAccounts()[3]!);
  const userTxsAt = new Set([ECOTONE_BLOCK, 7, ISTHMUS_BLOCK, 13]);
  const build = async (to: number): Promise<void> => {
    while (r.sequencer.unsafe.number < to) {
      const n = r.sequencer.unsafe.number + 1;
      await r.sequencer.buildBlock(userTxsAt.has(n) ? [wallet.transfer(RECIPIENT, BigInt(n))] : []);
    }
  };
  await build(5);
  const depositor = r.miner.accounts[0]!;
  const depositSender = hexToBytes("0x00000000000000000000000000000000000d0d00");
  const depositTx = r.miner.tx(
    depositor,
    PORTAL,
    L1Miner.depositCall(depositSender, RECIPIENT, opaqueCall(7n, 7n, 100_000n), DEPOSIT_EVENT_TOPIC),
  );
  await r.miner.mine([depositTx, ...(await r.batcher.batchTxs({ algo: "zlib" }))]);
  await build(11);
  await r.miner.mine(await r.batcher.batchTxs({ span: true, algo: "brotli" }));
  await build(14);
  await r.miner.mine(await r.batcher.batchTxs({ span: true, algo: "zlib" }));
  const log = recordingLog();
  const v = r.verifier(log);
  await sync(v, log);
  return { r, v, log, depositSender };
}

describe("actions: hard-fork activations after genesis", function () {
  this.timeout(60_000);
  let chain: ForkChain;

  before(async () => {
    chain = await buildForkChain();
  });

  it("the activation blocks sit where the schedule says, and the L1 origins advance as built", async () => {
    const { r } = chain;
    const l2Time = r.cfg.genesis.l2Time;
    assert.equal(r.cfg.ecotoneTime, l2Time + 6);
    assert.equal(r.cfg.jovianTime, l2Time + 24);
    assert.equal(r.sequencer.unsafe.number, 14);
    const b = async (n: number) => (await r.sequencer.engine.mustBlock(n)).ref;
    assert.equal((await b(ECOTONE_BLOCK)).timestamp, l2Time + 6);
    assert.equal((await b(FJORD_BLOCK)).timestamp, l2Time + 12);
    assert.equal((await b(ISTHMUS_BLOCK)).timestamp, l2Time + 20);
    assert.equal((await b(JOVIAN_BLOCK)).timestamp, l2Time + 24);
    assert.equal((await b(5)).l1origin.number, 0);
    assert.equal((await b(FJORD_BLOCK)).l1origin.number, 1);
    assert.equal((await b(11)).l1origin.number, 1);
    assert.equal((await b(JOVIAN_BLOCK)).l1origin.number, 2);
  });

  it("(a) the verifier's safe chain equals the sequencer's, block by block, hashes and txs included", async () => {
    const { r, v } = chain;
    await assertSameChain(r, v, 14);
    // The user transfers made it into the derived blocks.
    for (const n of [ECOTONE_BLOCK, 7, ISTHMUS_BLOCK, 13]) {
      const user = (await v.engine.transactionsByNumber(n)).filter((t) => t[0] !== 0x7e);
      assert.equal(user.length, 1, `block ${n} user txs`);
      assert.equal(user[0]![0], 0x02);
    }
    assert.equal((await v.engine.transactionsByNumber(JOVIAN_BLOCK)).filter((t) => t[0] !== 0x7e).length, 0);
  });

  it("(b) each activation block carries exactly its fork's upgrade deposits after the L1-info and user deposits", async () => {
    const { v } = chain;
    const expectUpgrade = async (n: number, userDeposits: number, upgrade: Uint8Array[]): Promise<void> => {
      const deps = await depositsOf(v, n);
      assert.equal(deps.length, 1 + userDeposits + upgrade.length, `block ${n} deposit count`);
      assert.deepEqual(deps.slice(1 + userDeposits).map(hex), upgrade.map(hex), `block ${n} upgrade txs`);
    };
    await expectUpgrade(ECOTONE_BLOCK, 0, ecotoneUpgradeTxs());
    await expectUpgrade(FJORD_BLOCK, 1, fjordUpgradeTxs());
    await expectUpgrade(ISTHMUS_BLOCK, 0, isthmusUpgradeTxs());
    await expectUpgrade(JOVIAN_BLOCK, 0, jovianUpgradeTxs());
    assert.equal(ecotoneUpgradeTxs().length, 6);
    assert.equal(fjordUpgradeTxs().length, 3);
    assert.equal(isthmusUpgradeTxs().length, 8);
    assert.equal(jovianUpgradeTxs().length, 5);
    // The user deposit of L1 block 1 sits between the L1-info deposit and Fjord's upgrade txs.
    const fjordDeps = await depositsOf(v, FJORD_BLOCK);
    const user = decodeTx(fjordDeps[1]!);
    assert.equal(user.type, TxType.Deposit);
    if (user.type === TxType.Deposit) {
      assert.equal(hex(user.from), hex(chain.depositSender));
      assert.equal(user.mint, 7n);
      assert.equal(user.isSystemTx, false);
    }
    // Every other block has the L1-info deposit alone.
    for (let n = 1; n <= 14; n++) {
      if ([ECOTONE_BLOCK, FJORD_BLOCK, ISTHMUS_BLOCK, JOVIAN_BLOCK].includes(n)) continue;
      assert.equal((await depositsOf(v, n)).length, 1, `block ${n} deposits`);
    }
    // Granite and Holocene have no upgrade txs: their activation blocks (7, 8) hold one deposit.
    assert.equal((await depositsOf(v, 8)).length, 1);
  });

  it("(b) the derived Ecotone, Fjord, Isthmus upgrade txs and Jovian deployments equal the published bytes (kona network-upgrade-txs)", async () => {
    const deps = await depositsOf(chain.v, ECOTONE_BLOCK);
    for (let i = 0; i < 6; i++) {
      const want = readFixtureTx(`ecotone_tx_${i}.hex`);
      assert.equal(hex(deps[1 + i]!), hex(want), `ecotone tx ${i}`);
    }
    const fj = await depositsOf(chain.v, FJORD_BLOCK);
    for (let i = 0; i < 3; i++) {
      assert.equal(hex(fj[2 + i]!), hex(readFixtureTx(`fjord_tx_${i}.hex`)), `fjord tx ${i}`);
    }
    const isth = await depositsOf(chain.v, ISTHMUS_BLOCK);
    for (let i = 0; i < 8; i++) {
      assert.equal(hex(isth[1 + i]!), hex(readFixtureTx(`isthmus_tx_${i}.hex`)), `isthmus tx ${i}`);
    }
    // Jovian: the published fixtures are the two deployment bytecodes (txs 0 and 2 of the upgrade).
    const jov = (await depositsOf(chain.v, JOVIAN_BLOCK)).map((t) => decodeTx(t));
    const deployData = (i: number): string => {
      const tx = jov[1 + i]!;
      assert.equal(tx.type, TxType.Deposit);
      assert.equal(tx.to, null, `jovian tx ${i} is a deployment`);
      return hex(tx.data);
    };
    assert.equal(deployData(0), hex(readFixtureTx("jovian-l1-block-deployment.hex")));
    assert.equal(deployData(2), hex(readFixtureTx("jovian-gas-price-oracle-deployment.hex")));
  });

  it("(b) the upgrade deployments land at the addresses the proxy updates point to", async () => {
    // The deployments and the L1-info deposit must succeed, and each proxy update must name a
    // contract deployed in its block. A deployment lands at CREATE(deployer, its nonce): the dev
    // genesis, as op-deployer's L2Genesis, gives the EIP-4788 and EIP-2935 deployers nonce 1 (their
    // contracts are preinstalled), so the Ecotone and Isthmus copies land beside them.
    const { v } = chain;
    for (const n of [ECOTONE_BLOCK, FJORD_BLOCK, ISTHMUS_BLOCK, JOVIAN_BLOCK]) {
      const raw = await v.engine.transactionsByNumber(n);
      const deployed: string[] = [];
      const proxyTargets: string[] = [];
      for (let i = 0; i < raw.length; i++) {
        const tx = decodeTx(raw[i]!);
        const rc = await v.exec.rpc.call<{ status: string; contractAddress: string | null }>(
          "eth_getTransactionReceipt",
          [hex(keccak256(raw[i]!))],
        );
        if (i === 0) assert.equal(rc.status, "0x1", `block ${n}: the L1-info deposit succeeds`);
        if (tx.type !== TxType.Deposit) continue;
        if (tx.to === null) {
          assert.equal(rc.status, "0x1", `block ${n} tx ${i}: deployment succeeds`);
          const nonce = BigInt(
            await v.exec.rpc.call<string>("eth_getTransactionCount", [hex(tx.from), `0x${(n - 1).toString(16)}`]),
          );
          const rlpNonce = nonce === 0n ? new Uint8Array(0) : hexToBytes(`0x${nonce.toString(16).padStart(2, "0")}`);
          const want = hex(keccak256(encodeRlp([tx.from, rlpNonce])).slice(12));
          assert.equal(rc.contractAddress?.toLowerCase(), want, `block ${n} tx ${i}: CREATE(deployer, ${nonce})`);
          deployed.push(want);
        } else if (tx.data.length === 36 && hex(tx.data.subarray(0, 4)) === "0x3659cfe6") {
          assert.equal(hex(tx.from), hex(new Uint8Array(20)), "proxy updates come from the zero address");
          proxyTargets.push(hex(tx.data.subarray(16, 36)));
        }
      }
      const wantCounts: Record<number, [number, number]> = {
        [ECOTONE_BLOCK]: [3, 2],
        [FJORD_BLOCK]: [1, 1],
        [ISTHMUS_BLOCK]: [4, 3],
        [JOVIAN_BLOCK]: [2, 2],
      };
      assert.deepEqual([deployed.length, proxyTargets.length], wantCounts[n], `block ${n} deployments, proxy updates`);
      for (const t of proxyTargets) assert.ok(deployed.includes(t), `block ${n}: proxy target ${t} deployed`);
    }
  });

  it("(c) the L1-info deposit layout: Bedrock through the Ecotone activation block, then Ecotone, Isthmus, Jovian", async () => {
    const { v } = chain;
    const want = (n: number): L1InfoFormat => {
      if (n <= ECOTONE_BLOCK) return L1InfoFormat.Bedrock;
      if (n <= ISTHMUS_BLOCK) return L1InfoFormat.Ecotone;
      if (n <= JOVIAN_BLOCK) return L1InfoFormat.Isthmus;
      return L1InfoFormat.Jovian;
    };
    for (let n = 1; n <= 14; n++) {
      const block = await v.engine.mustBlock(n);
      assert.ok(block.firstTxInput !== null);
      const info = parseL1BlockInfo(block.firstTxInput);
      assert.ok(info !== null, `block ${n} L1 info parses`);
      assert.equal(info.format, want(n), `block ${n} L1-info format`);
      assert.equal(Number(info.number), block.ref.l1origin.number);
      // The sequencer's block says the same.
      const seq = await chain.r.sequencer.engine.mustBlock(n);
      assert.equal(hex(seq.firstTxInput ?? new Uint8Array(0)), hex(block.firstTxInput));
    }
  });

  it("(d) a brotli channel before Fjord is ignored while the same blocks as zlib are derived; brotli after Fjord is", async () => {
    // Fjord at 48 s: L1 blocks 1–3 (t 12, 24, 36) are before it, L1 block 4 (t 48) after.
    const r = new Rollup({ forks: { fjord: 48, granite: null, holocene: null, isthmus: null, jovian: null } });
    await r.miner.mine();
    await r.sequencer.catchUpToL1();
    assert.equal(r.sequencer.unsafe.number, 6);
    await r.miner.mine(await r.batcher.batchTxs({ algo: "brotli" }));
    const log = recordingLog();
    const v = r.verifier(log);
    await sync(v, log);
    assert.equal(v.driver.syncStatus().currentL1.number, 2, "the verifier read L1 block 2");
    assert.equal(v.heads.safe.number, 0, "nothing derived from the brotli channel");
    assert.equal(v.heads.unsafe.number, 0);
    assert.ok(
      log.lines.some((l) => l.includes("brotli")),
      `a warning names brotli:\n${log.lines.join("\n")}`,
    );
    // The same blocks, zlib, still before Fjord.
    r.batcher.submitted = 0;
    await r.miner.mine(await r.batcher.batchTxs({ algo: "zlib" }));
    await sync(v, log);
    await assertSameChain(r, v, 6);
    // After Fjord a brotli channel is accepted.
    await r.sequencer.catchUpToL1();
    await r.sequencer.buildBlock();
    const upTo = r.sequencer.unsafe.number;
    await r.miner.mine();
    const l1 = await r.miner.mine(await r.batcher.batchTxs({ algo: "brotli", span: true }));
    assert.ok(l1.timestamp >= (r.cfg.fjordTime ?? Number.MAX_SAFE_INTEGER));
    await sync(v, log);
    await assertSameChain(r, v, upTo);
  });

  it("(e) a batch with a user tx in the Jovian activation block is dropped; the clean batch is derived", async () => {
    const r = new Rollup({ forks: FORKS });
    const wallet = new L2Wallet(devAccounts()[4]!);
    const injected = wallet.transfer(RECIPIENT, 1n);
    while (r.sequencer.unsafe.number < 5) await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    while (r.sequencer.unsafe.number < 11) await r.sequencer.buildBlock();
    await r.miner.mine(await r.batcher.batchTxs());
    while (r.sequencer.unsafe.number < 14) await r.sequencer.buildBlock();
    const jovian = await r.sequencer.engine.mustBlock(JOVIAN_BLOCK);
    assert.equal(jovian.ref.timestamp, r.cfg.jovianTime);
    // Blocks 12–14 with a transfer slipped into block 12's batch.
    let mutated = 0;
    const frames = await r.batcher.channelFrames({
      mutate: (batches) =>
        batches.map((b) => {
          if (b.timestamp !== r.cfg.jovianTime) return b;
          mutated++;
          return { ...b, transactions: [injected] };
        }),
    });
    assert.equal(mutated, 1);
    await r.miner.mine(r.batcher.txsFor(frames));
    const log = recordingLog();
    const v = r.verifier(log);
    await sync(v, log);
    assert.equal(v.driver.syncStatus().currentL1.number, 3, "the verifier read the bad batch's L1 block");
    assert.equal(v.heads.safe.number, JOVIAN_BLOCK - 1, "safe head stops before the Jovian activation block");
    await assertSameChain(r, v, JOVIAN_BLOCK - 1);
    // The same blocks without the injected tx (a span batch this time) are derived.
    r.batcher.submitted = JOVIAN_BLOCK - 1;
    await r.miner.mine(await r.batcher.batchTxs({ span: true }));
    await sync(v, log);
    await assertSameChain(r, v, 14);
  });

  it("(e) a span batch with a user tx in the Jovian activation block is dropped too", async () => {
    const r = new Rollup({ forks: FORKS });
    const wallet = new L2Wallet(devAccounts()[4]!);
    const injected = wallet.transfer(RECIPIENT, 1n);
    while (r.sequencer.unsafe.number < 5) await r.sequencer.buildBlock();
    await r.miner.mine();
    while (r.sequencer.unsafe.number < 11) await r.sequencer.buildBlock();
    await r.miner.mine();
    while (r.sequencer.unsafe.number < 14) await r.sequencer.buildBlock();
    // All blocks 1–14 in one span batch, block 12 with an injected tx.
    const txs = await r.batcher.batchTxs({
      span: true,
      mutate: (batches) =>
        batches.map((b) => (b.timestamp === r.cfg.jovianTime ? { ...b, transactions: [injected] } : b)),
    });
    await r.miner.mine(txs);
    const log = recordingLog();
    const v = r.verifier(log);
    await sync(v, log);
    assert.equal(v.heads.safe.number, JOVIAN_BLOCK - 1, "the span is derived up to the bad block only");
    await assertSameChain(r, v, JOVIAN_BLOCK - 1);
    r.batcher.submitted = JOVIAN_BLOCK - 1;
    await r.miner.mine(await r.batcher.batchTxs({ span: true }));
    await sync(v, log);
    await assertSameChain(r, v, 14);
  });

  it("(e) a sequencer block with a user tx at Jovian activation is never derived: the window expires into a deposit-only block", async () => {
    const r = new Rollup({ forks: FORKS, seqWindowSize: 4 });
    const wallet = new L2Wallet(devAccounts()[5]!);
    while (r.sequencer.unsafe.number < 5) await r.sequencer.buildBlock();
    await r.miner.mine();
    while (r.sequencer.unsafe.number < 11) await r.sequencer.buildBlock();
    await r.miner.mine();
    // The engine builds it (the rule is checked by derivation, on batches); derivation must refuse it.
    const bad = await r.sequencer.buildBlock([wallet.transfer(RECIPIENT, 5n)]);
    assert.equal(bad.number, JOVIAN_BLOCK);
    assert.equal(bad.timestamp, r.cfg.jovianTime);
    assert.equal((await r.sequencer.engine.transactionsByNumber(JOVIAN_BLOCK)).filter((t) => t[0] !== 0x7e).length, 1);
    await r.miner.mine(await r.batcher.batchTxs({ span: true }));
    const log = recordingLog();
    const v = r.verifier(log);
    await sync(v, log);
    assert.equal(v.heads.safe.number, JOVIAN_BLOCK - 1);
    await assertSameChain(r, v, JOVIAN_BLOCK - 1);
    // Epoch 2's window (2 + 4) closes at L1 block 7: derivation fills the epoch with empty batches.
    for (let i = 0; i < 4; i++) await r.miner.mine();
    await sync(v, log);
    assert.ok(v.heads.safe.number >= JOVIAN_BLOCK, `safe head ${v.heads.safe.number} moved past the gap`);
    const derived = await v.engine.mustBlock(JOVIAN_BLOCK);
    assert.notEqual(hex(derived.ref.hash), hex(bad.hash), "the verifier's Jovian block is not the sequencer's");
    assert.equal(hex(derived.ref.parentHash), hex(bad.parentHash));
    assert.equal(derived.ref.l1origin.number, 2);
    const txs = await v.engine.transactionsByNumber(JOVIAN_BLOCK);
    assert.deepEqual(txs.slice(1).map(hex), jovianUpgradeTxs().map(hex), "deposits only: L1 info + Jovian upgrade");
  });
});
