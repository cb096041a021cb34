/**
 * Writes docs/cli.md, the command-line reference, from the flag tables (src/cli/cliDocs.ts).
 *
 * Usage: npm run docs:cli [-- --check]   (--check exits 1 when the file is out of date)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { renderCliDocs } from "../src/cli/cliDocs.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI_DOCS_FILE = join(REPO_ROOT, "docs", "cli.md");

/** Whether docs/cli.md is what the tables give now. */
export function cliDocsUpToDate(): boolean {
  let text: string;
  try {
    text = readFileSync(CLI_DOCS_FILE, "utf8");
  } catch {
    return false;
  }
  return text === renderCliDocs();
}

function main(argv: readonly string[]): number {
  if (argv.includes("--check")) {
    if (cliDocsUpToDate()) return 0;
    console.error("docs/cli.md is out of date: run npm run docs:cli");
    return 1;
  }
  writeFileSync(CLI_DOCS_FILE, renderCliDocs());
  console.log(`wrote ${CLI_DOCS_FILE}`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
