/**
 * eth_call / eth_estimateGas / eth_createAccessList as clients drive them (issue 23):
 * - creation calls (no `to`) answer with the init code's return data, which is how viem's deployless
 *   reads work: `readContract({code})` (viem's deploylessCallViaBytecode constructor CREATE2s the
 *   code, calls it and returns the answer from its own constructor) and the deployless multicall
 *   (Multicall3's bytecode run the same way); an estimate of a creation is the least gas a deploying
 *   tx needs (geth gasestimator: the code deposit included), and an access list of a creation
 *   excludes the new contract's address (geth `AccessList`: `to` is `CreateAddress(from, nonce)`);
 * - a call without any gas price runs as geth's do (internal/ethapi `applyMessage`, eth/gasestimator
 *   `run`: "Lower the basefee to 0 … if msg.GasPrice.Sign() == 0"): no fee-cap check, GASPRICE and
 *   BASEFEE both read 0; a priced call sees the block's base fee;
 * - `data` and `input` both set and different: invalid params (-32602) with geth's text.
 */
import { strict as assert } from "node:assert";
import { createPublicClient, custom, parseAbi } from "viem";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { addr, chainOf, dyn, ETHER, GWEI, l1Genesis, mine, TO } from "../../txpool/fixtures.js";
import { ethDepsOf } from "./ethDeps.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

/** Runtime: PUSH1 42; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN — answers 42 to any call. */
const RUNTIME_42 = "602a60005260206000f3";
/** Init code: CODECOPY the 10-byte runtime (at offset 12) to memory and return it. */
const INIT_42 = `0x600a600c600039600a6000f3${RUNTIME_42}`;
/** A deployed contract answering 42 (the multicall's target). */
const FORTY_TWO = hexToBytes("0x00000000000000000000000000000000000f0042");
/** BASEFEE; PUSH1 0; MSTORE; GASPRICE; PUSH1 32; MSTORE; PUSH1 64; PUSH1 0; RETURN. */
const FEE_REPORTER = hexToBytes("0x00000000000000000000000000000000000fee00");
const FEE_CODE = hexToBytes("0x486000523a60205260406000f3");
/** BASEFEE; ISZERO; PUSH1 9; JUMPI; PUSH1 0; DUP1; REVERT; JUMPDEST; STOP — reverts unless BASEFEE is 0. */
const NEEDS_ZERO_BASEFEE = hexToBytes("0x00000000000000000000000000000000000fee01");
const NEEDS_ZERO_CODE = hexToBytes("0x4815600957600080fd5b00");
/** Init code: SLOAD of its own slot 7, BALANCE of FORTY_TWO, then RUNTIME_42 (at offset 39) deployed. */
const INIT_SLOADS = `0x6007545073${bytesToHex(FORTY_TWO).slice(2)}3150600a6027600039600a6000f3${RUNTIME_42}`;

function setup(): { chain: Blockchain; pool: TxPool; d: Dispatcher } {
  const chain = chainOf(
    l1Genesis(
      new Map([
        [addr(1), { balance: 10n * ETHER }],
        [FORTY_TWO, { balance: 0n, code: hexToBytes(`0x${RUNTIME_42}`) }],
        [FEE_REPORTER, { balance: 0n, code: FEE_CODE }],
        [NEEDS_ZERO_BASEFEE, { balance: 0n, code: NEEDS_ZERO_CODE }],
      ]),
    ),
  );
  const pool = new TxPool({}, { chain });
  return { chain, pool, d: new Registry(ethApi(ethDepsOf(chain, pool))).forApis(["eth"]) };
}

