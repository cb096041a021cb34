/**
 * The scenarios part of `npm run reliability` (issue 10 point 5): every mocha test whose title starts
 * with "[scenario] " — L1 reorgs under a sequencer and a verifier, the batcher past the sequencing
 * window, the execution client restarting, the beacon endpoint losing blobs, misbehaving P2P peers,
 * JWT attacks on the Engine API — run by mocha in a child process with the JSON reporter; one row per
 * scenario with its result and duration. The same tests run in `npm test` (the L1 ones in the unit
 * slice, the ones with servers and sockets in the integration slice).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Section, SectionResult } from "./section.js";

/** The files holding "[scenario]" tests. */
export const SCENARIO_FILES: readonly string[] = [
  "test/unit/reliability/scenarios/*.test.ts",
  "test/integration/reliability/scenarios/*.test.ts",
  "test/integration/p2p/p2pNodes.test.ts",
];

const TAG = "[scenario] ";

interface MochaJsonTest {
  readonly title: string;
  readonly fullTitle: string;
  readonly duration?: number;
  readonly err?: { readonly message?: string };
}

interface MochaJson {
  readonly stats: { readonly duration?: number };
  readonly passes: readonly MochaJsonTest[];
  readonly failures: readonly MochaJsonTest[];
  readonly pending: readonly MochaJsonTest[];
}

/** Runs mocha on the scenario tests; resolves with its JSON report and exit code. */
function runMocha(outFile: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "node_modules/.bin/mocha",
      ["--grep", "\\[scenario\\]", "--reporter", "json", "--reporter-option", `output=${outFile}`, ...SCENARIO_FILES],
      { stdio: ["ignore", "inherit", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
      process.stderr.write(c);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stderr }));
  });
}

export const scenariosSection: Section = {
  name: "scenarios",
  async run(): Promise<SectionResult> {
    const dir = mkdtempSync(join(tmpdir(), "opal-scenarios-"));
    const outFile = join(dir, "report.json");
    const t0 = performance.now();
    try {
      const { code, stderr } = await runMocha(outFile);
      const seconds = (performance.now() - t0) / 1000;
      let report: MochaJson;
      try {
        report = JSON.parse(readFileSync(outFile, "utf8")) as MochaJson;
      } catch (e) {
        const why = `mocha exited ${code} without a report (${(e as Error).message}): ${stderr.slice(-300)}`;
        return {
          section: "scenarios",
          rows: [{ scenario: "(mocha run)", result: `FAIL ${why}` }],
          passed: 0,
          summary: why,
        };
      }
      const rows: Record<string, string | number>[] = [];
      const add = (t: MochaJsonTest, result: string) => {
        const title = t.title.startsWith(TAG) ? t.title.slice(TAG.length) : t.title;
        rows.push({ scenario: title.slice(0, 110), result, "time (s)": Number(((t.duration ?? 0) / 1000).toFixed(1)) });
        console.log(`${result === "ok" ? "ok  " : "FAIL"} ${title}`);
      };
      for (const t of report.passes) add(t, "ok");
      for (const t of report.failures) add(t, `FAIL ${(t.err?.message ?? "").split("\n")[0]!.slice(0, 120)}`);
      for (const t of report.pending) add(t, "FAIL skipped");
      if (rows.length === 0) rows.push({ scenario: "(no scenario found)", result: "FAIL", "time (s)": 0 });
      const passed = report.passes.length;
      const summary = `${passed}/${rows.length} scenarios passed in ${seconds.toFixed(1)} s`;
      return { section: "scenarios", rows, passed, summary };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
