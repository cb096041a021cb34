/**
 * Reliability scenario (issue 26): one account floods a running opal-exec (`--dev`, HTTP) with 3,000
 * queued txs of 120 KB each over eth_sendRawTransaction — every one local, none executable (nonce 0
 * never comes). The pool keeps `--txpool.accountqueue` of them, the locals tracker answers with the
 * hash up to `accountslots + accountqueue` and the rest are refused `txpool is full`, so what the
 * node holds stays under its byte bounds however long the flood goes on. Before the bound applied
 * to locals every one of the 3,000 was taken (about 360 MB).
 */
import { strict as assert } from "node:assert";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { DEFAULT_TX_POOL_OPTIONS, TX_SLOT_SIZE } from "../../../../src/txpool/txPoolOptions.js";
import { rpc } from "../../../utils/jsonRpc.js";
import { configOf, devTransfer, tempDir } from "../../../utils/node.js";

const FLOOD = 3000;

describe("reliability scenarios: tx pool flood from one account", function () {
  this.timeout(300_000);

  it(`[scenario] ${FLOOD} queued 120 KB txs from one account over RPC: refused past accountslots + accountqueue, pool and tracker under their byte bounds`, async () => {
    const dir = tempDir("scenario-txflood");
    const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), { print: () => undefined });
    try {
      const url = `http://127.0.0.1:${node.endpoints.http!.port}`;
      const data = new Uint8Array(120_000);
      const rss0 = process.memoryUsage().rss;
      let answered = 0;
      const refusals = new Map<string, number>();
      for (let n = 1; n <= FLOOD; n++) {
        const raw = devTransfer(BigInt(n), 0, 1, { data, gas: 1_300_000n });
        const r = await rpc(url, "eth_sendRawTransaction", [raw]);
        const err = r.json?.error;
        if (err === undefined) answered++;
        else refusals.set(`${err.code} ${err.message}`, (refusals.get(`${err.code} ${err.message}`) ?? 0) + 1);
      }
      const { accountSlots, accountQueue, globalSlots, globalQueue } = DEFAULT_TX_POOL_OPTIONS;
      const pool = node.txPool.size();
      const tracked = node.localTxs!.size();
      const rssMb = (process.memoryUsage().rss - rss0) / 1e6;
      console.log(
        `      flood: ${answered} answered, refused ${JSON.stringify([...refusals])}; pool ${pool.txs} txs ${(pool.bytes / 1e6).toFixed(1)} MB, tracker ${tracked.txs} txs ${(tracked.bytes / 1e6).toFixed(1)} MB; RSS +${rssMb.toFixed(0)} MB (test and node in one process)`,
      );
      assert.equal(answered, accountSlots + accountQueue);
      assert.deepEqual([...refusals], [["-32000 txpool is full", FLOOD - answered]]);
      assert.equal(pool.txs, accountQueue);
      assert.ok(pool.bytes <= accountQueue * 4 * TX_SLOT_SIZE);
      assert.ok(pool.slots <= globalSlots + globalQueue);
      assert.ok(tracked.bytes <= (accountSlots + accountQueue) * 4 * TX_SLOT_SIZE);
    } finally {
      await node.stop();
      dir.remove();
    }
  });
});
