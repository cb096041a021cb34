/**
 * eth_createAccessList with geth's rules (internal/ethapi/api.go `AccessList` over
 * eth/tracers/logger `AccessListTracer`) beyond the three rpc-compat exchanges, and eth_simulateV1's
 * moved precompiles reaching the EVM by exact address. Runs over the rpc-compat chain (fixtures).
 */
import { strict as assert } from "node:assert";
import { defaultSuiteDir } from "../../../../scripts/rpcCompat.js";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { privateKeyToAddress, sign } from "../../../../src/crypto/secp256k1.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { authoritySigningHash } from "../../../../src/tx/authorization.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import { requireFixture } from "../../../utils/fixtures.js";
import { buildSuiteChain } from "../../../utils/rpcCompatChain.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };
const a = (n: string): string => `0x${n.padStart(40, "0")}`;
const FROM = "0x0c2c51a0990aee1d73c1228de158688341557508";
const C = a("c0de01");
const L = a("c0de02");
const X = a("aaaa01");
const p20 = (x: string): string => `73${x.slice(2)}`;
const word = (v: number): string => `0x${v.toString(16).padStart(64, "0")}`;
const KEY = hexToBytes(`0x${"42".repeat(32)}`);
const AUTHORITY = bytesToHex(privateKeyToAddress(KEY));

describe("rpc/eth eth_createAccessList (geth's rules) and simulateV1's moved precompiles", function () {
  this.timeout(120_000);
  let chain: Blockchain;
  let d: Dispatcher;
  before(() => {
    chain = buildSuiteChain(requireFixture(defaultSuiteDir()));
    const deps = {
      chain,
      reader: new ChainReader(chain),
      pool: new TxPool({}, { chain }),
      gasCap: 50_000_000n,
      txFeeCap: 1,
      evmTimeoutMs: 5000,
      networkId: 7n,
      clientVersion: "Opal/test",
      devAccounts: [],
      forwardRawTx: null,
      events: new EventHub(),
    };
    d = new Registry(ethApi(deps)).forApis(["eth"]);
  });

  async function rpc(method: string, params: unknown[]): Promise<any> {
    const text = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP);
    return JSON.parse(text as string);
  }

  /** eth_createAccessList of a call from FROM to C running `code`, as `{address: keys}`. */
  async function listOf(code: string, extra: Record<string, unknown> = {}, ov: Record<string, unknown> = {}) {
    const r = await rpc("eth_createAccessList", [
      { from: FROM, to: C, gas: "0x100000", ...extra },
      "latest",
      { [C]: { code }, ...ov },
    ]);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const o: Record<string, string[]> = {};
    for (const e of r.result.accessList) o[e.address] = e.storageKeys;
    return { list: o, result: r.result };
  }

  function authorization(): Record<string, string> {
    const chainId = chain.config.chainId;
    const sig = sign(authoritySigningHash({ chainId, address: hexToBytes(L), nonce: 0n }), KEY);
    return {
      chainId: `0x${chainId.toString(16)}`,
      address: L,
      nonce: "0x0",
      yParity: `0x${sig.recid}`,
      r: `0x${sig.r.toString(16)}`,
      s: `0x${sig.s.toString(16)}`,
    };
  }

  it("what opcodes name, the recipient only through its slots; the list is stable when fed back", async () => {
    const code = `0x600154506005600255${p20(X)}3150${p20(L)}3b5000`;
    const { list, result } = await listOf(code);
    assert.deepEqual(list, { [X]: [], [C]: [word(1), word(2)], [L]: [] });
    const again = await rpc("eth_createAccessList", [
      { from: FROM, to: C, gas: "0x100000", accessList: result.accessList },
      "latest",
      { [C]: { code } },
    ]);
    assert.deepEqual(again.result, result);
  });

  it("valid authorities are excluded even when touched (geth #31336)", async () => {
    const { list } = await listOf(`0x${p20(AUTHORITY)}315000`, { authorizationList: [authorization()] });
    assert.deepEqual(list, {});
  });

  it("more authorizations than the gas pays 25000 each for are refused, as geth does", async () => {
    const r = await rpc("eth_createAccessList", [
      { from: FROM, to: C, gas: "0xc350", authorizationList: [authorization(), authorization(), authorization()] },
      "latest",
    ]);
    assert.deepEqual(r.error, { code: -32000, message: "insufficient gas to process all authorizations" });
  });

  it("no CREATE'd address, no delegate of the recipient; the coinbase when an opcode names it", async () => {
    assert.deepEqual((await listOf("0x600060006000f05000")).list, {});
    const delegated = await listOf(`0xef0100${L.slice(2)}`, {}, { [L]: { code: "0x6003545000" } });
    assert.deepEqual(delegated.list, { [C]: [word(3)] });
    // COINBASE BALANCE POP: the block's coinbase (zero here) is not excluded.
    assert.deepEqual((await listOf("0x41315000")).list, { [a("0")]: [] });
  });

  it("given entries for excluded addresses are dropped whole (geth #34887)", async () => {
    const { list } = await listOf("0x00", {
      accessList: [
        { address: FROM, storageKeys: [word(1)] },
        { address: C, storageKeys: [word(1)] },
        { address: X, storageKeys: [] },
      ],
    });
    assert.deepEqual(list, { [X]: [] });
  });

  it("before Berlin the opcodes are traced all the same (geth's tracer does not look at the fork)", async () => {
    const r = await rpc("eth_createAccessList", [
      { from: FROM, to: C, gas: "0x100000" },
      "0x14",
      { [C]: { code: `0x60015450${p20(X)}315000` } },
    ]);
    assert.deepEqual(
      r.result.accessList.map((e: any) => [e.address, e.storageKeys]),
      [
        [X, []],
        [C, [word(1)]],
      ],
    );
  });

  it("simulateV1: a moved precompile answers at its exact destination only", async () => {
    const dst = "0xc200000000000000000000000000000000000000";
    const near = "0xc200000000000000000000000000000000000001";
    const r = await rpc("eth_simulateV1", [
      {
        blockStateCalls: [
          {
            stateOverrides: { [a("4")]: { movePrecompileToAddress: dst } },
            calls: [
              { from: FROM, to: dst, input: "0x1234" },
              { from: FROM, to: near, input: "0x1234" },
              { from: FROM, to: a("4"), input: "0x1234" },
            ],
          },
        ],
      },
      "latest",
    ]);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.deepEqual(
      r.result[0].calls.map((c: any) => c.returnData),
      ["0x1234", "0x", "0x"],
    );
  });
});
