/**
 * eth_call, eth_estimateGas and eth_sendRawTransaction on an OP chain at Karst, against the same
 * chain at Jovian (and L1 where it matters). What is expected, and where it comes from:
 * - eth_estimateGas searches from min(block gas limit, 2^24) from Osaka/Karst (reth rpc-eth-api
 *   estimate.rs `tx_gas_limit_cap().min(block_gas_limit)`, the op-reth v2.3.3 fix, optimism PR 21574;
 *   geth gasestimator caps at params.MaxTxGas from Osaka): a plain transfer estimates at 21,000 on a
 *   chain with a 200M block gas limit, a call needing more than 2^24 fails with "gas required exceeds
 *   allowance (16777216)", also when the request names 30M;
 * - eth_call does not apply EIP-7825 (reth `prepare_call_env` sets tx_gas_limit_cap = u64::MAX) and,
 *   on Karst chains, gives a call without gas the RPC gas cap (reth `call_gas_limit`), or with a gas
 *   price what the balance buys, at most the block gas limit; Jovian keeps op-geth's block gas limit;
 * - eth_call without `to` answers with the init code's return data (geth `EVM.Create` returns it:
 *   issue 23), which is how CLZ is seen at Karst and refused as an invalid opcode at Jovian;
 * - eth_sendRawTransaction of a tx with 2^24 + 1 gas: {"code":-32003,"message":"gas limit too high"}
 *   (reth 88505c7 rpc-eth-types RpcInvalidTransactionError::GasLimitTooHigh, TransactionRejected).
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { l1Genesis, opGenesis } from "../../../utils/genesis.js";
import { addr, chainOf, dyn, ETHER, GWEI } from "../../txpool/fixtures.js";

const CAP = 16_777_216n;
const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

/** A loop of `n` rounds at 26 gas each: PUSH3 n; JUMPDEST; PUSH1 1; SWAP1; SUB; DUP1; PUSH1 4; JUMPI; STOP. */
function loopCode(n: number): Uint8Array {
  return hexToBytes(`0x62${n.toString(16).padStart(6, "0")}5b600190038060045700`);
}
const HEAVY = hexToBytes("0x000000000000000000000000000000000000bea7");
const LIGHT = hexToBytes("0x0000000000000000000000000000000000001167");
/** Returns GAS (what is left after GAS itself): GAS; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN. */
const GAS_REPORTER = hexToBytes("0x0000000000000000000000000000000000009a55");
const GAS_CODE = hexToBytes("0x5a60005260206000f3");
const POOR = addr(5);
const POOR_BALANCE = 10n ** 16n; // buys 10M gas at 1 gwei

function opChain(karst: boolean, gasLimit: bigint): Blockchain {
  const json = opGenesis(
    new Map([
      [addr(1), { balance: 1000n * ETHER }],
      [POOR, { balance: POOR_BALANCE }],
      // ~700,000 rounds: 18.2M gas, above the cap; 1,000 rounds: 26k.
      [HEAVY, { balance: 0n, code: loopCode(700_000) }],
      [LIGHT, { balance: 0n, code: loopCode(1_000) }],
      [GAS_REPORTER, { balance: 0n, code: GAS_CODE }],
    ]),
  ) as { config: Record<string, unknown>; gasLimit: string };
  if (karst) Object.assign(json.config, { karstTime: 0, osakaTime: 0 });
  json.gasLimit = `0x${gasLimit.toString(16)}`;
  return chainOf(json);
}

function dispatcher(chain: Blockchain, gasCap = 50_000_000n): Dispatcher {
  const deps = {
    chain,
    reader: new ChainReader(chain),
    pool: new TxPool({}, { chain }),
    gasCap,
    txFeeCap: 1,
    evmTimeoutMs: 0,
    networkId: 901n,
    clientVersion: "Opal/test",
    devAccounts: [],
    forwardRawTx: null,
    events: new EventHub(),
  };
  return new Registry(ethApi(deps)).forApis(["eth"]);
}

async function rpc(d: Dispatcher, method: string, params: unknown[]): Promise<{ result?: any; error?: any }> {
  const text = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP);
  return JSON.parse(text as string);
}

const from = bytesToHex(addr(1));
const hex = (v: bigint): string => `0x${v.toString(16)}`;

