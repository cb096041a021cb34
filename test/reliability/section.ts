/**
 * One part of `npm run reliability` (issue 10): fuzzing, kill/restart cycles, soak, scenarios.
 * Each part runs on its own, prints what it does as it goes, and returns its rows for the table;
 * scripts/reliability.ts runs the parts named on its command line (all by default).
 */
export interface SectionResult {
  /** The part's name, as given on the command line. */
  readonly section: string;
  /** One row per target, cycle kind or scenario. */
  readonly rows: Record<string, string | number>[];
  /** How many rows passed, out of rows.length. */
  readonly passed: number;
  /** A one-line figure for the summary table (e.g. "17/17 targets clean at 100000 cases"). */
  readonly summary: string;
}

export interface Section {
  readonly name: string;
  run(): Promise<SectionResult>;
}
