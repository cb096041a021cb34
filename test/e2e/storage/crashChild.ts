/**
 * Child process of crash.test.ts: writes numbered cross-table batches forever and prints each batch
 * number to stdout only after `write()` returned (the acknowledgement). The parent SIGKILLs it.
 * argv: <dir> <"sync" | "nosync">
 */
import { WriteBatch } from "../../../src/storage/kv.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { crashKey, crashValue, PER_TABLE } from "./crashData.js";

async function main(dir: string, sync: boolean): Promise<never> {
  const kv = await RocksKv.open(dir, { cacheBytes: 1 << 20 });
  for (let i = 0; ; i++) {
    const b = new WriteBatch();
    for (let j = 0; j < PER_TABLE; j++) {
      b.put("hashedAccounts", crashKey(i, j), crashValue(i, j));
      b.put("hashedStorage", crashKey(i, j), crashValue(i, j));
    }
    kv.write(b, { sync });
    // Synchronous on a pipe (Linux): printed means acknowledged. The loop never yields, so the
    // parent's SIGKILL lands while the child is busy, most often inside a write.
    process.stdout.write(`${i}\n`);
  }
}

main(process.argv[2]!, process.argv[3] === "sync").catch((e) => {
  console.error(e);
  process.exit(1);
});
