/**
 * Durability under SIGKILL: a child process writes acknowledged cross-table batches to RocksKv and
 * is killed with SIGKILL mid-stream. After reopening, every acknowledged batch is present, no batch
 * is partial, and the batches present form a prefix (WAL order). Run with sync:false (the default
 * write; survives a process crash, not power loss) and sync:true.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { REPO_ROOT } from "../../utils/fixtures.js";
import { makeTmpDir, removeDir } from "../../utils/tmpDir.js";
import { crashValue, PER_TABLE } from "./crashData.js";

const CHILD = fileURLToPath(new URL("./crashChild.ts", import.meta.url));
const KILL_AFTER_ACKS = 40;

/** Runs the child until it has acknowledged KILL_AFTER_ACKS batches, SIGKILLs it, returns every ack read. */
function runAndKill(dir: string, mode: "sync" | "nosync"): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, dir, mode], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acks: number[] = [];
    let partial = "";
    let stderr = "";
    let killed = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`child produced ${acks.length} acks in 20 s; stderr: ${stderr}`));
    }, 20_000);
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop()!;
      for (const l of lines) acks.push(Number(l));
      if (!killed && acks.length >= KILL_AFTER_ACKS) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (signal !== "SIGKILL") reject(new Error(`child exited with ${code}/${signal}; stderr: ${stderr}`));
      else resolve(acks); // "close" comes after stdout ended, so every ack the child wrote is in `acks`
    });
  });
}

for (const mode of ["nosync", "sync"] as const) {
  describe(`storage/rocksdb SIGKILL durability (${mode === "sync" ? "sync:true" : "sync:false"})`, function () {
    this.timeout(40_000);
    let dir: string;
    beforeEach(() => {
      dir = makeTmpDir();
    });
    afterEach(() => {
      removeDir(dir);
    });

    it("every acknowledged batch survives, none is partial, the survivors are a prefix", async () => {
      const acks = await runAndKill(dir, mode);
      assert.ok(acks.length >= KILL_AFTER_ACKS);
      assert.deepEqual(
        acks,
        acks.map((_, i) => i),
        "acks are 0..n-1 in order",
      );

      const kv = await RocksKv.open(dir, { createIfMissing: false });
      try {
        for (const table of ["hashedAccounts", "hashedStorage"] as const) {
          const perBatch = new Map<number, number>();
          for (const [k, v] of kv.iterate(table)) {
            const view = new DataView(k.buffer, k.byteOffset, k.byteLength);
            const batch = view.getUint32(0);
            assert.deepEqual(v, crashValue(batch, view.getUint32(4)));
            perBatch.set(batch, (perBatch.get(batch) ?? 0) + 1);
          }
          const present = [...perBatch.keys()].sort((a, b) => a - b);
          for (const b of present) assert.equal(perBatch.get(b), PER_TABLE, `${table}: batch ${b} is partial`);
          assert.deepEqual(
            present,
            present.map((_, i) => i),
            `${table}: surviving batches must be a prefix`,
          );
          assert.ok(
            present.length >= acks.length,
            `${table}: ${present.length} batches survived, ${acks.length} acked`,
          );
          // Atomic across tables: the same batches survived in both.
          if (table === "hashedStorage") {
            const a = new Set<number>();
            for (const [k] of kv.iterate("hashedAccounts")) a.add(new DataView(k.buffer, k.byteOffset).getUint32(0));
            assert.equal(a.size, present.length);
          }
        }
      } finally {
        await kv.close();
      }
    });
  });
}
