/**
 * Import-direction guard (ARCHITECTURE.md "Layers"). Every import between src/ folders must point
 * down the layer order; workers/ may import any src/ file; src/ never imports workers/, test/ or
 * bench/. The order is parsed from ARCHITECTURE.md so the map and the check cannot drift apart.
 * On top of the order, `BANNED` lists downward edges that are still forbidden.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

function layerOrder(): string[][] {
  const md = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
  const m = /<!-- layers -->\s*```\s*([\s\S]*?)```/.exec(md);
  assert.ok(m, "ARCHITECTURE.md must contain the layer order in a ``` block after <!-- layers -->");
  // Tiers separated by "<"; folders within a tier (same rank) separated by "·".
  return m[1]!
    .replace(/\s+/g, " ")
    .split("<")
    .map((tier) =>
      tier
        .split("·")
        .map((s) => s.trim())
        .filter(Boolean),
    );
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/**
 * Downward edges the order allows but the design forbids (code-models §9.2): the rollup node, its
 * P2P stack and the batcher reach an execution client only through the Engine API and JSON-RPC
 * (engine/, rpc/ and their own clients), so they drive a remote EL unchanged, as op-node never
 * links op-geth. What both sides need (the L1-info calldata codec, the predeploy addresses) lives
 * in a tier both may import (tx/, spec/).
 */
const EXECUTION_SIDE = ["state", "evm", "executor", "chain", "txpool"] as const;
const BANNED: Readonly<Record<string, readonly string[]>> = {
  rollup: EXECUTION_SIDE,
  p2p: EXECUTION_SIDE,
  batcher: EXECUTION_SIDE,
};

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(file: string): string[] {
  const src = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of src.matchAll(IMPORT_RE)) out.push((m[1] ?? m[2])!);
  return out;
}

/** Folder of `src/<folder>/...`, or null for files outside src. */
function srcFolder(abs: string): string | null {
  const rel = relative(join(ROOT, "src"), abs);
  if (rel.startsWith("..")) return null;
  const first = rel.split(/[\\/]/)[0]!;
  return first.endsWith(".ts") ? "(root)" : first;
}

describe("layers: import direction", () => {
  const tiers = layerOrder();
  const rank = new Map<string, number>();
  tiers.forEach((tier, i) => {
    for (const f of tier) rank.set(f, i);
  });

  it("every src/ folder has a place in the layer order", () => {
    const folders = readdirSync(join(ROOT, "src")).filter((n) => statSync(join(ROOT, "src", n)).isDirectory());
    const missing = folders.filter((f) => !rank.has(f));
    assert.deepEqual(missing, [], `folders missing from ARCHITECTURE.md layer order: ${missing.join(", ")}`);
  });

  it("src/ imports point down the order and never reach workers/, test/ or bench/", () => {
    const violations: string[] = [];
    for (const file of walk(join(ROOT, "src"))) {
      const from = srcFolder(file)!;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        const target = resolve(dirname(file), spec);
        const to = srcFolder(target);
        const where = `${relative(ROOT, file)} → ${spec}`;
        if (to === null) {
          violations.push(`${where}: src/ imports outside src/`);
          continue;
        }
        if (to === from || from === "(root)") continue;
        const rf = rank.get(from);
        const rt = rank.get(to);
        if (rf === undefined || rt === undefined) violations.push(`${where}: folder not in the layer order`);
        else if (rt >= rf) violations.push(`${where}: ${from} (tier ${rf}) may not import ${to} (tier ${rt})`);
      }
    }
    assert.deepEqual(violations, []);
  });

  it("rollup/, p2p/ and batcher/ never import the execution side (the ban list)", () => {
    const violations: string[] = [];
    for (const file of walk(join(ROOT, "src"))) {
      const from = srcFolder(file)!;
      const banned = BANNED[from];
      if (banned === undefined) continue;
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        const to = srcFolder(resolve(dirname(file), spec));
        if (to !== null && banned.includes(to)) {
          violations.push(`${relative(ROOT, file)} → ${spec}: ${from} may not import ${to} (ban list)`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it("workers/ files are thin: they import only src/ and packages", () => {
    const bad: string[] = [];
    for (const file of walk(join(ROOT, "workers"))) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith(".")) continue;
        if (srcFolder(resolve(dirname(file), spec)) === null) bad.push(`${relative(ROOT, file)} → ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it("the checker itself catches an upward import", () => {
    // A self-test so the guard cannot silently pass: rank lookups must order the known layers.
    assert.ok(rank.get("primitives")! < rank.get("rlp")!);
    assert.ok(rank.get("rlp")! < rank.get("trie")!);
    // The ban list names only folders of the order, each below the folder it is banned from (so a
    // rename cannot silently empty it).
    for (const [from, banned] of Object.entries(BANNED)) {
      assert.ok(rank.has(from), `ban list: ${from} is not in the layer order`);
      for (const to of banned) {
        assert.ok(rank.has(to), `ban list: ${to} is not in the layer order`);
        assert.ok(rank.get(to)! < rank.get(from)!, `ban list: ${to} is not below ${from}`);
      }
    }
    const fake = `import {x} from "../trie/node.js";`;
    const m = [...fake.matchAll(IMPORT_RE)];
    assert.equal(m[0]![1], "../trie/node.js");
  });
});
