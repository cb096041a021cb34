/**
 * Karst (OP Upgrade 19) at the block level, on OP chains built here (Blockchain.buildBlock, then
 * the block's RLP imported into a second chain from the same genesis):
 * - EIP-7825's per-tx cap of 2^24 gas applies to normal txs from Karst: a block carrying one with
 *   2^24 + 1 is invalid at Karst and valid at Jovian, one with exactly 2^24 is valid at both, and the
 *   builder leaves an over-cap tx out;
 * - deposits are exempt ("already subject to a 20MGas limit", karst/exec-engine.md; op-revm
 *   handler.rs `validate_env` returns before the mainnet checks for type 0x7E): a deposit with 20M or
 *   30M gas executes and uses more than 2^24;
 * - EIP-7934's 8 MiB block RLP cap is L1 only: op-reth's consensus never checks it (reth checks it in
 *   consensus-common `post_merge_hardfork_fields`, which OpBeaconConsensus does not call).
 */
import { strict as assert } from "node:assert";
import { decodeBlock, encodeBlock } from "../../../src/block/block.js";
import type { Blockchain, BuiltBlock, TxSource } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { importBlock, isImportFailure, MAX_RLP_BLOCK_SIZE } from "../../../src/chain/importBlock.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import { rulesAt } from "../../../src/spec/chainConfig.js";
import { Fork, OpFork } from "../../../src/spec/forks.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { encodeL1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { type DepositTx, type SignedTx, TxType } from "../../../src/tx/tx.js";
import { l1Genesis, opGenesis } from "../../utils/genesis.js";
import { addr, chainOf, dyn, ETHER } from "../txpool/fixtures.js";

const CAP = 16_777_216n;
const DEPOSITOR = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
const L1_BLOCK = hexToBytes("0x4200000000000000000000000000000000000015");
const BURNER = hexToBytes("0x00000000000000000000000000000000000b0e00");
/**
 * Burns gas until at most 100,000 is left, then stops: JUMPDEST; PUSH3 100000; GAS; GT; PUSH1 0;
 * JUMPI; STOP (GT compares GAS > 100000 with GAS on top).
 */
const BURNER_CODE = hexToBytes("0x5b620186a05a1160005700");

/** The OP test genesis (Jovian at 0) with Karst at 0 when `karst`, and `gasLimit`. */
function genesisJson(karst: boolean, gasLimit = 30_000_000n): unknown {
  const json = opGenesis(
    new Map([
      [addr(1), { balance: 1000n * ETHER }],
      [BURNER, { balance: 0n, code: BURNER_CODE }],
    ]),
  ) as { config: Record<string, unknown>; gasLimit: string };
  if (karst) Object.assign(json.config, { karstTime: 0, osakaTime: 0 });
  json.gasLimit = `0x${gasLimit.toString(16)}`;
  return json;
}

/** The L1-attributes deposit opening block `n` (Jovian calldata). */
function l1Info(n: number): Uint8Array {
  const info = newL1BlockInfo({
    format: L1InfoFormat.Jovian,
    number: BigInt(n),
    timestamp: 1n,
    baseFee: 1_000_000_000n,
    blobBaseFee: 1n,
    hash: new Uint8Array(32).fill(n),
    baseFeeScalar: 1368,
    blobBaseFeeScalar: 810_949,
    daFootprintGasScalar: 400,
  });
  const sourceHash = new Uint8Array(32).fill(0xa0 + n);
  return encodeTx({
    type: TxType.Deposit,
    sourceHash,
    from: DEPOSITOR,
    to: L1_BLOCK,
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: false,
    data: encodeL1BlockInfo(info),
  });
}

function deposit(gasLimit: bigint, to: Uint8Array, data: Uint8Array = new Uint8Array(0), tag = 1): Uint8Array {
  const tx: DepositTx = {
    type: TxType.Deposit,
    sourceHash: new Uint8Array(32).fill(tag),
    from: addr(2),
    to,
    mint: 0n,
    value: 0n,
    gasLimit,
    isSystemTx: false,
    data,
  };
  return encodeTx(tx);
}

const EXTRA = Uint8Array.from([1, 0, 0, 0, 250, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]);

function build(chain: Blockchain, forced: Uint8Array[], pool: TxSource | null = null): BuiltBlock | string {
  const parent = chain.head;
  const built = chain.buildBlock({
    parentHash: chain.headBlockHash,
    timestamp: parent.timestamp + 2,
    feeRecipient: hexToBytes("0x00000000000000000000000000000000000000fe"),
    prevRandao: new Uint8Array(32).fill(3),
    gasLimit: parent.gasLimit,
    extraData: EXTRA,
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32).fill(4),
    forced,
    pool,
  });
  return "error" in built ? built.error : built;
}

function mustBuild(chain: Blockchain, forced: Uint8Array[], pool: TxSource | null = null): BuiltBlock {
  const b = build(chain, forced, pool);
  if (typeof b === "string") throw new Error(`build failed: ${b}`);
  chain.setHead(b.hash);
  return b;
}

function rlpOf(b: BuiltBlock): Uint8Array {
  return encodeBlock({ header: b.header, body: b.body });
}

function transfer(gas: bigint, nonce = 0): SignedTx {
  return dyn(1, nonce, { chainId: 901n, gas, maxFee: 10_000_000_000n, tip: 1n });
}

