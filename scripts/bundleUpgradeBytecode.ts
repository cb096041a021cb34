/**
 * Generates src/rollup/derive/upgradeBytecode.ts: the contract-creation bytecode that the network
 * upgrade deposits of Ecotone, Fjord, Isthmus, Jovian (and Interop) carry as data. It is protocol
 * data, fixed byte for byte by the OP specs, so it is embedded as hex and never rebuilt from source.
 *
 * Inputs (fixtures/op-stack/network-upgrade-txs, see fixtures/op-stack/SOURCE.md §3):
 * - specs-bytecode/*.txt: ethereum-optimism/specs `specs/static/bytecode/*.txt` (0x-hex), one
 *   export per file, named after it (`ecotone-l1-block-deployment.txt` → ECOTONE_L1_BLOCK_DEPLOYMENT_HEX).
 * - kona/eip4788_ecotone.hex and kona/eip2935_isthmus.hex: the EIP-4788 and EIP-2935 system
 *   contract deployments. The specs print these inline (ecotone/derivation.md, isthmus/derivation.md)
 *   rather than under static/bytecode; kona's copies are the same bytes as files.
 *
 * Usage: npx tsx scripts/bundleUpgradeBytecode.ts [--check]   (--check exits 1 when the file is out of date)
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const UPGRADE_BYTECODE_FILE = join(REPO_ROOT, "src", "rollup", "derive", "upgradeBytecode.ts");

/** Provenance of the inputs, as fixtures/op-stack/SOURCE.md §3 records it. */
const SPECS_SOURCE = "ethereum-optimism/specs @ fd72cf797df6778fca67177c5335563bc602757c, specs/static/bytecode";
const KONA_SOURCE = "op-rs/kona @ cdb9be247e4178741d152e475e523883a31c4dbe, crates/protocol/hardforks/src/bytecode";

/** The kona files bundled (the EIP system-contract deployments the specs print inline), with their export names. */
const KONA_FILES: readonly (readonly [file: string, name: string])[] = [
  ["eip4788_ecotone.hex", "EIP4788_BEACON_ROOTS_DEPLOYMENT_HEX"],
  ["eip2935_isthmus.hex", "EIP2935_BLOCK_HASH_HISTORY_DEPLOYMENT_HEX"],
];

export function upgradeTxsFixturesDir(): string {
  const base = process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
  return join(base, "op-stack", "network-upgrade-txs");
}

interface Entry {
  /** Path relative to the fixtures folder, for the header. */
  readonly source: string;
  readonly sha256: string;
  readonly name: string;
  /** Lower-case 0x-hex. */
  readonly hex: string;
}

function readHexFile(path: string, where: string): { hex: string; sha256: string } {
  const text = readFileSync(path, "utf8");
  const sha256 = createHash("sha256").update(text).digest("hex");
  const body = text.trim().replace(/^0x/i, "").toLowerCase();
  if (body.length === 0 || body.length % 2 !== 0 || !/^[0-9a-f]+$/.test(body)) {
    throw new Error(`${where}: not a single even-length hex string`);
  }
  return { hex: `0x${body}`, sha256 };
}

/** `ecotone-l1-block-deployment.txt` → `ECOTONE_L1_BLOCK_DEPLOYMENT_HEX`. */
function exportName(file: string): string {
  return `${file
    .replace(/\.txt$/, "")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toUpperCase()}_HEX`;
}

export function loadUpgradeBytecode(dir = upgradeTxsFixturesDir()): Entry[] {
  const out: Entry[] = [];
  const specsDir = join(dir, "specs-bytecode");
  for (const f of readdirSync(specsDir)
    .filter((x) => x.endsWith(".txt"))
    .sort()) {
    const { hex, sha256 } = readHexFile(join(specsDir, f), `specs-bytecode/${f}`);
    out.push({ source: `specs-bytecode/${f}`, sha256, name: exportName(f), hex });
  }
  for (const [f, name] of KONA_FILES) {
    const { hex, sha256 } = readHexFile(join(dir, "kona", f), `kona/${f}`);
    out.push({ source: `kona/${f}`, sha256, name, hex });
  }
  const names = new Set(out.map((e) => e.name));
  if (names.size !== out.length) throw new Error("two bytecode files map to the same export name");
  return out;
}

/** The generated module, already in Biome's format so `biome check` passes on it as written. */
export function renderUpgradeBytecodeModule(dir = upgradeTxsFixturesDir()): string {
  const entries = loadUpgradeBytecode(dir);
  const lines = [
    "/**",
    " * GENERATED FILE, do not edit: `npx tsx scripts/bundleUpgradeBytecode.ts` writes it from",
    " * fixtures/op-stack/network-upgrade-txs. Contract-creation bytecode of the network-upgrade deposits,",
    " * protocol data fixed byte for byte by the OP specs (0x-hex, lower case). Sources:",
    ` * - specs-bytecode/: ${SPECS_SOURCE}`,
    ` * - kona/: ${KONA_SOURCE}`,
    " * Input sha256 per file:",
    ...entries.map((e) => ` * - ${e.source}: ${e.sha256}`),
    " */",
  ];
  for (const e of entries) {
    lines.push(
      "",
      `/** ${e.source} (${(e.hex.length - 2) / 2} bytes). */`,
      `export const ${e.name} =`,
      `  "${e.hex}";`,
    );
  }
  lines.push("");
  return lines.join("\n");
}

/** True when src/rollup/derive/upgradeBytecode.ts equals what the fixtures generate. */
export function upgradeBytecodeUpToDate(dir = upgradeTxsFixturesDir()): boolean {
  return (
    existsSync(UPGRADE_BYTECODE_FILE) &&
    readFileSync(UPGRADE_BYTECODE_FILE, "utf8") === renderUpgradeBytecodeModule(dir)
  );
}

function main(argv: string[]): number {
  const text = renderUpgradeBytecodeModule();
  if (argv.includes("--check")) {
    const current = existsSync(UPGRADE_BYTECODE_FILE) ? readFileSync(UPGRADE_BYTECODE_FILE, "utf8") : "";
    if (current !== text) {
      console.error(
        "src/rollup/derive/upgradeBytecode.ts is out of date: run npx tsx scripts/bundleUpgradeBytecode.ts",
      );
      return 1;
    }
    console.log("src/rollup/derive/upgradeBytecode.ts is up to date");
    return 0;
  }
  writeFileSync(UPGRADE_BYTECODE_FILE, text);
  console.log("wrote src/rollup/derive/upgradeBytecode.ts");
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
