/** What the devnet scripts print when a check fails: the last status lines and each log's tail. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function printFailureContext(dir: string, lines: readonly string[]): void {
  console.log(lines.slice(-10).join("\n"));
  let logs: string[] = [];
  try {
    logs = readdirSync(join(dir, "logs"));
  } catch {
    return; // no logs yet
  }
  for (const f of logs) {
    const tail = readFileSync(join(dir, "logs", f), "utf8")
      .trim()
      .split("\n")
      .slice(-5)
      .join("\n");
    console.log(`--- ${f}\n${tail}`);
  }
}
