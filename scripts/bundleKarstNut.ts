/**
 * Generates src/rollup/derive/karstNutBundle.ts: the 31 transactions of the Karst network-upgrade
 * (NUT) bundle, the deposits op-node inserts into the Karst activation block (OP specs
 * protocol/karst/derivation.md). Protocol data, embedded field for field and never rebuilt.
 *
 * Input: fixtures/op-stack/nuts/karst_nut_bundle.json, a byte copy of ethereum-optimism/optimism
 * op-core/nuts/bundles/karst_nut_bundle.json (fixtures/op-stack/nuts/SOURCE.md gives its sha256 and
 * the fork_lock.toml entry that pins it). The reader accepts what op-node's NUT reader accepts
 * (op-node rollup/derive/upgrade_transaction.go: schema `metadata.version` "1.0.0", every tx with an
 * intent) and refuses anything else it does not know, so a changed schema cannot pass silently.
 *
 * Usage: npx tsx scripts/bundleKarstNut.ts [--check]   (--check exits 1 when the file is out of date)
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const KARST_NUT_BUNDLE_FILE = join(REPO_ROOT, "src", "rollup", "derive", "karstNutBundle.ts");

/** The only bundle schema op-node v1.19 reads (upgrade_transaction.go `nutBundleVersion`). */
const SUPPORTED_VERSION = "1.0.0";
const TX_KEYS = ["data", "from", "gasLimit", "intent", "to"] as const;

export function karstNutBundlePath(): string {
  const base = process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
  return join(base, "op-stack", "nuts", "karst_nut_bundle.json");
}

/** One bundle transaction as the generated module holds it (addresses and data lower-case 0x-hex). */
export interface NutTxEntry {
  readonly intent: string;
  readonly from: string;
  readonly to: string | null;
  readonly gasLimit: number;
  readonly data: string;
}

export interface ParsedNutBundle {
  readonly sha256: string;
  readonly version: string;
  readonly txs: readonly NutTxEntry[];
}

function fail(where: string, why: string): never {
  throw new Error(`karst_nut_bundle.json ${where}: ${why}`);
}

function address(v: unknown, where: string): string {
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v)) fail(where, "not a 20-byte 0x-hex address");
  return v.toLowerCase();
}

/** Parses and checks the bundle JSON text (see the header for what is accepted). */
export function parseNutBundle(text: string): ParsedNutBundle {
  const sha256 = createHash("sha256").update(text).digest("hex");
  const json = JSON.parse(text) as Record<string, unknown>;
  const keys = Object.keys(json).sort().join(",");
  if (keys !== "metadata,transactions") fail("top level", `keys ${keys}, want metadata,transactions`);
  const meta = json.metadata as Record<string, unknown>;
  if (meta === null || typeof meta !== "object" || Object.keys(meta).join(",") !== "version") {
    fail("metadata", "want exactly {version} (a 1.0.0 bundle declares nothing else)");
  }
  if (meta.version !== SUPPORTED_VERSION)
    fail("metadata.version", `${String(meta.version)}, want ${SUPPORTED_VERSION}`);
  if (!Array.isArray(json.transactions)) fail("transactions", "not an array");
  const txs = json.transactions.map((raw: unknown, i: number): NutTxEntry => {
    const where = `transactions[${i}]`;
    const t = raw as Record<string, unknown>;
    if (t === null || typeof t !== "object") fail(where, "not an object");
    const tk = Object.keys(t).sort().join(",");
    if (tk !== TX_KEYS.join(",")) fail(where, `keys ${tk}, want ${TX_KEYS.join(",")}`);
    if (typeof t.intent !== "string" || t.intent.length === 0) fail(`${where}.intent`, "missing intent");
    if (!/^[\x20-\x7e]+$/.test(t.intent)) fail(`${where}.intent`, "not printable ASCII");
    const gas = t.gasLimit;
    if (typeof gas !== "number" || !Number.isSafeInteger(gas) || gas < 0)
      fail(`${where}.gasLimit`, "not a u64 below 2^53");
    if (typeof t.data !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(t.data)) fail(`${where}.data`, "not 0x-hex bytes");
    return {
      intent: t.intent,
      from: address(t.from, `${where}.from`),
      to: t.to === null ? null : address(t.to, `${where}.to`),
      gasLimit: gas,
      data: t.data.toLowerCase(),
    };
  });
  return { sha256, version: meta.version, txs };
}

