/**
 * The replacement of an invalidated block (specs/interop/derivation.md "Replacing Invalid Blocks"):
 * the attributes keep the block's inputs and deposits only, then the optimistic block deposit, whose
 * source hash is domain 4 over the invalidated block's output root and whose data is that root's
 * preimage; decoding a replacement's last tx gives the invalidated output back.
 */
import { strict as assert } from "node:assert";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import type { PayloadEnvelope } from "../../../../src/rollup/engine/engineClient.js";
import {
  attributesToReplaceInvalidBlock,
  decodeOptimisticBlockDeposit,
  invalidatedBlockSourceHash,
  OPTIMISTIC_BLOCK_DEPOSITOR,
} from "../../../../src/rollup/interop/replacement.js";
import { decodeTx, encodeTx } from "../../../../src/tx/envelope.js";
import { type DepositTx, TxType } from "../../../../src/tx/tx.js";

const fill = (b: number, n = 32) => new Uint8Array(n).fill(b);

function deposit(tag: number): Uint8Array {
  const tx: DepositTx = {
    type: TxType.Deposit,
    sourceHash: fill(tag),
    from: fill(tag, 20),
    to: fill(tag + 1, 20),
    mint: 0n,
    value: 0n,
    gasLimit: 100_000n,
    isSystemTx: false,
    data: new Uint8Array([tag]),
  };
  return encodeTx(tx);
}

const forksFrom = (t: number | null, jovian: number | null) =>
  ({ holoceneTime: t, jovianTime: jovian, isthmusTime: t }) as unknown as RollupConfig;

function envelope(extraData: string): PayloadEnvelope {
  const userTx =
    "0x02f86b0180843b9aca00843b9aca0082520894000000000000000000000000000000000000000180c080a0" +
    "11".repeat(32) +
    "a0" +
    "22".repeat(32);
  return {
    executionPayload: {
      parentHash: bytesToHex(fill(1)),
      feeRecipient: bytesToHex(fill(2, 20)),
      stateRoot: bytesToHex(fill(3)),
      prevRandao: bytesToHex(fill(4)),
      gasLimit: "0x1c9c380",
      timestamp: "0x64",
      extraData,
      withdrawals: [],
      withdrawalsRoot: bytesToHex(fill(5)),
      transactions: [bytesToHex(deposit(7)), bytesToHex(deposit(8)), userTx],
    },
    parentBeaconBlockRoot: bytesToHex(fill(6)),
    blockHash: fill(9),
    number: 10,
    timestamp: 100,
  };
}

describe("rollup/interop/replacement", () => {
  it("keeps the inputs and deposits, drops user txs, appends the optimistic block deposit (Jovian)", () => {
    // Jovian extraData: version 1, denominator 250, elasticity 6, min base fee 1e9.
    const extra = `0x01000000fa00000006${1_000_000_000n.toString(16).padStart(16, "0")}`;
    const a = attributesToReplaceInvalidBlock(forksFrom(0, 0), envelope(extra));
    assert.equal(a.timestamp, 100);
    assert.equal(bytesToHex(a.prevRandao), bytesToHex(fill(4)));
    assert.equal(bytesToHex(a.suggestedFeeRecipient), bytesToHex(fill(2, 20)));
    assert.equal(a.gasLimit, 30_000_000n);
    assert.deepEqual(a.withdrawals, []);
    assert.equal(bytesToHex(a.parentBeaconBlockRoot!), bytesToHex(fill(6)));
    assert.equal(bytesToHex(a.eip1559Params!), "0x000000fa00000006");
    assert.equal(a.minBaseFee, 1_000_000_000n);
    assert.equal(a.noTxPool, true);
    assert.equal(a.transactions.length, 3, "two deposits and the optimistic block deposit");
    assert.equal(bytesToHex(a.transactions[0]!), bytesToHex(deposit(7)));
    assert.equal(bytesToHex(a.transactions[1]!), bytesToHex(deposit(8)));
    const opt = decodeTx(a.transactions[2]!) as DepositTx;
    assert.equal(opt.type, TxType.Deposit);
    assert.equal(bytesToHex(opt.from), bytesToHex(OPTIMISTIC_BLOCK_DEPOSITOR));
    assert.equal(bytesToHex(opt.to!), bytesToHex(new Uint8Array(20)));
    assert.equal(opt.gasLimit, 36_000n);
    assert.equal(opt.mint, 0n);
    assert.equal(opt.isSystemTx, false);
    const preimage = hexToBytes(`0x${"00".repeat(32)}${"03".repeat(32)}${"05".repeat(32)}${"09".repeat(32)}`);
    assert.equal(bytesToHex(opt.data), bytesToHex(preimage));
    const domain4 = hexToBytes(`0x${"00".repeat(31)}04`);
    const expected = keccak256(new Uint8Array([...domain4, ...keccak256(preimage)]));
    assert.equal(bytesToHex(opt.sourceHash), bytesToHex(expected));
    assert.equal(bytesToHex(invalidatedBlockSourceHash(keccak256(preimage))), bytesToHex(expected));
    const back = decodeOptimisticBlockDeposit(a.transactions);
    assert.equal(bytesToHex(back.blockHash), bytesToHex(fill(9)));
    assert.equal(bytesToHex(back.stateRoot), bytesToHex(fill(3)));
    assert.equal(bytesToHex(back.messagePasserStorageRoot), bytesToHex(fill(5)));
  });

  it("Holocene without Jovian: no min base fee; a block without withdrawalsRoot cannot be replaced", () => {
    const a = attributesToReplaceInvalidBlock(forksFrom(0, null), envelope("0x00000000fa00000006"));
    assert.equal(bytesToHex(a.eip1559Params!), "0x000000fa00000006");
    assert.equal(a.minBaseFee, null);
    const e = envelope("0x00000000fa00000006");
    delete (e.executionPayload as Record<string, unknown>).withdrawalsRoot;
    assert.throws(() => attributesToReplaceInvalidBlock(forksFrom(0, null), e), /no withdrawalsRoot/);
  });

  it("decoding refuses a block whose last tx is not an optimistic block deposit", () => {
    assert.throws(() => decodeOptimisticBlockDeposit([]), /expected block-replacement tx/);
    assert.throws(() => decodeOptimisticBlockDeposit([deposit(7)]), /optimistic block depositor/);
  });
});
