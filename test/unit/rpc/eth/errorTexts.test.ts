/**
 * geth's words for refused calls and txs (issue 23):
 * - eth_estimateGas whose highest allowed gas cannot even pay the intrinsic cost: a failed run at
 *   that allowance, "gas required exceeds allowance (N)" (eth/gasestimator `execute` takes
 *   core.ErrIntrinsicGas as a failure); another refusal comes back wrapped, "failed with N gas: …";
 * - a call with less gas than its intrinsic cost: "intrinsic gas too low: have X, want Y" and, from
 *   Prague, "insufficient gas for floor data gas cost: have X, want Y" (core/state_transition.go),
 *   in eth_call's "err: … (supplied gas N)" and with eth_simulateV1's code -38013;
 * - eth_sendRawTransaction of bytes geth's `Transaction.UnmarshalBinary` refuses: an unknown type
 *   byte or a deposit is "transaction type not supported", a lone type byte "typed transaction too
 *   short", a string header "rlp: expected input list for types.LegacyTx".
 *
 * The intrinsic costs are the EIPs' (21000 a call, 16 gas a non-zero calldata byte, EIP-2028; from
 * Prague a floor of 21000 + 10 per token, 4 tokens a non-zero byte, EIP-7623).
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { devAccounts, l1DevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { TxType } from "../../../../src/tx/tx.js";
import { addr, chainOf, ETHER, l1Genesis, mine, TO } from "../../txpool/fixtures.js";
import { ethDepsOf } from "./ethDeps.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

function envOf(genesis: unknown, gasCap = 50_000_000n): { chain: Blockchain; d: Dispatcher } {
  const chain = chainOf(genesis);
  return { chain, d: new Registry(ethApi(ethDepsOf(chain, undefined, { gasCap }))).forApis(["eth"]) };
}

async function rpc(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: any }> {
  return JSON.parse((await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP)) as string);
}

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;
const from = bytesToHex(addr(1));
const to = bytesToHex(TO);
const cancun = () => l1Genesis(new Map([[addr(1), { balance: 10n * ETHER }]]));

describe("rpc/eth: geth's texts for refused calls and txs", function () {
  this.timeout(60_000);

  it("eth_estimateGas under a gas cap below the intrinsic cost: gas required exceeds allowance (cap)", async () => {
    const { d } = envOf(cancun(), 20_000n);
    const r = await rpc(d, "eth_estimateGas", [{ from, to }]);
    assert.deepEqual(r.error, { code: -32000, message: "gas required exceeds allowance (20000)" });
    // A given gas below 21000 does not bound the search, the cap still does.
    const given = await rpc(d, "eth_estimateGas", [{ from, to, gas: hex(5000) }]);
    assert.deepEqual(given.error, { code: -32000, message: "gas required exceeds allowance (20000)" });
  });

  it("eth_estimateGas refused for another reason: failed with N gas, then geth's reason", async () => {
    const { chain, d } = envOf(cancun());
    mine(chain);
    const baseFee = chain.head.baseFeePerGas as bigint;
    const r = await rpc(d, "eth_estimateGas", [{ from, to, maxFeePerGas: "0x1" }]);
    // The first run is at the block's gas limit, the highest gas the search may try.
    const allowance = chain.head.gasLimit;
    assert.equal(r.error.code, -32000);
    const want = `^failed with ${allowance} gas: max fee per gas less than block base fee: address 0x[0-9a-fA-F]{40}, maxFeePerGas: 1, baseFee: ${baseFee}$`;
    assert.match(r.error.message, new RegExp(want));
    assert.equal(r.error.message.includes(from.slice(2).toLowerCase()), false, "the address is checksummed");
    assert.equal(r.error.message.toLowerCase().includes(from.slice(2).toLowerCase()), true);
  });

  it("eth_call with less gas than its intrinsic cost: have and want", async () => {
    const { d } = envOf(cancun());
    // Two non-zero calldata bytes: 21000 + 2 × 16.
    const r = await rpc(d, "eth_call", [{ from, to, input: "0x0102", gas: hex(21_000) }]);
    assert.deepEqual(r.error, {
      code: -32000,
      message: "err: intrinsic gas too low: have 21000, want 21032 (supplied gas 21000)",
    });
  });

  it("from Prague the calldata floor: insufficient gas for floor data gas cost", async () => {
    const dev = devAccounts(1)[0]!;
    const { d } = envOf(l1DevGenesis(30_000_000n, [dev], { osakaTime: null }));
    // 8 tokens: floor 21000 + 80 = 21080 above the intrinsic 21032.
    const r = await rpc(d, "eth_call", [{ from: bytesToHex(dev.address), to, input: "0x0102", gas: hex(21_040) }]);
    assert.deepEqual(r.error, {
      code: -32000,
      message: "err: insufficient gas for floor data gas cost: have 21040, want 21080 (supplied gas 21040)",
    });
  });

  it("eth_simulateV1: the intrinsic-gas refusal is -38013 with the same text", async () => {
    const { d } = envOf(cancun());
    const r = await rpc(d, "eth_simulateV1", [
      { blockStateCalls: [{ calls: [{ from, to, input: "0x0102", gas: hex(21_000) }] }] },
      "latest",
    ]);
    assert.deepEqual(r.error, {
      code: -38013,
      message: "err: intrinsic gas too low: have 21000, want 21032 (supplied gas 21000)",
    });
  });

  it("eth_sendRawTransaction of bytes geth cannot take as a tx", async () => {
    const { d } = envOf(cancun());
    const send = async (raw: string) => (await rpc(d, "eth_sendRawTransaction", [raw])).error;
    assert.deepEqual(await send("0x05c0"), { code: -32000, message: "transaction type not supported" });
    assert.deepEqual(await send("0x05"), { code: -32000, message: "typed transaction too short" });
    assert.deepEqual(await send("0x"), { code: -32000, message: "typed transaction too short" });
    assert.deepEqual(await send("0x8100"), {
      code: -32000,
      message: "rlp: expected input list for types.LegacyTx",
    });
    const deposit = encodeTx({
      type: TxType.Deposit,
      sourceHash: new Uint8Array(32),
      from: addr(1),
      to: TO,
      mint: 0n,
      value: 0n,
      gasLimit: 21_000n,
      isSystemTx: false,
      data: new Uint8Array(0),
    });
    assert.deepEqual(await send(bytesToHex(deposit)), { code: -32000, message: "transaction type not supported" });
  });
});
