// Builds the optional native addon (binding.gyp → build/Release/opal_native.node).
// Runs as the package's install script. A failed build is not fatal: every native function has a
// pure-TS twin (src/native/load.ts falls back), so the node still installs and runs, only slower.
// `--force` (npm run build:native) makes a failure exit non-zero instead.
import { spawnSync } from "node:child_process";

const force = process.argv.includes("--force");
if (process.env.OPAL_NATIVE === "0" && !force) {
  console.log("opal: OPAL_NATIVE=0, skipping the native addon build");
  process.exit(0);
}
const r = spawnSync("node-gyp", ["rebuild"], { stdio: "inherit", shell: process.platform === "win32" });
if (r.status !== 0) {
  const msg = `opal: native addon build failed (${r.error?.message ?? `exit ${r.status}`}); the pure-TS paths will be used`;
  if (force) {
    console.error(msg);
    process.exit(1);
  }
  console.warn(msg);
}