export function loadKarstNutBundle(path = karstNutBundlePath()): ParsedNutBundle {
  return parseNutBundle(readFileSync(path, "utf8"));
}

/** The generated module, already in Biome's format so `biome check` passes on it as written. */
export function renderKarstNutBundleModule(path = karstNutBundlePath()): string {
  const b = loadKarstNutBundle(path);
  const total = b.txs.reduce((s, t) => s + t.gasLimit, 0);
  const lines = [
    "/**",
    " * GENERATED FILE, do not edit: `npm run bundle:karst-nut` (scripts/bundleKarstNut.ts) writes it from",
    " * fixtures/op-stack/nuts/karst_nut_bundle.json, a byte copy of ethereum-optimism/optimism",
    " * op-core/nuts/bundles/karst_nut_bundle.json (pinned by op-core/nuts/fork_lock.toml; provenance in",
    " * fixtures/op-stack/nuts/SOURCE.md). The Karst network-upgrade (NUT) bundle: protocol data, the",
    " * deposits of the Karst activation block in order (OP specs protocol/karst/derivation.md). Addresses",
    " * and data are the bundle's, lower-cased; `to` null is a contract creation.",
    ` * Input sha256: ${b.sha256}`,
    ` * ${b.txs.length} transactions, gasLimit total ${total}.`,
    " */",
    "",
    "/** One transaction of a NUT bundle (0x-hex, lower case; `to` null = create). */",
    "export interface NutBundleTx {",
    "  readonly intent: string;",
    "  readonly from: string;",
    "  readonly to: string | null;",
    "  readonly gasLimit: number;",
    "  readonly data: string;",
    "}",
    "",
    "/** sha256 of the bundle file these transactions were read from. */",
    `export const KARST_NUT_BUNDLE_SHA256 = "${b.sha256}";`,
    "",
    "/** The bundle's `metadata.version`. */",
    `export const KARST_NUT_BUNDLE_VERSION = "${b.version}";`,
    "",
    "/** The bundle's transactions, in bundle order. */",
    "export const KARST_NUT_BUNDLE_TXS: readonly NutBundleTx[] = [",
  ];
  for (const t of b.txs) {
    lines.push(
      "  {",
      `    intent: ${JSON.stringify(t.intent)},`,
      `    from: "${t.from}",`,
      `    to: ${t.to === null ? "null" : `"${t.to}"`},`,
      `    gasLimit: ${t.gasLimit},`,
      `    data: "${t.data}",`,
      "  },",
    );
  }
  lines.push("];", "");
  return lines.join("\n");
}

/** True when src/rollup/derive/karstNutBundle.ts equals what the fixture generates. */
export function karstNutBundleUpToDate(path = karstNutBundlePath()): boolean {
  return (
    existsSync(KARST_NUT_BUNDLE_FILE) &&
    readFileSync(KARST_NUT_BUNDLE_FILE, "utf8") === renderKarstNutBundleModule(path)
  );
}

function main(argv: string[]): number {
  const text = renderKarstNutBundleModule();
  if (argv.includes("--check")) {
    const current = existsSync(KARST_NUT_BUNDLE_FILE) ? readFileSync(KARST_NUT_BUNDLE_FILE, "utf8") : "";
    if (current !== text) {
      console.error("src/rollup/derive/karstNutBundle.ts is out of date: run npm run bundle:karst-nut");
      return 1;
    }
    console.log("src/rollup/derive/karstNutBundle.ts is up to date");
    return 0;
  }
  writeFileSync(KARST_NUT_BUNDLE_FILE, text);
  console.log("wrote src/rollup/derive/karstNutBundle.ts");
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
