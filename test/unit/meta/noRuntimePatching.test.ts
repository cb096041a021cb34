/**
 * No runtime patching of classes (issue 22): no file in src/ assigns to a `.prototype` (or to one of
 * its members), casts `.prototype as` to reach what the type hides, or patches one through
 * `Object.defineProperty` and its kin. Seams are explicit instead: a tracer on the traced loop
 * (evm/tracer.ts), options given to a constructor (`EvmOptions`). Comments are skipped, so prose
 * may still name `Array.prototype.sort`.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const PATCHES: readonly { readonly what: string; readonly re: RegExp }[] = [
  {
    what: "assigns to a .prototype",
    // `X.prototype = …`, `X.prototype.m = …`, `X.prototype["m"] ||= …`; not `===`, `!==` or `=>`.
    re: /\.prototype\b(?:\s*(?:\??\.\s*[A-Za-z_$][\w$]*|\[[^\]\n]*\]))*\s*(?:\*\*|<<|>>>?|&&|\|\||\?\?|[-+*/%&|^])?=(?![=>])/,
  },
  { what: "casts .prototype as", re: /\.prototype\s+as\b/ },
  {
    what: "patches a .prototype through Object/Reflect",
    re: /\b(?:Object|Reflect)\.(?:defineProperty|defineProperties|assign|setPrototypeOf|set)\s*\(\s*[\w$.]+\.prototype\b/,
  },
];

/** `src` with its comments blanked (newlines kept); quotes are tracked so "http://" stays code. */
function withoutComments(src: string): string {
  let out = "";
  let quote = "";
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (quote !== "") {
      out += c;
      if (c === "\\") out += src[++i] ?? "";
      else if (c === quote || (c === "\n" && quote !== "`")) quote = "";
      continue;
    }
    if (c === "/" && src[i + 1] === "/") {
      while (i < src.length && src[i] !== "\n") i++;
      out += "\n";
      continue;
    }
    if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      const stop = end < 0 ? src.length : end + 2;
      out += src.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop - 1;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    out += c;
  }
  return out;
}

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** Every patching line under `dir`, as `file:line: what`. */
function runtimePatches(dir: string): string[] {
  const found: string[] = [];
  for (const file of tsFiles(dir)) {
    const lines = withoutComments(readFileSync(file, "utf8")).split("\n");
    lines.forEach((line, i) => {
      for (const p of PATCHES) if (p.re.test(line)) found.push(`${relative(dir, file)}:${i + 1}: ${p.what}`);
    });
  }
  return found;
}

describe("meta: no runtime patching in src/", () => {
  it("no file in src/ assigns to, casts or redefines a .prototype", () => {
    assert.deepEqual(runtimePatches(join(ROOT, "src")), []);
  });

  it("the check finds each form, and not comments, comparisons or strings", () => {
    const dir = mkdtempSync(join(tmpdir(), "opal-patch-"));
    try {
      writeFileSync(
        join(dir, "bad.ts"),
        [
          "WorldState.prototype.warmAddress = function () {};",
          "const proto = WorldState.prototype as unknown as { f(): void };",
          "Foo.prototype = {};",
          'Foo.prototype["m"] ||= () => 1;',
          'Object.defineProperty(Evm.prototype, "x", { value: 1 });',
        ].join("\n"),
      );
      writeFileSync(
        join(dir, "good.ts"),
        [
          "/** Sorts like `Array.prototype.sort`; WorldState.prototype.f = g in prose. */",
          "// Foo.prototype = {} in a line comment",
          "const same = a.prototype === b.prototype;",
          "const f = (x: typeof Foo.prototype) => x;",
          'const url = "http://example"; // X.prototype = 1',
          "const m = Foo.prototype.m.call(self);",
        ].join("\n"),
      );
      assert.deepEqual(runtimePatches(dir), [
        "bad.ts:1: assigns to a .prototype",
        "bad.ts:2: casts .prototype as",
        "bad.ts:3: assigns to a .prototype",
        "bad.ts:4: assigns to a .prototype",
        "bad.ts:5: patches a .prototype through Object/Reflect",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
