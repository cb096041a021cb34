/**
 * Creation calls: `eth_call` without `to` runs the data as init code and answers what the
 * constructor returns (or reverts with), as geth does. A plain init code returns the runtime code
 * it would deploy; viem's deployless reads wrap the call in a constructor that deploys the code,
 * calls it and returns (or reverts with) the call's output: `readContract({code})`, and Multicall3's
 * bytecode (which viem ships) for `multicall({deployless: true})` and for a client with
 * `batch: {multicall: {deployless: true}}`. The L1 dev chain has no Multicall3, as geth --dev has
 * none; on the OP dev chain it is the preinstall at 0xcA11…CA11 (OP Stack preinstalls), which a
 * viem chain declaring it (as viem's `optimism` does) reads through, by `multicall()` and by
 * `batch.multicall`. Each test checks, in the recorded traffic, that the reads went in one eth_call
 * of the expected shape.
 */
import { strict as assert } from "node:assert";
import {
  type Address,
  BaseError,
  type Chain,
  ChainDoesNotSupportContract,
  ContractFunctionRevertedError,
  createPublicClient,
  deploylessCallViaBytecodeBytecode,
  encodeAbiParameters,
  encodeDeployData,
  getAddress,
  type Hex,
  keccak256,
  type PublicClient,
  parseAbi,
  type Transport,
} from "viem";
import {
  MULTICALL3,
  REVERT_REASON,
  REVERTER_ABI,
  REVERTER_BYTECODE,
  REVERTER_OK,
  STORE_ABI,
  STORE_BYTECODE,
  STORE_RUNTIME,
} from "../artifacts.js";
import { ACCOUNT, type ChainKind, EXPECTED_CHAIN_ID } from "../chains.js";
import { type Ctx, deployWithViem, describeError, httpTransport } from "../clients.js";
import type { RpcCall } from "../rpcRecorder.js";

const STORED = 42n;
const STORE_INIT = encodeDeployData({ abi: STORE_ABI, bytecode: STORE_BYTECODE, args: [STORED] });
/** aggregate3((address,bool,bytes)[]): what every multicall sends. */
const AGGREGATE3 = "0x82ad56cb";
/** Multicall3's own reads (mds1/multicall Multicall3.sol). */
const MULTICALL3_READS = parseAbi([
  "function getChainId() view returns (uint256 chainid)",
  "function getEthBalance(address addr) view returns (uint256 balance)",
]);

/** Store.mix's answer, computed here: (a*b mod m, keccak256(abi.encode(stored, tag))). */
function mixOf(a: bigint, b: bigint, m: bigint, tag: string): readonly [bigint, Hex] {
  return [(a * b) % m, keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "string" }], [STORED, tag]))];
}

/** The ContractFunctionRevertedError in a viem error (or a failed assertion naming what was thrown). */
function revertOf(e: unknown): ContractFunctionRevertedError {
  assert.ok(e instanceof BaseError, `expected a viem error, got ${describeError(e)}`);
  const r = e.walk((x) => x instanceof ContractFunctionRevertedError);
  assert.ok(r instanceof ContractFunctionRevertedError, `no ContractFunctionRevertedError in: ${describeError(e)}`);
  return r;
}

/** The one eth_call a test expects, with its `to` and `data`. */
function onlyCall(calls: readonly RpcCall[]): { to: string | undefined; data: Hex; call: RpcCall } {
  assert.equal(calls.length, 1, `expected one eth_call, saw ${calls.length}`);
  const call = calls[0]!;
  const tx = call.params[0] as { to?: string; data?: Hex; input?: Hex };
  const data = tx.data ?? tx.input;
  assert.ok(data !== undefined, "the eth_call has no data");
  return { to: tx.to ?? undefined, data, call };
}

