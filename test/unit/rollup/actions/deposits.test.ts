/**
 * Action tests of user deposits (op-e2e actions deposit tests): `TransactionDeposited` logs of the
 * portal in an L1 block become deposit txs of the first L2 block whose L1 origin it is, right after
 * the L1-info deposit, with source hashes over the block-wide log index; the mint is credited on L2,
 * a creation deposit deploys a contract, a failed L1 tx yields nothing, later blocks of the epoch
 * carry no deposits, and a verifier derives the identical chain.
 */
import { strict as assert } from "node:assert";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { concatBytes, utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { encodeRlp } from "../../../../src/rlp/encode.js";
import { DEPOSIT_EVENT_TOPIC, userDepositSourceHash } from "../../../../src/rollup/derive/depositLog.js";
import type { L1BlockRef } from "../../../../src/rollup/refs.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { type DepositTx, TxType } from "../../../../src/tx/tx.js";
import { L1Miner, PORTAL, SYSTEM_CONFIG } from "../../../utils/actions/l1Miner.js";
import { Rollup, recordingLog, type Verifier } from "../../../utils/actions/rollup.js";

const hex = (b: Uint8Array): string => bytesToHex(b);
const ETH = 10n ** 18n;

/** Senders and recipients of the deposits (fresh L2 accounts). */
const SENDER_A = hexToBytes("0x000000000000000000000000000000000000a0a0");
const RECIPIENT_A = hexToBytes("0x000000000000000000000000000000000000b0b0");
const SENDER_B = hexToBytes("0x000000000000000000000000000000000000c0c0");
const SENDER_FAIL = hexToBytes("0x000000000000000000000000000000000000f0f0");
const RECIPIENT_FAIL = hexToBytes("0x000000000000000000000000000000000000f1f1");
const SENDER_C = hexToBytes("0x000000000000000000000000000000000000d0d0");
const RECIPIENT_C = hexToBytes("0x000000000000000000000000000000000000e0e0");

/** Runtime code that returns 42; the init code copies and returns it. */
const RUNTIME = hexToBytes("0x602a60005260206000f3");
const INIT_CODE = concatBytes(hexToBytes("0x600a600c600039600a6000f3"), RUNTIME);

interface Deposit {
  readonly from: Uint8Array;
  readonly to: Uint8Array;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gas: bigint;
  readonly creation: boolean;
  readonly data: Uint8Array;
}

/** Version-0 opaque data: mint(32) ‖ value(32) ‖ gasLimit(8) ‖ isCreation(1) ‖ data. */
function opaque(d: Deposit): Uint8Array {
  const g = new Uint8Array(8);
  new DataView(g.buffer).setBigUint64(0, d.gas);
  return concatBytes(bigintToBytes32(d.mint), bigintToBytes32(d.value), g, Uint8Array.of(d.creation ? 1 : 0), d.data);
}

/** The deposit tx derivation must produce for `d` at block-wide log index `logIndex` of `l1`. */
function expectedDeposit(d: Deposit, l1: L1BlockRef, logIndex: number): Uint8Array {
  const tx: DepositTx = {
    type: TxType.Deposit,
    sourceHash: userDepositSourceHash(l1.hash, logIndex),
    from: d.from,
    to: d.creation ? null : d.to,
    mint: d.mint,
    value: d.value,
    gasLimit: d.gas,
    isSystemTx: false,
    data: d.data,
  };
  return encodeTx(tx);
}

/** Gas an L1 tx with `data` needs before execution (Prague: max of intrinsic and the EIP-7623 floor). */
function l1IntrinsicGas(data: Uint8Array): { intrinsic: bigint; floor: bigint } {
  let zeros = 0n;
  let nonZeros = 0n;
  for (const b of data) {
    if (b === 0) zeros++;
    else nonZeros++;
  }
  return { intrinsic: 21_000n + 4n * zeros + 16n * nonZeros, floor: 21_000n + 10n * (zeros + 4n * nonZeros) };
}

const DEP_A: Deposit = {
  from: SENDER_A,
  to: RECIPIENT_A,
  mint: 3n * ETH,
  value: 1n * ETH,
  gas: 100_000n,
  creation: false,
  data: new Uint8Array(0),
};
const DEP_B: Deposit = {
  from: SENDER_B,
  to: new Uint8Array(20),
  mint: 0n,
  value: 0n,
  gas: 500_000n,
  creation: true,
  data: INIT_CODE,
};
/** The deposit the out-of-gas L1 tx would have made (1 KiB of zero data makes the log too dear). */
const DEP_FAIL: Deposit = {
  from: SENDER_FAIL,
  to: RECIPIENT_FAIL,
  mint: 99n * ETH,
  value: 99n * ETH,
  gas: 100_000n,
  creation: false,
  data: new Uint8Array(1024),
};
const DEP_C: Deposit = {
  from: SENDER_C,
  to: RECIPIENT_C,
  mint: 5n,
  value: 5n,
  gas: 50_000n,
  creation: false,
  data: utf8ToBytes("hi"),
};

interface DepositChain {
  readonly r: Rollup;
  readonly v: Verifier;
  /** L1 block 1 (deposits A, B and the failed one) and L1 block 2 (deposit C). */
  readonly l1a: L1BlockRef;
  readonly l1b: L1BlockRef;
  readonly failedTx: Uint8Array;
  readonly unrelatedTxs: Uint8Array[];
}

async function balance(exec: { rpc: { call<T>(m: string, p: unknown[]): Promise<T> } }, a: Uint8Array) {
  return BigInt(await exec.rpc.call<string>("eth_getBalance", [hex(a), "latest"]));
}

/**
 * L2 blocks 1–5 on L1 genesis; L1 block 1 = [unrelated portal log, unrelated system-config log,
 * failed deposit, deposit A, deposit B]; L2 6–11 on it; L1 block 2 = [deposit C, batches 1–11];
 * L2 12–14 on it; L1 block 3 = [batches 12–14].
 */
async function buildDepositChain(): Promise<DepositChain> {
  const r = new Rollup();
  const m = r.miner;
  const acct = m.accounts[0]!;
  while (r.sequencer.unsafe.number < 5) await r.sequencer.buildBlock();
  const otherTopic = keccak256(utf8ToBytes("Unrelated(uint256)"));
  const word = (n: number): Uint8Array => bigintToBytes32(BigInt(n));
  const unrelatedTxs = [
    // The portal emits a log that is not TransactionDeposited (log 0 of the block).
    m.tx(acct, PORTAL, concatBytes(otherTopic, word(1), word(2), word(3), word(4))),
    // The system config emits a log that is not ConfigUpdate (log 1).
    m.tx(acct, SYSTEM_CONFIG, concatBytes(otherTopic, word(5), word(6), word(7))),
  ];
  const failCall = L1Miner.depositCall(DEP_FAIL.from, DEP_FAIL.to, opaque(DEP_FAIL), DEPOSIT_EVENT_TOPIC);
  const g = l1IntrinsicGas(failCall);
  const failedTx = m.tx(acct, PORTAL, failCall, g.floor > g.intrinsic ? g.floor : g.intrinsic + 100n);
  const depA = m.tx(acct, PORTAL, L1Miner.depositCall(DEP_A.from, DEP_A.to, opaque(DEP_A), DEPOSIT_EVENT_TOPIC));
  const depB = m.tx(acct, PORTAL, L1Miner.depositCall(DEP_B.from, DEP_B.to, opaque(DEP_B), DEPOSIT_EVENT_TOPIC));
  const l1a = await m.mine([...unrelatedTxs, failedTx, depA, depB]);
  await r.sequencer.catchUpToL1();
  while (r.sequencer.unsafe.number < 11) await r.sequencer.buildBlock();
  const depC = m.tx(acct, PORTAL, L1Miner.depositCall(DEP_C.from, DEP_C.to, opaque(DEP_C), DEPOSIT_EVENT_TOPIC));
  const l1b = await m.mine([depC, ...(await r.batcher.batchTxs())]);
  await r.sequencer.catchUpToL1();
  while (r.sequencer.unsafe.number < 14) await r.sequencer.buildBlock();
  await m.mine(await r.batcher.batchTxs({ span: true }));
  const log = recordingLog();
  const v = r.verifier(log);
  try {
    await v.sync();
  } catch (e) {
    console.log(log.lines.join("\n"));
    throw e;
  }
  return { r, v, l1a, l1b, failedTx, unrelatedTxs };
}

describe("actions: user deposits", function () {
  this.timeout(60_000);
  let chain: DepositChain;

  before(async () => {
    chain = await buildDepositChain();
  });

  it("the L1 block has the expected logs: two unrelated, none for the failed tx, then the two deposits", async () => {
    const rpc = chain.r.miner.exec.rpc;
    const receipt = (tx: Uint8Array) =>
      rpc.call<{ status: string; logs: { logIndex: string }[] }>("eth_getTransactionReceipt", [hex(keccak256(tx))]);
    const block = await rpc.call<{ transactions: string[] }>("eth_getBlockByHash", [hex(chain.l1a.hash), false]);
    assert.equal(block.transactions.length, 5);
    const failed = await receipt(chain.failedTx);
    assert.equal(failed.status, "0x0", "the deposit tx with too little gas fails on L1");
    assert.equal(failed.logs.length, 0);
    const logIndexes: string[] = [];
    for (const h of block.transactions) {
      const rc = await rpc.call<{ logs: { logIndex: string }[] }>("eth_getTransactionReceipt", [h]);
      for (const l of rc.logs) logIndexes.push(l.logIndex);
    }
    assert.deepEqual(logIndexes, ["0x0", "0x1", "0x2", "0x3"]);
  });

  it("the sequencer takes the deposits' L1 block as the origin of block 6", async () => {
    const ref = (await chain.r.sequencer.engine.mustBlock(6)).ref;
    assert.equal(hex(ref.l1origin.hash), hex(chain.l1a.hash));
    assert.equal(ref.sequenceNumber, 0);
    assert.equal((await chain.r.sequencer.engine.mustBlock(5)).ref.l1origin.number, 0);
    const ref12 = (await chain.r.sequencer.engine.mustBlock(12)).ref;
    assert.equal(hex(ref12.l1origin.hash), hex(chain.l1b.hash));
    assert.equal(ref12.sequenceNumber, 0);
  });

  it("the epoch's first block carries the deposits right after the L1-info tx, source hashes by block-wide log index", async () => {
    for (const engine of [chain.r.sequencer.engine, chain.v.engine]) {
      const txs = await engine.transactionsByNumber(6);
      assert.equal(txs.length, 3, "L1 info + deposits A and B, nothing for the failed tx");
      assert.equal(txs[0]![0], 0x7e);
      assert.equal(hex(txs[1]!), hex(expectedDeposit(DEP_A, chain.l1a, 2)), "deposit A at log index 2");
      assert.equal(hex(txs[2]!), hex(expectedDeposit(DEP_B, chain.l1a, 3)), "deposit B at log index 3");
      // Not the per-receipt or per-deposit index.
      assert.notEqual(hex(txs[1]!), hex(expectedDeposit(DEP_A, chain.l1a, 0)));
      const txs12 = await engine.transactionsByNumber(12);
      assert.equal(txs12.length, 2);
      assert.equal(hex(txs12[1]!), hex(expectedDeposit(DEP_C, chain.l1b, 0)), "deposit C at log index 0");
    }
  });

  it("deposits appear only in the first block of their epoch", async () => {
    for (let n = 1; n <= 14; n++) {
      const txs = await chain.v.engine.transactionsByNumber(n);
      const deposits = txs.filter((t) => t[0] === 0x7e).length;
      const want = n === 6 ? 3 : n === 12 ? 2 : 1;
      assert.equal(deposits, want, `block ${n} deposits`);
      assert.equal(txs.length, want, `block ${n} has no other txs`);
    }
  });

  it("the mint is credited on L2, the value moved, and the creation deposit deployed its contract", async () => {
    const created = keccak256(encodeRlp([SENDER_B, new Uint8Array(0)])).slice(12);
    for (const exec of [chain.r.sequencer.exec, chain.v.exec]) {
      assert.equal(await balance(exec, RECIPIENT_A), 1n * ETH);
      assert.equal(await balance(exec, SENDER_A), 2n * ETH);
      assert.equal(await balance(exec, RECIPIENT_C), 5n);
      assert.equal(await balance(exec, SENDER_C), 0n);
      assert.equal(await balance(exec, RECIPIENT_FAIL), 0n, "no deposit from the failed L1 tx");
      assert.equal(await balance(exec, SENDER_FAIL), 0n);
      const code = await exec.rpc.call<string>("eth_getCode", [hex(created), "latest"]);
      assert.equal(code, hex(RUNTIME));
      const txs = await chain.v.engine.transactionsByNumber(6);
      const rcA = await exec.rpc.call<{ status: string }>("eth_getTransactionReceipt", [hex(keccak256(txs[1]!))]);
      assert.equal(rcA.status, "0x1");
      const rcB = await exec.rpc.call<{ status: string; contractAddress: string }>("eth_getTransactionReceipt", [
        hex(keccak256(txs[2]!)),
      ]);
      assert.equal(rcB.status, "0x1");
      assert.equal(rcB.contractAddress.toLowerCase(), hex(created));
    }
  });

  it("the verifier derives the identical chain, block by block", async () => {
    const { r, v } = chain;
    assert.equal(v.heads.safe.number, 14);
    for (let n = 1; n <= 14; n++) {
      const want = await r.sequencer.engine.mustBlock(n);
      const got = await v.engine.mustBlock(n);
      assert.equal(hex(got.ref.hash), hex(want.ref.hash), `block ${n} hash`);
      assert.deepEqual(
        (await v.engine.transactionsByNumber(n)).map(hex),
        (await r.sequencer.engine.transactionsByNumber(n)).map(hex),
        `block ${n} txs`,
      );
    }
    assert.equal(hex(v.heads.safe.hash), hex(r.sequencer.unsafe.hash));
  });
});
