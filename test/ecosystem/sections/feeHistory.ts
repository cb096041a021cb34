/**
 * eth_feeHistory and the fee suggestions after blocks with transactions; on the OP chain every
 * block also opens with the L1-attributes deposit, which pays no fee at all (op-geth: a deposit's
 * effective tip is 0), and the chain's first block (genesis) has no transactions. viem's
 * `getFeeHistory` must not throw (its formatter rejects a negative quantity such as `0x-3b9aca00`),
 * and every number is checked against the blocks themselves: the base fees of the headers (the
 * last one, the next block's, against that block once it exists), gasUsed / gasLimit, and the
 * reward percentiles recomputed here as geth does (txs sorted by effective tip, weighted by the gas
 * their receipts used, against the block's gasUsed).
 */
import { strict as assert } from "node:assert";
import { toQuantity } from "ethers";
import { type Block, type Hash, parseGwei, type Transaction } from "viem";
import { ACCOUNT } from "../chains.js";
import { type Ctx, receiptOf } from "../clients.js";

const PERCENTILES = [0, 10, 50, 90, 100];
const TIP = parseGwei("1");
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/;
/** op-geth's floor for eth_maxPriorityFeePerGas on OP chains (gasprice.Config MinSuggestedPriorityFee). */
const OP_MIN_SUGGESTED_PRIORITY_FEE = 1_000_000n;

/** Every string under `v` that is not a hex quantity (path: value). */
function badQuantities(v: unknown, path = "result"): string[] {
  if (typeof v === "string") return QUANTITY.test(v) ? [] : [`${path}: ${v}`];
  if (Array.isArray(v)) return v.flatMap((x, i) => badQuantities(x, `${path}[${i}]`));
  if (typeof v === "object" && v !== null) {
    return Object.entries(v).flatMap(([k, x]) => badQuantities(x, `${path}.${k}`));
  }
  return [];
}

/** The tip `tx` pays the block producer at `baseFee`; a deposit pays none. */
function tipOf(tx: Transaction, baseFee: bigint): bigint {
  if ((tx.type as string) === "deposit") return 0n;
  if (tx.type === "legacy" || tx.type === "eip2930") return tx.gasPrice! - baseFee;
  const cap = tx.maxFeePerGas! - baseFee;
  return tx.maxPriorityFeePerGas! < cap ? tx.maxPriorityFeePerGas! : cap;
}

/** What geth's feeHistory answers as `block`'s rewards at `percentiles` (eth/gasprice/feehistory.go processBlock). */
async function expectedRewards(ctx: Ctx, block: Block<bigint, true>, percentiles: readonly number[]) {
  if (block.transactions.length === 0) return percentiles.map(() => 0n);
  const baseFee = block.baseFeePerGas!;
  const sorted = await Promise.all(
    block.transactions.map(async (tx) => ({
      reward: tipOf(tx, baseFee),
      gasUsed: (await ctx.pc.getTransactionReceipt({ hash: tx.hash })).gasUsed,
    })),
  );
  sorted.sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : 0));
  return percentiles.map((p) => {
    const threshold = BigInt(Math.floor((Number(block.gasUsed) * p) / 100));
    let i = 0;
    let sum = sorted[0]!.gasUsed;
    while (sum < threshold && i < sorted.length - 1) sum += sorted[++i]!.gasUsed;
    return sorted[i]!.reward;
  });
}

