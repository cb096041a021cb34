/**
 * Contracts as a dapp uses them: deploy, read, write, wait for the receipt, and the revert reasons
 * the libraries decode from the node's `execution reverted` errors (the error's `data` carries the
 * revert output: `Error(string)` or a custom error).
 */
import { strict as assert } from "node:assert";
import { AbiCoder, ContractFactory, type EventLog, isError, keccak256 } from "ethers";
import { type Address, BaseError, ContractFunctionRevertedError, getAddress, parseEventLogs, zeroAddress } from "viem";
import {
  REVERT_REASON,
  REVERTER_ABI,
  REVERTER_BYTECODE,
  REVERTER_OK,
  STORE_ABI,
  STORE_BYTECODE,
  STORE_RUNTIME,
  UNAUTHORIZED_CODE,
  WRITE_REVERT_REASON,
} from "../artifacts.js";
import { ACCOUNT, EXPECTED_CHAIN_ID } from "../chains.js";
import { type Ctx, deployWithViem, describeError, ethersContract, receiptOf, thrown } from "../clients.js";

/** What the tests' Stores are deployed with. */
const STORED = 42n;

/** The `ContractFunctionRevertedError` inside a viem error, or a failed assertion naming what was thrown. */
function revertedError(e: unknown): ContractFunctionRevertedError {
  assert.ok(e instanceof BaseError, `expected a viem error, got ${describeError(e)}`);
  const r = e.walk((x) => x instanceof ContractFunctionRevertedError);
  assert.ok(r instanceof ContractFunctionRevertedError, `no ContractFunctionRevertedError in: ${describeError(e)}`);
  return r;
}

/** ethers' CALL_EXCEPTION, or a failed assertion naming what was thrown. */
function callException(e: unknown) {
  assert.ok(isError(e, "CALL_EXCEPTION"), `expected ethers CALL_EXCEPTION, got ${describeError(e)}`);
  return e;
}

