/**
 * Where the shared corpora live: `$OPAL_FIXTURES`, else `../shared/fixtures` beside the repository.
 * Spec tests read them at test time; nothing from them is copied into the repo.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export function fixturesDir(): string {
  const dir = process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
  if (!existsSync(dir)) {
    throw new Error(`fixtures not found at ${dir}: put ../shared beside the repo or set OPAL_FIXTURES`);
  }
  return dir;
}

export function fixturePath(...parts: string[]): string {
  return join(fixturesDir(), ...parts);
}

export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** All files under `dir` ending in `ext`, sorted, recursively. */
export function listFiles(dir: string, ext = ".json"): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(ext)) out.push(p);
    }
  };
  walk(dir);
  return out;
}
