/**
 * The soak part of `npm run reliability`: the devnet under steady load for OPAL_SOAK_SECONDS
 * (default 600; soak.ts), one row per devnet process, a load row and a safe-head row. The rates
 * and the port offset have their own variables: OPAL_SOAK_TX_RATE, OPAL_SOAK_CALL_RATE,
 * OPAL_SOAK_READ_RATE, OPAL_SOAK_READ_CONCURRENCY, OPAL_SOAK_PORT_OFFSET.
 */
import type { Section, SectionResult } from "./section.js";
import { judgeSoak, runSoak, SOAK_DEFAULTS, type SoakOptions } from "./soak.js";

function envNumber(name: string, def: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`${name}: want a number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
}

/** The soak's options from the environment, SOAK_DEFAULTS where unset. */
export function soakOptionsFromEnv(print: (line: string) => void): SoakOptions {
  const d = SOAK_DEFAULTS;
  return {
    ...d,
    seconds: envNumber("OPAL_SOAK_SECONDS", d.seconds),
    txRate: envNumber("OPAL_SOAK_TX_RATE", d.txRate),
    callRate: envNumber("OPAL_SOAK_CALL_RATE", d.callRate),
    readRate: envNumber("OPAL_SOAK_READ_RATE", d.readRate),
    readConcurrency: Math.max(1, Math.floor(envNumber("OPAL_SOAK_READ_CONCURRENCY", d.readConcurrency))),
    portOffset: Math.floor(envNumber("OPAL_SOAK_PORT_OFFSET", d.portOffset)),
    print,
  };
}

export const soakSection: Section = {
  name: "soak",
  async run(): Promise<SectionResult> {
    const o = soakOptionsFromEnv((l) => console.log(l));
    console.log(
      `soak: ${o.seconds} s of ${o.txRate} transfers/s, ${o.callRate} contract calls/s, ` +
        `${o.readRate} reads/s at concurrency ${o.readConcurrency}`,
    );
    try {
      const v = judgeSoak(await runSoak(o));
      return { section: "soak", ...v };
    } catch (e) {
      const why = (e as Error).message;
      return { section: "soak", rows: [{ row: "devnet", result: `FAIL ${why}` }], passed: 0, summary: `FAIL ${why}` };
    }
  },
};
