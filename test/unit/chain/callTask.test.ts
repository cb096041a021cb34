/**
 * Read-only calls as tasks: on the main thread over a MemoryKv, and in the evmCall worker pool over
 * a shared RocksDB handle, with the same answers (rpc-compat chain, call-contract.io and
 * call-revert-abi-error.io; an estimate at an older block).
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { type CallTask, type CallTaskResult, runCallTask } from "../../../src/chain/callTask.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { PiscinaPool } from "../../../src/node/pools.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeHeader } from "../../../src/rlp/decode.js";
import type { KvStore } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { fixturePath } from "../../utils/fixtures.js";
import { makeTmpDir, removeDir } from "../storage/tmpDir.js";

const DIR = fixturePath("execution-apis-rpc", "tests");
const json = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));

function load(kv: KvStore): Blockchain {
  const chain = Blockchain.init(kv, parseGenesis(json), json.config);
  const all = new Uint8Array(readFileSync(join(DIR, "chain.rlp")));
  let last: Uint8Array | null = null;
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    last = chain.insertBlock(all.subarray(pos, h.start + h.length)).hash;
    pos = h.start + h.length;
  }
  chain.setHead(last as Uint8Array);
  return chain;
}

function task(kind: "call" | "estimate", block: Uint8Array, to: string, data: string, gas: string | null): CallTask {
  return {
    kind,
    block: bytesToHex(block),
    gasCap: "50000000",
    msg: {
      from: "0x0000000000000000000000000000000000000000",
      to,
      gas,
      gasPrice: null,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      value: "0",
      data,
      accessList: [],
    },
  };
}

describe("chain/callTask", function () {
  this.timeout(120_000);

  it("main thread: call, revert and estimate at the head and at an older block", () => {
    const chain = load(new MemoryKv());
    const head = chain.headBlockHash;
    const ok = runCallTask(
      chain.kv,
      chain.config,
      task("call", head, "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0xff01", null),
    );
    assert.deepEqual(ok.ok && ok.output, "0xffee");
    const rev = runCallTask(
      chain.kv,
      chain.config,
      task("call", head, "0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930", "0x01", "100000"),
    );
    assert.ok(rev.ok && rev.status === 0 && rev.output.startsWith("0x08c379a0"));
    const older = chain.store.canonicalHash(chain.head.number - 5) as Uint8Array;
    const est = runCallTask(
      chain.kv,
      chain.config,
      task("estimate", older, "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0xff01", null),
    );
    assert.ok(est.ok && est.gas !== null && BigInt(est.gas) > 21000n);
    const missing = runCallTask(
      chain.kv,
      chain.config,
      task("call", new Uint8Array(32).fill(5), "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0x", null),
    );
    assert.deepEqual(missing, { ok: false, missing: "block" });
  });

  it("worker pool over a shared RocksDB handle answers as the main thread does", async () => {
    const dir = makeTmpDir();
    const kv = await RocksKv.open(dir);
    const chain = load(kv);
    const pool = new PiscinaPool("evmCall", { threads: 1 }, { handle: kv.shareHandle(), config: json.config });
    try {
      const tasks = [
        task("call", chain.headBlockHash, "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0xff01", null),
        task("call", chain.headBlockHash, "0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930", "0x01", "100000"),
        task("estimate", chain.headBlockHash, "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0xff01", null),
      ];
      for (const t of tasks) {
        const inWorker = await pool.run<CallTaskResult>(t);
        assert.deepEqual(inWorker, runCallTask(kv, chain.config, t));
      }
    } finally {
      await pool.destroy();
      kv.releaseHandle();
      await kv.close();
      removeDir(dir);
    }
  });
});
