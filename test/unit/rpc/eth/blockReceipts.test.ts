/**
 * eth_getBlockReceipts of a big block (issue 26): built in slices that give the event loop back,
 * the same receipts as the unsliced `ChainReader.receiptsJson`, and refused with geth's -32003
 * "response too large" by the method itself, before the reply is built, when its logs alone are
 * past the reply cap. Runs on an in-process L1 chain whose block 1 holds 40 calls of the LOG4
 * emitter, one log each.
 */
import { strict as assert } from "node:assert";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { coreApis } from "../../../../src/node/exec/execNode.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import type { Dispatcher } from "../../../../src/rpc/dispatch.js";
import { RpcError } from "../../../../src/rpc/errors.js";
import { ChainReader } from "../../../../src/rpc/eth/chainReader.js";
import { logJsonLength } from "../../../../src/rpc/format.js";
import type { CallContext } from "../../../../src/rpc/methodTable.js";
import { type AnyMethod, Registry } from "../../../../src/rpc/registry.js";
import { Slicer } from "../../../../src/util/slicer.js";
import { L1Miner, PORTAL } from "../../../utils/actions/l1Miner.js";

const CTX: CallContext = { transport: "http", remoteAddr: "t" };
const TXS = 40;

describe("eth_getBlockReceipts of a big block (issue 26)", function () {
  this.timeout(30_000);
  let miner: L1Miner;

  function apis(resultSizeLimit: number, slicer: Slicer): AnyMethod[] {
    return coreApis({
      chain: miner.exec.chain,
      pool: miner.exec.pool,
      networkId: miner.chainId,
      clientVersion: "opal/test",
      gasCap: 50_000_000n,
      txFeeCap: 1,
      evmTimeoutMs: 5000,
      logQueryLimits: { logQueryLimit: 1000, rangeLimit: 0, resultSizeLimit },
      slicer,
      devAccounts: [],
      forwardRawTx: null,
    }).methods as AnyMethod[];
  }

  const method = (ms: AnyMethod[]) => ms.find((m) => m.name === "eth_getBlockReceipts")!;
  const run = async (m: AnyMethod, n: number) =>
    await (m.handler as (p: unknown[], c: CallContext) => unknown)([{ kind: "number", number: n }], CTX);

  before(async () => {
    miner = new L1Miner();
    const txs = Array.from({ length: TXS }, (_, i) =>
      miner.tx(
        miner.accounts[0]!,
        PORTAL,
        concatBytes(...[1, 2, 3, 4].map((t) => keccak256(Uint8Array.of(i, t))), Uint8Array.of(i)),
        200_000n,
      ),
    );
    await miner.mine(txs);
    assert.equal(miner.exec.chain.head.number, 1);
  });

  it("is built in slices, giving the loop back, and answers what the unsliced reader builds", async () => {
    const slicer = new Slicer({ sliceMs: 0 });
    const d: Dispatcher = new Registry(apis(25_000_000, slicer)).forApis(["eth"]);
    const text = await d.handleText('{"jsonrpc":"2.0","id":1,"method":"eth_getBlockReceipts","params":["0x1"]}', {
      ctx: CTX,
      subs: null,
    });
    const got = JSON.parse(String(text)).result;
    const reader = new ChainReader(miner.exec.chain);
    const want = reader.receiptsJson(reader.block(miner.exec.chain.store.canonicalHash(1)!)!);
    assert.equal(got.length, TXS);
    assert.ok(got.every((r: { logs: unknown[] }) => r.logs.length > 0));
    assert.deepEqual(got, JSON.parse(JSON.stringify(want)));
    // A unit a receipt at least, and with a 0 ms slice a turn of the loop per unit.
    assert.ok(slicer.turns >= TXS, `${slicer.turns} turns`);
  });

  it("past the cap by its logs alone, the method refuses it with -32003 before building it", async () => {
    const reader = new ChainReader(miner.exec.chain);
    const b = reader.block(miner.exec.chain.store.canonicalHash(1)!)!;
    let logs = 0;
    for (const e of reader.receiptEntries(b)) {
      e.receipt.logs.forEach((l, i) => {
        logs +=
          logJsonLength(l, {
            blockHash: b.hash,
            blockNumber: 1,
            blockTimestamp: b.header.timestamp,
            txHash: e.extras.hash,
            txIndex: e.place.index,
            logIndex: e.place.firstLogIndex + i,
          }) + 1;
      });
    }
    const over = run(method(apis(logs - 1, new Slicer())), 1);
    await assert.rejects(over, (e: unknown) => e instanceof RpcError && e.code === -32003);
    // At the logs' size the method answers (the whole reply is then held to the cap by the dispatcher).
    const at = (await run(method(apis(logs, new Slicer())), 1)) as { length: number };
    assert.ok(at.length > logs);
  });
});
