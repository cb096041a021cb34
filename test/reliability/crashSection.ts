/**
 * The crash part of `npm run reliability`: every kind of crashHarness.ts with OPAL_CRASH_CYCLES
 * SIGKILL/restart cycles (default 50), one row each. OPAL_CRASH_KINDS (comma-separated) picks kinds;
 * OPAL_CRASH_SEED replays a run (each kind gets the seed; printed when chosen at random).
 * OPAL_CRASH_INJECT_LOSS=1 proves the checks: after each kill the harness drops the last
 * acknowledged item itself, and a kind passes only when it reports lost items.
 */
import { CRASH_KINDS, type CrashKind, runCrashKind } from "./crashHarness.js";
import type { Section, SectionResult } from "./section.js";

/** The kinds named in `list` (comma-separated), or all; an unknown name throws. */
export function crashKindsOf(list: string | undefined): CrashKind[] {
  if (list === undefined || list.trim() === "") return [...CRASH_KINDS];
  const names = list.split(",").map((s) => s.trim());
  for (const n of names) {
    if (!(CRASH_KINDS as readonly string[]).includes(n))
      throw new RangeError(`OPAL_CRASH_KINDS: unknown kind ${n}; kinds: ${CRASH_KINDS.join(", ")}`);
  }
  return names as CrashKind[];
}

export const crashSection: Section = {
  name: "crash",
  async run(): Promise<SectionResult> {
    const cycles = Number(process.env.OPAL_CRASH_CYCLES ?? 50);
    const seed = Number(process.env.OPAL_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const kinds = crashKindsOf(process.env.OPAL_CRASH_KINDS);
    const injectLoss = process.env.OPAL_CRASH_INJECT_LOSS === "1";
    console.log(
      `crash: seed ${seed} (OPAL_CRASH_SEED=${seed} replays the kill points), ${cycles} cycles per kind${injectLoss ? ", loss injected after each kill: every kind must report lost items" : ""}`,
    );
    const rows: Record<string, string | number>[] = [];
    let passed = 0;
    let lost = 0;
    for (const kind of kinds) {
      const r = await runCrashKind(kind, { cycles, seed, injectLoss, print: (l) => console.log(l) });
      const ok = injectLoss ? r.lost > 0 : r.passed === r.cycles && r.lost === 0 && r.failures.length === 0;
      if (ok) passed++;
      lost += r.lost;
      rows.push({
        kind,
        cycles: `${r.passed}/${r.cycles}`,
        lost: r.lost,
        "acks checked": r.checked,
        "max catch-up s": Number((r.maxCatchUpMs / 1000).toFixed(1)),
        result: injectLoss
          ? ok
            ? "ok: the injected loss was reported"
            : "FAIL: the injected loss went unnoticed"
          : ok
            ? "ok"
            : `FAIL ${r.failures[0]?.slice(0, 100) ?? ""}`,
        note: r.note,
      });
    }
    const summary = injectLoss
      ? `${passed}/${kinds.length} kinds reported the loss injected after their kills (${lost} items, ${cycles} cycles each, seed ${seed})`
      : `${passed}/${kinds.length} kinds clean at ${cycles} kill/restart cycles each, ${lost} acknowledged items lost (seed ${seed})`;
    return { section: "crash", rows, passed, summary };
  },
};