async function rpc(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: any }> {
  return JSON.parse((await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string);
}

/** A viem public client whose transport is the dispatcher (errors come back as viem sees them). */
function viemClient(d: Dispatcher) {
  return createPublicClient({
    transport: custom({
      async request({ method, params }) {
        const r = await rpc(d, method, (params as unknown[]) ?? []);
        if (r.error !== undefined) throw Object.assign(new Error(r.error.message), r.error);
        return r.result;
      },
    }),
  });
}

const from = bytesToHex(addr(1));
const word = (v: bigint): string => v.toString(16).padStart(64, "0");

describe("rpc/eth: creation calls, zero-priced calls and call arguments", function () {
  this.timeout(60_000);

  it("eth_call without `to` returns the init code's output (the runtime it would deploy)", async () => {
    const { d } = setup();
    assert.equal((await rpc(d, "eth_call", [{ from, data: INIT_42 }])).result, `0x${RUNTIME_42}`);
  });

  it("viem deployless reads: readContract({code}) and the deployless multicall", async () => {
    const { d } = setup();
    const client = viemClient(d);
    const abi = parseAbi(["function answer() view returns (uint256)"]);
    const viaCode = await client.readContract({ abi, functionName: "answer", code: INIT_42 });
    assert.equal(viaCode, 42n);
    const multi = await client.multicall({
      deployless: true,
      allowFailure: false,
      contracts: [
        { address: bytesToHex(FORTY_TWO) as `0x${string}`, abi, functionName: "answer" },
        { address: bytesToHex(FORTY_TWO) as `0x${string}`, abi, functionName: "answer" },
      ],
    });
    assert.deepEqual(multi, [42n, 42n]);
  });

  it("eth_estimateGas of a creation is the least gas a deploying tx needs, code deposit included", async () => {
    const { chain, pool, d } = setup();
    const est = BigInt((await rpc(d, "eth_estimateGas", [{ from, data: INIT_42 }])).result);
    // 53,000 creation intrinsic + calldata + the init code's run + 200 gas per deployed byte.
    assert.ok(est > 53_000n + 10n * 200n && est < 60_000n, `estimate ${est}`);
    const hex = (v: bigint) => `0x${v.toString(16)}`;
    assert.equal((await rpc(d, "eth_call", [{ from, data: INIT_42, gas: hex(est) }])).result, `0x${RUNTIME_42}`);
    const short = await rpc(d, "eth_call", [{ from, data: INIT_42, gas: hex(est - 1n) }]);
    assert.ok(short.error !== undefined, "one gas less fails (the code deposit does not fit)");
    // A deployment with exactly the estimate succeeds and stores the runtime.
    const tx = dyn(1, 0, { to: null, data: hexToBytes(INIT_42), gas: est, maxFee: 100n * GWEI });
    assert.equal((await pool.add([tx]))[0].error, null);
    const b = mine(chain, { pool });
    assert.equal(b.receipts.length, 1);
    assert.equal(b.receipts[0].status, 1);
    const receipt = (await rpc(d, "eth_getBlockReceipts", ["latest"])).result[0];
    assert.equal(BigInt(receipt.gasUsed) <= est, true);
    assert.equal((await rpc(d, "eth_getCode", [receipt.contractAddress, "latest"])).result, `0x${RUNTIME_42}`);
  });

  it("eth_createAccessList of a creation: as geth, the new contract's address only enters with a slot it reads", async () => {
    const { d } = setup();
    const r = (await rpc(d, "eth_createAccessList", [{ from, data: INIT_SLOADS }])).result;
    // BALANCE of FORTY_TWO adds its address. The new contract's address is excluded from what BALANCE,
    // EXTCODE* and CALL* add, but a slot it SLOADs still adds it with the slot: geth's tracer
    // (eth/tracers/logger/access_list_tracer.go) checks the exclusions for addresses, not in `addSlot`.
    const created = "0x6cfb3ef510392b64bca5284c3c808d1d09e670f3"; // CreateAddress(from, 0)
    assert.deepEqual(r.accessList, [
      { address: bytesToHex(FORTY_TWO), storageKeys: [] },
      { address: created, storageKeys: [`0x${word(7n)}`] },
    ]);
    assert.equal(r.error, undefined);
    assert.ok(BigInt(r.gasUsed) > 53_000n);
  });

  it("a call without a gas price: BASEFEE and GASPRICE read 0 and no fee cap is checked", async () => {
    const { chain, d } = setup();
    mine(chain);
    const baseFee = chain.head.baseFeePerGas as bigint;
    assert.ok(baseFee > 0n);
    const to = bytesToHex(FEE_REPORTER);
    assert.equal((await rpc(d, "eth_call", [{ to }])).result, `0x${word(0n)}${word(0n)}`);
    assert.equal((await rpc(d, "eth_call", [{ to, gasPrice: "0x0" }])).result, `0x${word(0n)}${word(0n)}`);
    // Priced: the block's base fee, and the effective price.
    const cap = 10n * GWEI;
    const priced = await rpc(d, "eth_call", [{ from, to, maxFeePerGas: `0x${cap.toString(16)}` }]);
    assert.equal(priced.result, `0x${word(baseFee)}${word(baseFee)}`);
    const legacy = await rpc(d, "eth_call", [{ from, to, gasPrice: `0x${cap.toString(16)}` }]);
    assert.equal(legacy.result, `0x${word(baseFee)}${word(cap)}`);
    // A price below the base fee is refused, as geth's preCheck does with a price.
    const low = await rpc(d, "eth_call", [{ from, to, gasPrice: "0x1" }]);
    assert.match(low.error.message, /max fee per gas less than block base fee/);
    // eth_estimateGas runs the same way: code that reverts unless BASEFEE is 0 estimates.
    const est = await rpc(d, "eth_estimateGas", [{ to: bytesToHex(NEEDS_ZERO_BASEFEE) }]);
    assert.equal(est.error, undefined, JSON.stringify(est.error));
    assert.ok(BigInt(est.result) >= 21_000n);
    const pricedEst = await rpc(d, "eth_estimateGas", [
      { from, to: bytesToHex(NEEDS_ZERO_BASEFEE), maxFeePerGas: `0x${cap.toString(16)}` },
    ]);
    assert.equal(pricedEst.error.message, "execution reverted");
  });

  it("`data` and `input` both set and different: -32602 with geth's text; equal values are fine", async () => {
    const { d } = setup();
    const text = 'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data';
    for (const m of ["eth_call", "eth_estimateGas", "eth_createAccessList"]) {
      const r = await rpc(d, m, [{ from, to: bytesToHex(TO), data: "0x01", input: "0x02" }]);
      assert.equal(r.error?.code, -32602, `${m}: ${JSON.stringify(r.error)}`);
      assert.ok(r.error.message.endsWith(text), `${m}: ${r.error.message}`);
      const ok = await rpc(d, m, [{ from, to: bytesToHex(TO), data: "0x01", input: "0x01" }]);
      assert.equal(ok.error, undefined, `${m}: ${JSON.stringify(ok.error)}`);
    }
  });
});