export function contractsSection(get: () => Ctx): void {
  describe("contracts: deploy, read, write, receipts, revert reasons", () => {
    let reverter: Address;

    before(async () => {
      reverter = (await deployWithViem(get(), REVERTER_ABI, REVERTER_BYTECODE)).address;
    });

    it("viem: deployContract(Store), readContract (now and at the deployment block), writeContract, receipts with the event", async () => {
      const ctx = get();
      const me = ctx.wallet.account.address;
      const { address, receipt } = await deployWithViem(ctx, STORE_ABI, STORE_BYTECODE, [STORED]);
      assert.equal(await ctx.pc.getCode({ address }), STORE_RUNTIME);
      assert.equal(await ctx.pc.readContract({ address, abi: STORE_ABI, functionName: "value" }), STORED);

      const hash = await ctx.wallet.writeContract({
        address,
        abi: STORE_ABI,
        functionName: "set",
        args: [STORED + 1n],
      });
      const r = await receiptOf(ctx, hash);
      assert.equal(r.status, "success");
      assert.equal(getAddress(r.from), me);
      assert.equal(r.to && getAddress(r.to), address);
      assert.ok(r.blockNumber > receipt.blockNumber);
      const events = parseEventLogs({ abi: STORE_ABI, logs: r.logs, eventName: "ValueSet" });
      assert.equal(events.length, 1);
      assert.deepEqual(events[0]!.args, { setter: me, previous: STORED, value: STORED + 1n });
      assert.equal(events[0]!.transactionHash, hash);

      assert.equal(await ctx.pc.readContract({ address, abi: STORE_ABI, functionName: "value" }), STORED + 1n);
      const before = await ctx.pc.readContract({
        address,
        abi: STORE_ABI,
        functionName: "value",
        blockNumber: receipt.blockNumber,
      });
      assert.equal(before, STORED, "the value at the deployment block");
    });

    it("ethers: ContractFactory deploys Store; a Contract reads and writes it; tx.wait() returns the receipt with the event", async () => {
      const ctx = get();
      const factory = new ContractFactory(STORE_ABI, STORE_BYTECODE, ctx.signer);
      const deployed = await factory.deploy(STORED);
      await deployed.waitForDeployment();
      const address = await deployed.getAddress();
      assert.equal(await ctx.provider.getCode(address), STORE_RUNTIME);
      const store = ethersContract(address, STORE_ABI, ctx.signer);
      assert.equal(await store.getFunction("value")(), STORED);

      const tx = await store.getFunction("set")(STORED + 1n);
      const r = await tx.wait(1, 10_000);
      assert.ok(r !== null);
      assert.equal(r.status, 1);
      assert.equal(r.from, ctx.signer.address);
      assert.equal(r.logs.length, 1);
      const ev = r.logs[0] as EventLog;
      assert.equal(ev.eventName, "ValueSet");
      assert.deepEqual([...ev.args], [ctx.signer.address, STORED, STORED + 1n]);
      assert.equal(await store.getFunction("value")(), STORED + 1n);
      // The block before the write's (the deployment's: this account's txs are sealed one per block).
      assert.equal(await store.getFunction("value")({ blockTag: r.blockNumber - 1 }), STORED);
    });

    it("viem and ethers: Store.mix answers mulmod and keccak256(abi.encode(value, tag)) as computed here from the inputs", async () => {
      const ctx = get();
      const { address } = await deployWithViem(ctx, STORE_ABI, STORE_BYTECODE, [STORED]);
      // Operands whose product overflows 256 bits: the answer needs the EVM's 512-bit MULMOD.
      const a = 2n ** 255n + 12_345n;
      const b = 2n ** 200n * 3n + 1n;
      const m = 2n ** 251n - 9n;
      const tag = "opal ✓ ecosystem";
      const expectedDigest = keccak256(AbiCoder.defaultAbiCoder().encode(["uint256", "string"], [STORED, tag]));
      const [product, digest] = await ctx.pc.readContract({
        address,
        abi: STORE_ABI,
        functionName: "mix",
        args: [a, b, m, tag],
      });
      assert.equal(product, (a * b) % m);
      assert.equal(digest, expectedDigest);
      const viaEthers = await ethersContract(address, STORE_ABI, ctx.provider).getFunction("mix")(a, b, m, tag);
      assert.deepEqual([...viaEthers], [(a * b) % m, expectedDigest]);
    });

    it("viem: Store.context at a past block answers the sender, the chain id, that block's number and the sender's balance there", async () => {
      const ctx = get();
      const me = ctx.wallet.account.address;
      const { address, receipt } = await deployWithViem(ctx, STORE_ABI, STORE_BYTECODE, [STORED]);
      // A later block, so that "latest" and the deployment block differ in number and balance.
      await receiptOf(ctx, await ctx.wallet.sendTransaction({ to: ACCOUNT.recipient.address, value: 1n }));
      for (const blockNumber of [receipt.blockNumber, await ctx.pc.getBlockNumber()]) {
        const [sender, chainId, number, balance] = await ctx.pc.readContract({
          address,
          abi: STORE_ABI,
          functionName: "context",
          account: me,
          blockNumber,
        });
        assert.equal(sender, me);
        assert.equal(chainId, BigInt(EXPECTED_CHAIN_ID[ctx.chain.kind]));
        assert.equal(number, blockNumber);
        assert.equal(balance, await ctx.pc.getBalance({ address: me, blockNumber }));
      }
    });

    it("viem: a reverting call throws ContractFunctionRevertedError with the reason string, and with the custom error's name and args", async () => {
      const ctx = get();
      const e1 = await thrown(() =>
        ctx.pc.readContract({ address: reverter, abi: REVERTER_ABI, functionName: "failWithReason" }),
      );
      const r1 = revertedError(e1);
      assert.equal(r1.reason, REVERT_REASON);
      assert.equal(r1.data?.errorName, "Error");

      const e2 = await thrown(() =>
        ctx.pc.readContract({
          address: reverter,
          abi: REVERTER_ABI,
          functionName: "failWithCustomError",
          account: ACCOUNT.viemLocal.address,
        }),
      );
      const r2 = revertedError(e2);
      assert.equal(r2.data?.errorName, "Unauthorized");
      assert.deepEqual(r2.data?.args, [getAddress(ACCOUNT.viemLocal.address), UNAUTHORIZED_CODE]);

      // Without a sender the call runs from the zero address.
      const e3 = await thrown(() =>
        ctx.pc.readContract({ address: reverter, abi: REVERTER_ABI, functionName: "failWithCustomError" }),
      );
      assert.deepEqual(revertedError(e3).data?.args, [zeroAddress, UNAUTHORIZED_CODE]);
      assert.equal(
        await ctx.pc.readContract({ address: reverter, abi: REVERTER_ABI, functionName: "ok" }),
        REVERTER_OK,
      );
    });

    it("ethers: a reverting call throws CALL_EXCEPTION with the reason string, and with the custom error's name and args", async () => {
      const ctx = get();
      const c = ethersContract(reverter, REVERTER_ABI, ctx.signer);
      const e1 = callException(await thrown(() => c.getFunction("failWithReason").staticCall()));
      assert.equal(e1.reason, REVERT_REASON);
      assert.equal(e1.revert?.name, "Error");
      assert.deepEqual([...(e1.revert?.args ?? [])], [REVERT_REASON]);

      const e2 = callException(await thrown(() => c.getFunction("failWithCustomError").staticCall()));
      assert.equal(e2.revert?.name, "Unauthorized");
      assert.deepEqual([...(e2.revert?.args ?? [])], [ctx.signer.address, UNAUTHORIZED_CODE]);
      assert.equal(await c.getFunction("ok")(), REVERTER_OK);
    });

    it("viem: a reverting write fails in simulateContract and writeContract with the reason; with a fixed gas limit it is mined as reverted", async () => {
      const ctx = get();
      const account = ctx.wallet.account;
      const write = { address: reverter, abi: REVERTER_ABI, functionName: "writeOrRevert" } as const;
      const sim = await thrown(() => ctx.pc.simulateContract({ ...write, args: [0n], account }));
      assert.equal(revertedError(sim).reason, WRITE_REVERT_REASON);
      // writeContract estimates the gas first: eth_estimateGas reverts with the same reason.
      const est = await thrown(() => ctx.wallet.writeContract({ ...write, args: [0n] }));
      assert.equal(revertedError(est).reason, WRITE_REVERT_REASON);

      const forced = await ctx.wallet.writeContract({ ...write, args: [0n], gas: 100_000n });
      const r = await receiptOf(ctx, forced);
      assert.equal(r.status, "reverted");
      assert.ok(r.gasUsed > 21_000n && r.gasUsed < 100_000n, `gasUsed ${r.gasUsed}`);

      const before = await ctx.pc.readContract({ address: reverter, abi: REVERTER_ABI, functionName: "writes" });
      const okHash = await ctx.wallet.writeContract({ ...write, args: [5n] });
      assert.equal((await receiptOf(ctx, okHash)).status, "success");
      const after = await ctx.pc.readContract({ address: reverter, abi: REVERTER_ABI, functionName: "writes" });
      assert.equal(after, before + 5n);
    });

    it("ethers: a reverting write fails at estimateGas with CALL_EXCEPTION and the reason; with a gasLimit it is mined and tx.wait() throws CALL_EXCEPTION", async () => {
      const ctx = get();
      const c = ethersContract(reverter, REVERTER_ABI, ctx.signer);
      const fn = c.getFunction("writeOrRevert");
      const est = callException(await thrown(() => fn.estimateGas(0n)));
      assert.equal(est.reason, WRITE_REVERT_REASON);
      const send = callException(await thrown(() => fn(0n)));
      assert.equal(send.reason, WRITE_REVERT_REASON);

      const tx = await fn(0n, { gasLimit: 100_000n });
      const mined = callException(await thrown(() => tx.wait(1, 10_000)));
      assert.equal(mined.receipt?.status, 0);
      assert.equal(mined.receipt?.hash, tx.hash);

      const ok = await fn(5n);
      assert.equal((await ok.wait(1, 10_000))?.status, 1);
    });
  });
}