export function feeHistorySection(get: () => Ctx): void {
  describe("fee history and fee suggestions after blocks with transactions", () => {
    /** The last of three blocks, each with one transfer paying a 1 gwei tip; one more block follows it. */
    let last: bigint;
    let lastHash: Hash;

    before(async () => {
      const ctx = get();
      const send = async () => {
        const hash = await ctx.wallet.sendTransaction({
          to: ACCOUNT.recipient.address,
          value: 1n,
          maxPriorityFeePerGas: TIP,
          maxFeePerGas: parseGwei("100"),
        });
        return receiptOf(ctx, hash);
      };
      for (let i = 0; i < 3; i++) {
        const r = await send();
        last = r.blockNumber;
        lastHash = r.blockHash;
      }
      // The block after `last`, whose base fee the history's last entry predicts.
      assert.equal((await send()).blockNumber, last + 1n);
    });

    it("viem getFeeHistory with reward percentiles equals what the blocks, their txs and receipts say", async () => {
      const ctx = get();
      if (ctx.chain.kind === "op") {
        // The window holds deposits: each block opens with the L1-attributes deposit.
        const b = await ctx.pc.getBlock({ blockHash: lastHash, includeTransactions: true });
        assert.deepEqual(
          b.transactions.map((t) => t.type),
          ["deposit", "eip1559"],
        );
      }
      const h = await ctx.pc.getFeeHistory({ blockCount: 4, blockNumber: last, rewardPercentiles: PERCENTILES });
      assert.equal(h.oldestBlock, last - 3n);
      const blocks = await Promise.all(
        [0n, 1n, 2n, 3n, 4n].map((i) => ctx.pc.getBlock({ blockNumber: last - 3n + i, includeTransactions: true })),
      );
      assert.deepEqual(
        h.baseFeePerGas,
        blocks.map((b) => b.baseFeePerGas),
      );
      assert.deepEqual(
        h.gasUsedRatio,
        blocks.slice(0, 4).map((b) => Number(b.gasUsed) / Number(b.gasLimit)),
      );
      const expected = await Promise.all(blocks.slice(0, 4).map((b) => expectedRewards(ctx, b, PERCENTILES)));
      assert.deepEqual(h.reward, expected);
      // The three blocks of this section: their only fee-paying tx tips 1 gwei.
      for (const rs of h.reward!.slice(1)) assert.equal(rs[PERCENTILES.length - 1], TIP);
      if (ctx.chain.kind === "op") for (const rs of h.reward!.slice(1)) assert.equal(rs[0], 0n, "the deposit tips 0");
    });

    it("viem getFeeHistory over the whole chain, genesis (no txs) included, does not throw and agrees with the short window", async () => {
      const ctx = get();
      const head = await ctx.pc.getBlockNumber();
      const blockCount = Number(head) + 1;
      const all = await ctx.pc.getFeeHistory({ blockCount, blockTag: "latest", rewardPercentiles: PERCENTILES });
      assert.equal(all.oldestBlock, 0n);
      assert.equal(all.reward?.length, blockCount);
      assert.deepEqual(
        all.reward?.[0],
        PERCENTILES.map(() => 0n),
        "genesis has no txs",
      );
      for (const [i, rs] of all.reward!.entries()) {
        for (const r of rs) assert.ok(r >= 0n, `reward of block ${i}: ${rs}`);
      }
      const window = await ctx.pc.getFeeHistory({ blockCount: 4, blockNumber: last, rewardPercentiles: PERCENTILES });
      const from = Number(last) - 3;
      assert.deepEqual(all.reward?.slice(from, from + 4), window.reward);
      assert.deepEqual(all.baseFeePerGas.slice(from, from + 5), window.baseFeePerGas);
    });

    it("ethers provider.send('eth_feeHistory'): every quantity is a non-negative hex number, the same numbers as viem's", async () => {
      const ctx = get();
      const raw = await ctx.provider.send("eth_feeHistory", [toQuantity(4), toQuantity(last), PERCENTILES]);
      const { gasUsedRatio, blobGasUsedRatio, ...quantities } = raw as Record<string, unknown>;
      assert.deepEqual(badQuantities(quantities), []);
      for (const r of [...(gasUsedRatio as number[]), ...((blobGasUsedRatio as number[] | undefined) ?? [])]) {
        assert.ok(typeof r === "number" && r >= 0 && r <= 1, `ratio ${r}`);
      }
      const h = await ctx.pc.getFeeHistory({ blockCount: 4, blockNumber: last, rewardPercentiles: PERCENTILES });
      assert.equal(BigInt(raw.oldestBlock), h.oldestBlock);
      assert.deepEqual(raw.baseFeePerGas.map(BigInt), h.baseFeePerGas);
      assert.deepEqual(
        raw.reward.map((rs: string[]) => rs.map(BigInt)),
        h.reward,
      );
      if (ctx.chain.kind === "l1") {
        // No blob txs, excess blob gas 0: the blob base fee is its minimum, 1 wei.
        const headers = await Promise.all([0n, 1n, 2n, 3n].map((i) => ctx.pc.getBlock({ blockNumber: last - 3n + i })));
        assert.deepEqual(
          headers.map((b) => [b.excessBlobGas, b.blobGasUsed]),
          headers.map(() => [0n, 0n]),
        );
        assert.deepEqual(raw.baseFeePerBlobGas, ["0x1", "0x1", "0x1", "0x1", "0x1"]);
        assert.deepEqual(blobGasUsedRatio, [0, 0, 0, 0]);
      }
    });

    it("fee suggestions: ethers getFeeData and viem estimateFeesPerGas follow from eth_gasPrice, eth_maxPriorityFeePerGas and the base fee", async () => {
      const ctx = get();
      const fee = await ctx.provider.getFeeData();
      const viemFees = await ctx.pc.estimateFeesPerGas();
      // Nothing is mined between these reads: the dev chain seals only when a tx arrives.
      const gasPrice = BigInt(await ctx.provider.send("eth_gasPrice", []));
      const tip = BigInt(await ctx.provider.send("eth_maxPriorityFeePerGas", []));
      const baseFee = (await ctx.pc.getBlock()).baseFeePerGas!;
      assert.ok(gasPrice > 0n && baseFee > 0n);
      if (ctx.chain.kind === "op") assert.ok(tip >= OP_MIN_SUGGESTED_PRIORITY_FEE, `tip ${tip}`);
      // ethers: base fee * 2 + tip.
      assert.deepEqual([fee.gasPrice, fee.maxPriorityFeePerGas, fee.maxFeePerGas], [gasPrice, tip, baseFee * 2n + tip]);
      // viem: base fee * 1.2 + tip.
      assert.deepEqual(viemFees, { maxFeePerGas: (baseFee * 12n) / 10n + tip, maxPriorityFeePerGas: tip });
    });
  });
}
