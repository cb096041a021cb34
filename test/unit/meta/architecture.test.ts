/**
 * ARCHITECTURE.md is the map a newcomer reads first, so it must stay one that can be read and
 * followed: no line over 300 characters, both walkthroughs present, and every file or folder it
 * (or the README, or a page of docs/ or docs/design/) names must exist. A path in backticks counts
 * when it starts with one of the repository's top-level folders (`src/…`, `test/…`) or ends in a
 * TypeScript/JavaScript extension; a short form such as `derive/pipeline.ts` must be the tail of
 * an existing path, so a moved or renamed file is caught.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const TOP = ["src", "test", "bench", "scripts", "workers", "docs", "native", "contracts", "bin", ".ci"];

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "build" || name === "dist" || name.startsWith(".git")) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) {
      out.push(`${relative(ROOT, p)}/`);
      walk(p, out);
    } else out.push(relative(ROOT, p));
  }
  return out;
}

const TREE: readonly string[] = TOP.filter((t) => existsSync(join(ROOT, t))).flatMap((t) => [
  `${t}/`,
  ...walk(join(ROOT, t), []),
]);

/** Backticked tokens that name a repository path (see the file comment). */
function namedPaths(md: string): string[] {
  const out: string[] = [];
  for (const m of md.matchAll(/`([^`\s]+)`/g)) {
    const t = m[1]!.replace(/[),.;:]+$/, "");
    if (/[*<>{}$|]/.test(t) || t.includes("://")) continue;
    const top = TOP.some((d) => t === d || t.startsWith(`${d}/`));
    if (top || /[\w-]\.(ts|mts|mjs)$/.test(t)) out.push(t);
  }
  return out;
}

/** Whether `p` names an existing file or folder: exactly (from the root) or as the tail of one. */
function pathExists(p: string, tree: readonly string[] = TREE): boolean {
  const clean = p.replace(/^\.\//, "");
  const folder = clean.endsWith("/") ? clean : `${clean}/`;
  if (TOP.some((d) => clean === d || clean.startsWith(`${d}/`))) {
    return tree.includes(clean) || tree.includes(folder);
  }
  return tree.some((f) => f === clean || f.endsWith(`/${clean}`) || f === folder || f.endsWith(`/${folder}`));
}

function docsToCheck(): string[] {
  const md = (dir: string): string[] =>
    existsSync(join(ROOT, dir))
      ? readdirSync(join(ROOT, dir))
          .filter((f) => f.endsWith(".md"))
          .map((f) => join(dir, f))
      : [];
  return ["ARCHITECTURE.md", "README.md", ...md("docs"), ...md(join("docs", "design"))];
}

describe("meta/architecture: ARCHITECTURE.md reads as a map", () => {
  const arch = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");

  it("has no line over 300 characters", () => {
    const long = arch
      .split("\n")
      .map((l, i) => [i + 1, l.length] as const)
      .filter(([, n]) => n > 300);
    assert.deepEqual(long, [], `lines over 300 characters (line, length): ${JSON.stringify(long)}`);
  });

  it("has both walkthroughs, each naming the files it passes through", () => {
    const sections = arch.split(/\n(?=## )/).filter((s) => s.startsWith("## Walkthrough"));
    const titles = sections.map((s) => s.split("\n")[0]);
    assert.equal(sections.length, 2, `two walkthroughs, got ${JSON.stringify(titles)}`);
    assert.ok(
      titles.some((t) => /engine_newPayload/.test(t!)),
      "an L2 block from engine_newPayload",
    );
    assert.ok(
      titles.some((t) => /eth_sendRawTransaction/.test(t!)),
      "a transaction from eth_sendRawTransaction",
    );
    for (const s of sections) {
      const paths = namedPaths(s).filter((p) => p.startsWith("src/"));
      assert.ok(paths.length >= 6, `${s.split("\n")[0]}: names ${paths.length} src/ files, want at least 6`);
    }
  });

  for (const doc of docsToCheck()) {
    it(`every path ${doc} names exists`, () => {
      const missing = namedPaths(readFileSync(join(ROOT, doc), "utf8")).filter((p) => !pathExists(p));
      assert.deepEqual([...new Set(missing)], [], `${doc} names paths that do not exist`);
    });
  }

  it("the path check catches a moved file (the check can fail)", () => {
    const tree = ["src/", "src/rollup/", "src/rollup/l1/", "src/rollup/l1/blobVerifier.ts"];
    assert.ok(pathExists("src/rollup/l1/blobVerifier.ts", tree));
    assert.ok(pathExists("l1/blobVerifier.ts", tree));
    assert.ok(pathExists("src/rollup/l1/", tree));
    assert.ok(!pathExists("src/rollup/blobVerifier.ts", tree));
    assert.ok(!pathExists("rollup/blobVerifier.ts", tree));
    assert.deepEqual(namedPaths("see `src/a.ts`, `derive/b.ts`, `op-node/x.go`, `npm test`, `.ts` and `src/**`"), [
      "src/a.ts",
      "derive/b.ts",
    ]);
  });
});
