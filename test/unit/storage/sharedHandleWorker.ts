/**
 * Worker side of sharedHandle.test.ts: wraps the main thread's native DB with RocksKv.fromHandle and
 * answers read requests. It never writes (the view refuses) and its close() must not close the DB.
 */
import { parentPort, workerData } from "node:worker_threads";
import { WriteBatch } from "../../../src/storage/kv.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";

export type Request =
  | { readonly type: "get"; readonly key: Uint8Array }
  | { readonly type: "reads"; readonly keys: Uint8Array[]; readonly rounds: number }
  | { readonly type: "close" };

export type Reply =
  | { type: "ready"; values: (Uint8Array | undefined)[]; scanned: number; writeError: string; sequence: number }
  | { type: "value"; value: Uint8Array | undefined }
  | { type: "reads"; hits: number; misses: number }
  | { type: "closed"; afterClose: string }
  | { type: "error"; message: string };

const port = parentPort!;
const { handle, keys } = workerData as { handle: bigint; keys: Uint8Array[] };

function codeOf(f: () => unknown): string {
  try {
    f();
    return "none";
  } catch (e) {
    return String((e as { code?: string }).code);
  }
}

const reply = (r: Reply): void => port.postMessage(r);

try {
  const view = await RocksKv.fromHandle(handle);
  reply({
    type: "ready",
    values: view.getMany("hashedAccounts", keys),
    scanned: [...view.iterate("hashedAccounts")].length,
    writeError: codeOf(() => view.write(new WriteBatch().put("meta", new Uint8Array([1]), new Uint8Array([1])))),
    sequence: view.sequence,
  });
  port.on("message", async (m: Request) => {
    try {
      if (m.type === "get") reply({ type: "value", value: view.get("hashedAccounts", m.key) });
      else if (m.type === "reads") {
        let hits = 0;
        let misses = 0;
        for (let r = 0; r < m.rounds; r++) {
          for (const k of m.keys) {
            if (view.get("hashedAccounts", k) === undefined) misses++;
            else hits++;
          }
        }
        reply({ type: "reads", hits, misses });
      } else {
        await view.close();
        reply({ type: "closed", afterClose: codeOf(() => view.get("hashedAccounts", keys[0]!)) });
        port.close();
      }
    } catch (e) {
      reply({ type: "error", message: String(e) });
    }
  });
} catch (e) {
  reply({ type: "error", message: String(e) });
}
