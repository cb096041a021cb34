#!/usr/bin/env node
// Launcher of `opal-evm`: runs the build (dist/src/cli/opalEvm.js, `npm run build`) when present,
// else the TypeScript source through tsx's loader (registered in this process, no second node).
import { existsSync } from "node:fs";

const built = new URL("../dist/src/cli/opalEvm.js", import.meta.url);
let mod;
if (existsSync(built)) {
  mod = await import(built.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  mod = await import(new URL("../src/cli/opalEvm.ts", import.meta.url).href);
}
await mod.runProcess(process.argv.slice(2));
