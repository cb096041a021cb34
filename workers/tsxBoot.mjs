// Worker bootstrap used only when Opal runs from TypeScript sources (tests, benches under tsx).
// On Node 20, `--import tsx` registers its loader in the main thread only, so a worker thread cannot
// import a .ts entry by itself (ERR_UNKNOWN_FILE_EXTENSION). This shim registers tsx inside the worker,
// then imports the real entry named in workerData and hands its default export to Piscina.
// The built node (dist/) never loads this file: its pools point straight at the compiled .js workers.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { workerData } from "node:worker_threads";

const pkgPath = createRequire(import.meta.url).resolve("tsx/package.json");
const pkg = JSON.parse(readFileSync(pkgPath, "utf8"));
const api = await import(pathToFileURL(join(dirname(pkgPath), pkg.exports["./esm/api"].import.default)).href);
api.register();
const entry = await import(workerData.opalEntry);

export default entry.default;