/** A pool source offering `txs` (sender addr(1)), recording what the builder rejected. */
function sourceOf(txs: SignedTx[]): TxSource & { rejected: number } {
  let i = 0;
  return {
    rejected: 0,
    next() {
      return i < txs.length ? { tx: txs[i++]!, sender: addr(1) } : null;
    },
    reject() {
      this.rejected++;
    },
  };
}

describe("chain: Karst blocks on an OP chain", function () {
  this.timeout(120_000);

  it("the Jovian and Karst test chains share their genesis block; Karst runs Osaka", () => {
    const j = chainOf(genesisJson(false));
    const k = chainOf(genesisJson(true));
    assert.deepEqual(j.headBlockHash, k.headBlockHash);
    assert.deepEqual(rulesAt(k.config, 1, 0x12), { fork: Fork.Osaka, op: OpFork.Karst });
    assert.deepEqual(rulesAt(j.config, 1, 0x12), { fork: Fork.Prague, op: OpFork.Jovian });
  });

  it("a normal tx above 2^24 gas makes a block invalid at Karst, valid at Jovian; 2^24 is valid at both", () => {
    const j = chainOf(genesisJson(false));
    const over = mustBuild(j, [l1Info(1), encodeTx(transfer(CAP + 1n))]);
    assert.equal(over.receipts.length, 2);
    const atKarst = chainOf(genesisJson(true)).insertBlock(rlpOf(over));
    assert.equal(atKarst.status, "INVALID");
    assert.equal(atKarst.error, "TX_INVALID[1]: GAS_LIMIT_CAP_EXCEEDED");
    assert.equal(chainOf(genesisJson(false)).insertBlock(rlpOf(over)).status, "VALID");

    const j2 = chainOf(genesisJson(false));
    const atCap = mustBuild(j2, [l1Info(1), encodeTx(transfer(CAP))]);
    const k = chainOf(genesisJson(true));
    const r = k.insertBlock(rlpOf(atCap));
    assert.equal(r.status, "VALID", r.error ?? "");
  });

  it("the builder leaves a tx above 2^24 out at Karst (pool and forced), and takes it at Jovian", () => {
    const k = chainOf(genesisJson(true));
    const src = sourceOf([transfer(CAP + 1n)]);
    const b = mustBuild(k, [l1Info(1)], src);
    assert.equal(b.body.transactions.length, 1, "only the L1-attributes deposit");
    assert.equal(src.rejected, 1);
    const forced = build(chainOf(genesisJson(true)), [l1Info(1), encodeTx(transfer(CAP + 1n))]);
    assert.equal(forced, "invalid transaction: GAS_LIMIT_CAP_EXCEEDED");

    const j = chainOf(genesisJson(false));
    const jsrc = sourceOf([transfer(CAP + 1n)]);
    assert.equal(mustBuild(j, [l1Info(1)], jsrc).body.transactions.length, 2);
    assert.equal(jsrc.rejected, 0);
  });

  it("deposits with 20M and 30M gas execute at Karst, using more than 2^24", () => {
    const k = chainOf(genesisJson(true, 60_000_000n));
    const b = mustBuild(k, [
      l1Info(1),
      deposit(20_000_000n, BURNER, undefined, 1),
      deposit(30_000_000n, BURNER, undefined, 2),
    ]);
    const [, r20, r30] = b.receipts;
    assert.equal(r20!.status, 1);
    assert.equal(r30!.status, 1);
    const used20 = r20!.cumulativeGasUsed - b.receipts[0]!.cumulativeGasUsed;
    const used30 = r30!.cumulativeGasUsed - r20!.cumulativeGasUsed;
    assert.ok(used20 > Number(CAP) && used20 < 20_000_000, `20M deposit used ${used20}`);
    assert.ok(used30 > 29_000_000 && used30 < 30_000_000, `30M deposit used ${used30}`);
    // A second node importing the block agrees.
    const r = chainOf(genesisJson(true, 60_000_000n)).insertBlock(rlpOf(b));
    assert.equal(r.status, "VALID", r.error ?? "");
  });

  it("no EIP-7934 size cap on L2: a Karst block above 8 MiB imports; the same bytes on an L1 Osaka chain are refused", () => {
    const k = chainOf(genesisJson(true));
    // A deposit with 8.5 MB of calldata cannot pay its intrinsic gas: it fails but stays in the block.
    const big = mustBuild(k, [l1Info(1), deposit(1_000_000n, BURNER, new Uint8Array(8_500_000), 3)]);
    assert.equal(big.receipts[1]!.status, 0);
    const rlp = rlpOf(big);
    assert.ok(rlp.length > MAX_RLP_BLOCK_SIZE, `block is ${rlp.length} bytes`);

    const k2 = chainOf(genesisJson(true));
    const r = k2.insertBlock(rlp);
    assert.equal(r.status, "VALID", r.error ?? "");

    // L1 Osaka: the size rule fires before anything else looks at the block.
    const l1 = parseGenesis(l1Genesis(new Map(), { pragueTime: 0, osakaTime: 0 })).config;
    assert.equal(rulesAt(l1, 1, 0x12).fork, Fork.Osaka);
    const parent = decodeBlock(rlp).header;
    const res = importBlock({ kv: new MemoryKv(), cfg: l1, blockHash: () => 0n }, parent, rlp);
    assert.ok(isImportFailure(res));
    assert.equal(res.error, "RLP_BLOCK_LIMIT_EXCEEDED");
  });
});
