/**
 * Where the shared corpora live: `$OPAL_FIXTURES`, else `../shared/fixtures` beside the repository.
 * Spec tests read them at test time; nothing from them is copied into the repo. A test whose corpus
 * is missing fails (an assertion naming the path and OPAL_FIXTURES); it never skips.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export function fixturesDir(): string {
  return requireFixture(process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures"));
}

/**
 * `path` (a file or folder of the shared corpora) when it exists; otherwise an assertion failure
 * that names it and OPAL_FIXTURES, so that a suite without its corpus fails instead of skipping.
 */
export function requireFixture(path: string): string {
  if (!existsSync(path)) {
    const env = process.env.OPAL_FIXTURES;
    const from =
      env === undefined ? "OPAL_FIXTURES unset, so ../shared/fixtures beside the repo" : `OPAL_FIXTURES=${env}`;
    assert.fail(`fixture corpus not found at ${path} (${from}): set OPAL_FIXTURES to the shared fixtures folder`);
  }
  return path;
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