describe("rpc/eth: calls and estimates at Karst (OP)", function () {
  this.timeout(120_000);

  it("eth_estimateGas: a transfer and a contract call work under a 200M block gas limit", async () => {
    const d = dispatcher(opChain(true, 200_000_000n));
    const t = await rpc(d, "eth_estimateGas", [{ from, to: bytesToHex(addr(2)), value: "0x1" }]);
    assert.equal(t.result, "0x5208");
    const c = await rpc(d, "eth_estimateGas", [{ from, to: bytesToHex(LIGHT) }]);
    const gas = BigInt(c.result);
    assert.ok(gas > 21_000n + 26_000n && gas < 100_000n, `estimate ${gas}`);
    // The estimate is enough: the call succeeds with it and runs out of gas just below.
    assert.equal((await rpc(d, "eth_call", [{ from, to: bytesToHex(LIGHT), gas: hex(gas) }])).result, "0x");
    assert.match(
      (await rpc(d, "eth_call", [{ from, to: bytesToHex(LIGHT), gas: hex(gas - 1n) }])).error.message,
      /out of gas/,
    );
  });

  it("eth_estimateGas: a call needing more than 2^24 exceeds the allowance at Karst, not at Jovian", async () => {
    const k = dispatcher(opChain(true, 200_000_000n));
    for (const gas of [undefined, hex(30_000_000n)]) {
      const r = await rpc(k, "eth_estimateGas", [{ from, to: bytesToHex(HEAVY), ...(gas ? { gas } : {}) }]);
      assert.deepEqual(r.error, { code: -32000, message: `gas required exceeds allowance (${CAP})` });
    }
    const j = dispatcher(opChain(false, 200_000_000n));
    const r = await rpc(j, "eth_estimateGas", [{ from, to: bytesToHex(HEAVY) }]);
    assert.ok(BigInt(r.result) > CAP, `Jovian estimate ${r.result}`);
  });

  it("eth_call: no EIP-7825 cap; without gas a Karst call gets the gas cap (reth), Jovian the block's (op-geth)", async () => {
    const k = dispatcher(opChain(true, 30_000_000n));
    assert.equal((await rpc(k, "eth_call", [{ from, to: bytesToHex(HEAVY) }])).result, "0x");
    assert.equal((await rpc(k, "eth_call", [{ from, to: bytesToHex(HEAVY), gas: hex(25_000_000n) }])).result, "0x");
    // GAS after the 21,000 intrinsic gas and GAS's own 2.
    const left = async (d: Dispatcher, args: Record<string, string>) =>
      BigInt((await rpc(d, "eth_call", [{ from, to: bytesToHex(GAS_REPORTER), ...args }])).result);
    assert.equal(await left(k, {}), 50_000_000n - 21_002n);
    assert.equal(await left(k, { gas: hex(60_000_000n) }), 50_000_000n - 21_002n, "capped by the gas cap");
    // Priced: what the balance buys (10M at 1 gwei), at most the block gas limit.
    const poor = bytesToHex(POOR);
    const priced = await rpc(k, "eth_call", [{ from: poor, to: bytesToHex(GAS_REPORTER), gasPrice: hex(GWEI) }]);
    assert.equal(BigInt(priced.result), 10_000_000n - 21_002n);
    const rich = await rpc(k, "eth_call", [{ from, to: bytesToHex(GAS_REPORTER), gasPrice: hex(GWEI) }]);
    assert.equal(BigInt(rich.result), 30_000_000n - 21_002n);

    const j = dispatcher(opChain(false, 30_000_000n));
    assert.equal(await left(j, {}), 30_000_000n - 21_002n);
  });

  it("eth_call without `to` returns the init code's output: CLZ at Karst, an invalid opcode at Jovian", async () => {
    // PUSH1 1; CLZ; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN → clz(1) = 255 as a word.
    const initcode = "0x60011e60005260206000f3";
    const k = await rpc(dispatcher(opChain(true, 30_000_000n)), "eth_call", [{ from, data: initcode }]);
    assert.equal(k.result, `0x${"00".repeat(31)}ff`);
    const j = await rpc(dispatcher(opChain(false, 30_000_000n)), "eth_call", [{ from, data: initcode }]);
    assert.deepEqual(j.error, { code: -32000, message: "invalid opcode" });
  });

  it("eth_call without `to` on L1 returns the deployed code too (issue 23)", async () => {
    const chain = chainOf(l1Genesis(new Map([[addr(1), { balance: ETHER }]])));
    // PUSH2 0xbeef; PUSH1 0; MSTORE; PUSH1 2; PUSH1 30; RETURN → the 2-byte code 0xbeef.
    const r = await rpc(dispatcher(chain), "eth_call", [{ from, data: "0x61beef6000526002601ef3" }]);
    assert.equal(r.result, "0xbeef");
  });

  it("eth_sendRawTransaction above 2^24 gas: op-reth's answer at Karst, accepted at Jovian", async () => {
    const tx = encodeTx(dyn(1, 0, { chainId: 901n, gas: CAP + 1n, maxFee: 10n * GWEI, tip: GWEI }));
    const k = await rpc(dispatcher(opChain(true, 30_000_000n)), "eth_sendRawTransaction", [bytesToHex(tx)]);
    assert.deepEqual(k.error, { code: -32003, message: "gas limit too high" });
    const j = await rpc(dispatcher(opChain(false, 30_000_000n)), "eth_sendRawTransaction", [bytesToHex(tx)]);
    assert.equal(typeof j.result, "string");
  });
});
