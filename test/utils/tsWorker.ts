/**
 * Starts a worker thread on a .ts entry file under tsx. On Node 20, `execArgv: ["--import", "tsx"]`
 * is not enough: tsx registers its ESM hooks only in the main thread there (it needs
 * `worker_threads.isInternalThread`, Node ≥ 22.14, to do so in workers), and the worker fails with
 * ERR_UNKNOWN_FILE_EXTENSION. So the worker starts from an eval script that calls tsx's register()
 * and then imports the entry.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * URL of the ESM build of `tsx/esm/api`, read from tsx's exports map. Not import.meta.resolve (mocha
 * loads test files through tsx's CJS path, where it does not exist) and not the CJS build that
 * require.resolve finds (its register() fails on Node 20 with ERR_MODULE_NOT_FOUND).
 */
function tsxApiUrl(): string {
  const pkgPath = createRequire(import.meta.url).resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as {
    exports: Record<string, { import: { default: string } }>;
  };
  return pathToFileURL(join(dirname(pkgPath), pkg.exports["./esm/api"]!.import.default)).href;
}

const TSX_API = tsxApiUrl();

export function tsWorker(entry: URL, options: WorkerOptions = {}): Worker {
  const boot = `import(${JSON.stringify(TSX_API)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}
