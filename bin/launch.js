// Shared by the command launchers: runs the build of `src/cli/<name>` (dist/, after `npm run build`)
// when present, else the TypeScript source through tsx's loader registered in this process (no
// second node), and hands it the arguments.
import { existsSync } from "node:fs";

export async function launch(name) {
  const built = new URL(`../dist/src/cli/${name}.js`, import.meta.url);
  let mod;
  if (existsSync(built)) {
    mod = await import(built.href);
  } else {
    const { register } = await import("tsx/esm/api");
    register();
    mod = await import(new URL(`../src/cli/${name}.ts`, import.meta.url).href);
  }
  await mod.runProcess(process.argv.slice(2));
}