export function creationCallsSection(get: () => Ctx, kind: ChainKind): void {
  describe("creation calls (eth_call without `to`) and multicall, deployless and through Multicall3", () => {
    let store: Address;
    let reverter: Address;
    const mix = { a: 2n ** 255n + 3n, b: 2n ** 129n + 7n, m: 2n ** 250n - 5n, tag: "deployless" } as const;

    before(async () => {
      store = (await deployWithViem(get(), STORE_ABI, STORE_BYTECODE, [STORED])).address;
      reverter = (await deployWithViem(get(), REVERTER_ABI, REVERTER_BYTECODE)).address;
    });

    /** The reads every multicall test makes: Store.value, Store.mix, Reverter.ok, Reverter.failWithReason. */
    const reads = () =>
      [
        { address: store, abi: STORE_ABI, functionName: "value" },
        { address: store, abi: STORE_ABI, functionName: "mix", args: [mix.a, mix.b, mix.m, mix.tag] },
        { address: reverter, abi: REVERTER_ABI, functionName: "ok" },
        { address: reverter, abi: REVERTER_ABI, functionName: "failWithReason" },
      ] as const;

    /** The same reads as concurrent readContracts (which a batching client folds into one eth_call). */
    const readConcurrently = (pc: PublicClient<Transport, Chain>) => {
      const [value, mixed, ok, failing] = reads();
      return Promise.allSettled([
        pc.readContract(value),
        pc.readContract(mixed),
        pc.readContract(ok),
        pc.readContract(failing),
      ]);
    };

    it("viem: call({data: initCode}) answers the runtime code that the deployment leaves", async () => {
      const ctx = get();
      const mark = ctx.chain.recorder.mark();
      const { data } = await ctx.pc.call({ data: STORE_INIT });
      assert.equal(data, STORE_RUNTIME);
      assert.equal(data, await ctx.pc.getCode({ address: store }));
      assert.equal(onlyCall(ctx.chain.recorder.calls("eth_call", mark)).to, undefined);
    });

    it("viem: readContract({code}) reads a contract that was never deployed, and decodes its revert", async () => {
      const ctx = get();
      const mark = ctx.chain.recorder.mark();
      assert.equal(await ctx.pc.readContract({ code: STORE_INIT, abi: STORE_ABI, functionName: "value" }), STORED);
      const sent = onlyCall(ctx.chain.recorder.calls("eth_call", mark));
      assert.equal(sent.to, undefined, "a deployless read is a creation call");
      assert.ok(sent.data.startsWith(deploylessCallViaBytecodeBytecode), "viem's deployless wrapper");

      const mixed = await ctx.pc.readContract({
        code: STORE_INIT,
        abi: STORE_ABI,
        functionName: "mix",
        args: [mix.a, mix.b, mix.m, mix.tag],
      });
      assert.deepEqual(mixed, mixOf(mix.a, mix.b, mix.m, mix.tag));
      assert.equal(
        await ctx.pc.readContract({ code: REVERTER_BYTECODE, abi: REVERTER_ABI, functionName: "ok" }),
        REVERTER_OK,
      );
      const e = await ctx.pc
        .readContract({ code: REVERTER_BYTECODE, abi: REVERTER_ABI, functionName: "failWithReason" })
        .then(
          () => null,
          (x: unknown) => x,
        );
      assert.equal(revertOf(e).reason, REVERT_REASON);
    });

    it("viem: multicall({deployless: true}) aggregates the reads in one creation call of Multicall3's bytecode, a revert among them", async () => {
      const ctx = get();
      const mark = ctx.chain.recorder.mark();
      const [value, mixed, ok, failed] = await ctx.pc.multicall({ deployless: true, contracts: reads() });
      assert.deepEqual(value, { status: "success", result: STORED });
      assert.deepEqual(mixed, { status: "success", result: mixOf(mix.a, mix.b, mix.m, mix.tag) });
      assert.deepEqual(ok, { status: "success", result: REVERTER_OK });
      assert.equal(failed.status, "failure");
      assert.equal(revertOf(failed.error).reason, REVERT_REASON);
      const sent = onlyCall(ctx.chain.recorder.calls("eth_call", mark));
      assert.equal(sent.to, undefined);
      assert.ok(sent.data.startsWith(deploylessCallViaBytecodeBytecode), "viem's deployless wrapper");
      assert.ok(sent.data.includes(AGGREGATE3.slice(2)), "an aggregate3 call");
    });

    it("viem: a client with batch.multicall {deployless: true} folds concurrent readContracts into one creation call", async () => {
      const ctx = get();
      const pc = createPublicClient({
        chain: ctx.chain.viemChain,
        transport: httpTransport(ctx.chain),
        batch: { multicall: { deployless: true } },
        cacheTime: 0,
      });
      const mark = ctx.chain.recorder.mark();
      const [value, mixed, ok, failed] = await readConcurrently(pc);
      assert.deepEqual(value, { status: "fulfilled", value: STORED });
      assert.deepEqual(mixed, { status: "fulfilled", value: mixOf(mix.a, mix.b, mix.m, mix.tag) });
      assert.deepEqual(ok, { status: "fulfilled", value: REVERTER_OK });
      assert.equal(failed?.status, "rejected");
      assert.equal(revertOf(failed.reason).reason, REVERT_REASON);
      const sent = onlyCall(ctx.chain.recorder.calls("eth_call", mark));
      assert.equal(sent.to, undefined);
      assert.ok(sent.data.startsWith(deploylessCallViaBytecodeBytecode), "viem's deployless wrapper");
    });

    it("ethers: provider.call({data: initCode}) answers the runtime code; estimateGas({data}) is enough to deploy it", async () => {
      const ctx = get();
      assert.equal(await ctx.provider.call({ data: STORE_INIT }), STORE_RUNTIME);
      const gas = await ctx.provider.estimateGas({ from: ctx.signer.address, data: STORE_INIT });
      // More than the intrinsic cost of a creation with this init code.
      assert.ok(gas > 53_000n, `estimate ${gas}`);
      const tx = await ctx.signer.sendTransaction({ data: STORE_INIT, gasLimit: gas });
      const r = await tx.wait(1, 10_000);
      assert.equal(r?.status, 1);
      assert.ok(r.gasUsed <= gas, `used ${r.gasUsed} > estimate ${gas}`);
      assert.ok(r.contractAddress !== null);
      assert.equal(await ctx.provider.getCode(r.contractAddress), STORE_RUNTIME);
    });

    if (kind === "l1") {
      it("the chain without Multicall3 (L1 dev): nothing at 0xcA11…CA11, and viem's multicall() refuses the chain unless deployless", async () => {
        const ctx = get();
        assert.equal(await ctx.pc.getCode({ address: MULTICALL3 }), undefined);
        const e = await ctx.pc.multicall({ contracts: reads() }).then(
          () => null,
          (x: unknown) => x,
        );
        assert.ok(e instanceof ChainDoesNotSupportContract, describeError(e));
      });
    }

    if (kind === "op") {
      it("the chain with Multicall3 (OP dev, its preinstall): multicall() and batch.multicall read through 0xcA11…CA11", async () => {
        const ctx = get();
        const code = await ctx.pc.getCode({ address: MULTICALL3 });
        assert.ok(code !== undefined && code.length > 2, `the Multicall3 preinstall ${MULTICALL3} has no code`);
        // Declared as viem's `optimism` chain declares it.
        const chain: Chain = {
          ...ctx.chain.viemChain,
          contracts: { ...ctx.chain.viemChain.contracts, multicall3: { address: MULTICALL3 } },
        };
        const transport = httpTransport(ctx.chain);
        const pc = createPublicClient({ chain, transport, cacheTime: 0 });
        const me = getAddress(ACCOUNT.viemLocal.address);

        const mark = ctx.chain.recorder.mark();
        const [value, mixed, ok, failed, chainId, balance] = await pc.multicall({
          contracts: [
            ...reads(),
            { address: MULTICALL3, abi: MULTICALL3_READS, functionName: "getChainId" },
            { address: MULTICALL3, abi: MULTICALL3_READS, functionName: "getEthBalance", args: [me] },
          ],
        });
        const sent = onlyCall(ctx.chain.recorder.calls("eth_call", mark));
        assert.equal(sent.to && getAddress(sent.to), MULTICALL3);
        assert.ok(sent.data.startsWith(AGGREGATE3), "an aggregate3 call");
        assert.deepEqual(value, { status: "success", result: STORED });
        assert.deepEqual(mixed, { status: "success", result: mixOf(mix.a, mix.b, mix.m, mix.tag) });
        assert.deepEqual(ok, { status: "success", result: REVERTER_OK });
        assert.equal(failed.status, "failure");
        assert.equal(revertOf(failed.error).reason, REVERT_REASON);
        assert.deepEqual(chainId, { status: "success", result: BigInt(EXPECTED_CHAIN_ID.op) });
        // Nothing was mined since: the balance is the latest one.
        assert.deepEqual(balance, { status: "success", result: await ctx.pc.getBalance({ address: me }) });

        const batching = createPublicClient({ chain, transport, batch: { multicall: true }, cacheTime: 0 });
        const mark2 = ctx.chain.recorder.mark();
        const settled = await readConcurrently(batching);
        assert.deepEqual(settled.slice(0, 3), [
          { status: "fulfilled", value: STORED },
          { status: "fulfilled", value: mixOf(mix.a, mix.b, mix.m, mix.tag) },
          { status: "fulfilled", value: REVERTER_OK },
        ]);
        const rejected = settled[3];
        assert.equal(rejected?.status, "rejected");
        assert.equal(revertOf(rejected.reason).reason, REVERT_REASON);
        const batched = onlyCall(ctx.chain.recorder.calls("eth_call", mark2));
        assert.equal(batched.to && getAddress(batched.to), MULTICALL3);
        assert.ok(batched.data.startsWith(AGGREGATE3), "an aggregate3 call");
      });
    }
  });
}
