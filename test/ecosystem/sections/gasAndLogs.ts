/**
 * eth_estimateGas of a transfer and of a contract call, and eth_getLogs / log filters with the
 * filters dapps build: by address and event, by indexed argument (one value, an OR of values), by
 * block hash and by block range.
 */
import { strict as assert } from "node:assert";
import { type EventLog, id, toBeHex, zeroPadValue } from "ethers";
import { type Address, getAddress, type Hash, toEventSelector } from "viem";
import { STORE_ABI, STORE_BYTECODE, VALUE_SET_EVENT } from "../artifacts.js";
import { ACCOUNT } from "../chains.js";
import { type Ctx, deployWithViem, ethersContract, receiptOf } from "../clients.js";

const VALUE_SET = "ValueSet(address,uint256,uint256)";

export function gasAndLogsSection(get: () => Ctx): void {
  describe("gas estimates and logs", () => {
    /** A Store deployed with 42, then set to 1 (viem), 2 (ethers), 3 (viem), one block each. */
    let store: Address;
    let fromBlock: bigint;
    const sets: { value: bigint; blockNumber: bigint; blockHash: Hash; txHash: Hash }[] = [];

    before(async () => {
      const ctx = get();
      const d = await deployWithViem(ctx, STORE_ABI, STORE_BYTECODE, [42n]);
      store = d.address;
      fromBlock = d.receipt.blockNumber;
      const es = ethersContract(store, STORE_ABI, ctx.signer);
      for (const value of [1n, 2n, 3n]) {
        if (value === 2n) {
          const tx = await es.getFunction("set")(value);
          const r = (await tx.wait(1, 10_000))!;
          sets.push({
            value,
            blockNumber: BigInt(r.blockNumber),
            blockHash: r.blockHash as Hash,
            txHash: r.hash as Hash,
          });
        } else {
          const hash = await ctx.wallet.writeContract({
            address: store,
            abi: STORE_ABI,
            functionName: "set",
            args: [value],
          });
          const r = await receiptOf(ctx, hash);
          sets.push({ value, blockNumber: r.blockNumber, blockHash: r.blockHash, txHash: hash });
        }
      }
    });

    it("eth_estimateGas of a plain transfer is 21000 (viem estimateGas, ethers provider.estimateGas)", async () => {
      const ctx = get();
      const viaViem = await ctx.pc.estimateGas({
        account: ACCOUNT.viemLocal.address,
        to: ACCOUNT.recipient.address,
        value: 1n,
      });
      assert.equal(viaViem, 21_000n);
      const viaEthers = await ctx.provider.estimateGas({
        from: ACCOUNT.ethersWallet.address,
        to: ACCOUNT.recipient.address,
        value: 1n,
      });
      assert.equal(viaEthers, 21_000n);
    });

    it("eth_estimateGas of a contract call is enough to send it, and no less than the gas it uses (viem, ethers)", async () => {
      const ctx = get();
      const call = { address: store, abi: STORE_ABI, functionName: "set", args: [10n] } as const;
      const est = await ctx.pc.estimateContractGas({ ...call, account: ctx.wallet.account });
      assert.ok(est > 21_000n, `estimate ${est}`);
      const r = await receiptOf(ctx, await ctx.wallet.writeContract({ ...call, gas: est }));
      assert.equal(r.status, "success");
      assert.ok(r.gasUsed <= est, `used ${r.gasUsed} > estimate ${est}`);

      const set = ethersContract(store, STORE_ABI, ctx.signer).getFunction("set");
      const estE = await set.estimateGas(11n);
      const rE = await (await set(11n, { gasLimit: estE })).wait(1, 10_000);
      assert.equal(rE?.status, 1);
      assert.ok(rE !== null && rE.gasUsed <= estE, `used ${rE?.gasUsed} > estimate ${estE}`);
    });

    it("viem getContractEvents / getLogs: by address and event, by indexed args (one value, an OR of values), by block hash", async () => {
      const ctx = get();
      const toBlock = sets[2]!.blockNumber;
      const all = await ctx.pc.getContractEvents({
        address: store,
        abi: STORE_ABI,
        eventName: "ValueSet",
        fromBlock,
        toBlock,
      });
      assert.deepEqual(
        all.map((l) => [l.args.previous, l.args.value, l.blockNumber, l.transactionHash]),
        sets.map((s, i) => [i === 0 ? 42n : sets[i - 1]!.value, s.value, s.blockNumber, s.txHash]),
      );
      assert.equal(all[1]!.args.setter, getAddress(ACCOUNT.ethersWallet.address));

      const event = VALUE_SET_EVENT;
      const mine = await ctx.pc.getLogs({
        address: store,
        event,
        args: { setter: ctx.wallet.account.address },
        fromBlock,
        toBlock,
      });
      assert.deepEqual(
        mine.map((l) => l.args.value),
        [1n, 3n],
      );
      const either = await ctx.pc.getLogs({ address: store, event, args: { previous: [1n, 2n] }, fromBlock, toBlock });
      assert.deepEqual(
        either.map((l) => l.args.value),
        [2n, 3n],
      );
      const byHash = await ctx.pc.getLogs({ address: store, event, blockHash: sets[1]!.blockHash });
      assert.deepEqual(
        byHash.map((l) => [l.args.value, l.blockHash]),
        [[2n, sets[1]!.blockHash]],
      );
      const none = await ctx.pc.getLogs({ address: store, event, fromBlock: 0n, toBlock: fromBlock - 1n });
      assert.deepEqual(none, []);
      assert.equal(toEventSelector(event), id(VALUE_SET));
    });

    it("viem createContractEventFilter + getFilterChanges / getFilterLogs (eth_newFilter) see later logs", async () => {
      const ctx = get();
      const filter = await ctx.pc.createContractEventFilter({ address: store, abi: STORE_ABI, eventName: "ValueSet" });
      try {
        assert.deepEqual(await ctx.pc.getFilterChanges({ filter }), []);
        await receiptOf(
          ctx,
          await ctx.wallet.writeContract({ address: store, abi: STORE_ABI, functionName: "set", args: [77n] }),
        );
        const changes = await ctx.pc.getFilterChanges({ filter });
        assert.deepEqual(
          changes.map((l) => l.args.value),
          [77n],
        );
        const logs = await ctx.pc.getFilterLogs({ filter });
        assert.deepEqual(
          logs.map((l) => l.args.value),
          [77n],
        );
      } finally {
        await ctx.pc.uninstallFilter({ filter });
      }
    });

    it("ethers queryFilter / provider.getLogs: by event and indexed arg, by an OR of topics, by block hash", async () => {
      const ctx = get();
      const c = ethersContract(store, STORE_ABI, ctx.provider);
      const toBlock = Number(sets[2]!.blockNumber);
      const from = Number(fromBlock);
      const byEthers = (await c.queryFilter(
        c.getEvent("ValueSet")(ACCOUNT.ethersWallet.address),
        from,
        toBlock,
      )) as EventLog[];
      assert.deepEqual(
        byEthers.map((l) => [...l.args]),
        [[getAddress(ACCOUNT.ethersWallet.address), 1n, 2n]],
      );
      const all = (await c.queryFilter("ValueSet", from, toBlock)) as EventLog[];
      assert.deepEqual(
        all.map((l) => l.args[2]),
        [1n, 2n, 3n],
      );

      const topic = (v: bigint) => zeroPadValue(toBeHex(v), 32);
      const either = await ctx.provider.getLogs({
        address: store,
        topics: [id(VALUE_SET), null, [topic(1n), topic(2n)]],
        fromBlock: from,
        toBlock,
      });
      assert.deepEqual(
        either.map((l) => l.transactionHash),
        [sets[1]!.txHash, sets[2]!.txHash],
      );
      const byHash = await ctx.provider.getLogs({ address: store, blockHash: sets[0]!.blockHash });
      assert.deepEqual(
        byHash.map((l) => [l.blockNumber, l.topics[2]]),
        [[Number(sets[0]!.blockNumber), topic(42n)]],
      );
    });
  });
}
