/**
 * The shared-handle mode in real worker threads: a worker wraps the main thread's native DB
 * (RocksKv.fromHandle), reads synchronously, sees new writes at once, cannot write, and its close()
 * leaves the DB open. Shutdown follows the documented order: workers gone → releaseHandle → close.
 */
import { strict as assert } from "node:assert";
import { once } from "node:events";
import type { Worker } from "node:worker_threads";
import { WriteBatch } from "../../../src/storage/kv.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { tsWorker } from "../../utils/tsWorker.js";
import type { Reply, Request } from "./sharedHandleWorker.js";

const WORKER_URL = new URL("./sharedHandleWorker.ts", import.meta.url);
const key = (i: number): Uint8Array => new Uint8Array([i >> 8, i & 0xff, 0xaa]);

class Client {
  readonly worker: Worker;
  private readonly replies: Reply[] = [];
  private waiter: ((r: Reply) => void) | null = null;

  constructor(handle: bigint, keys: Uint8Array[]) {
    this.worker = tsWorker(WORKER_URL, { workerData: { handle, keys } });
    this.worker.on("message", (r: Reply) => {
      if (this.waiter) {
        const w = this.waiter;
        this.waiter = null;
        w(r);
      } else this.replies.push(r);
    });
  }

  next(): Promise<Reply> {
    const r = this.replies.shift();
    if (r) return Promise.resolve(r);
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.worker.once("error", reject);
    });
  }

  async ask(req: Request): Promise<Reply> {
    this.worker.postMessage(req);
    const r = await this.next();
    if (r.type === "error") throw new Error(`worker: ${r.message}`);
    return r;
  }
}

describe("storage/rocksdb shared handle (worker_threads)", function () {
  this.timeout(30_000);
  let dir: string;
  let kv: RocksKv;
  const keys = Array.from({ length: 100 }, (_, i) => key(i));

  beforeEach(async () => {
    dir = makeTmpDir();
    kv = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
    const b = new WriteBatch();
    for (const [i, k] of keys.entries()) b.put("hashedAccounts", k, new Uint8Array([i & 0xff]));
    kv.write(b);
  });
  afterEach(async () => {
    await kv.close().catch(() => {});
    removeDir(dir);
  });

  it("a worker reads the owner's DB, sees new writes at once, cannot write, and its close() is a detach", async () => {
    const c = new Client(kv.shareHandle(), keys);
    const ready = await c.next();
    assert.equal(ready.type, "ready", JSON.stringify(ready));
    if (ready.type !== "ready") return;
    assert.deepEqual(
      ready.values,
      keys.map((_, i) => new Uint8Array([i & 0xff])),
    );
    assert.equal(ready.scanned, 100);
    assert.equal(ready.writeError, "READ_ONLY");
    assert.equal(ready.sequence, kv.sequence);

    const fresh = key(500);
    assert.deepEqual(await c.ask({ type: "get", key: fresh }), { type: "value", value: undefined });
    kv.write(new WriteBatch().put("hashedAccounts", fresh, new Uint8Array([5, 0, 0])));
    assert.deepEqual(await c.ask({ type: "get", key: fresh }), { type: "value", value: new Uint8Array([5, 0, 0]) });

    // Closing while the handle is shared is refused (a worker may be mid-read: that segfaults).
    await assert.rejects(kv.close(), (e: { code?: string }) => e.code === "HANDLE_SHARED");

    assert.deepEqual(await c.ask({ type: "close" }), { type: "closed", afterClose: "CLOSED" });
    const [exitCode] = await once(c.worker, "exit");
    assert.equal(exitCode, 0);
    assert.deepEqual(kv.get("hashedAccounts", fresh), new Uint8Array([5, 0, 0]), "owner DB still open");

    kv.releaseHandle();
    await kv.close();
  });

  it("two workers read concurrently while the owner commits; terminate → release → close is clean", async () => {
    const handle = kv.shareHandle();
    kv.shareHandle();
    const clients = [new Client(handle, keys), new Client(handle, keys)];
    for (const c of clients) assert.equal((await c.next()).type, "ready");

    const reads = clients.map((c) => c.ask({ type: "reads", keys, rounds: 200 }));
    // Commit while the workers read (each batch rewrites existing keys and adds new ones).
    for (let n = 0; n < 20; n++) {
      const b = new WriteBatch();
      for (let i = 0; i < 100; i++) b.put("hashedAccounts", keys[i]!, new Uint8Array([n, i & 0xff]));
      b.put("hashedAccounts", key(1000 + n), new Uint8Array([n]));
      kv.write(b);
      await new Promise((r) => setImmediate(r));
    }
    for (const r of await Promise.all(reads)) assert.deepEqual(r, { type: "reads", hits: 20_000, misses: 0 });

    // A worker that is terminated without closing its view is safe; then the owner may close.
    await Promise.all(clients.map((c) => c.worker.terminate()));
    kv.releaseHandle();
    kv.releaseHandle();
    assert.equal(kv.sharedHandles, 0);
    await kv.close();
  });
});
