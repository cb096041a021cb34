/**
 * The sync's progress lines (reth's pipeline "Status" lines, geth's "Syncing: chain download in
 * progress"): at most one per interval per stage, `Sync progress stage=… block=N/M speed="X blocks/s"
 * eta=…`, the speed over the stage so far and the eta from it.
 */
import type { Logger } from "../../util/log.js";

/** A duration as geth prints an eta: `1h2m3s`, `4m5s`, `6s`. */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "unknown";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h${m}m${r}s` : m > 0 ? `${m}m${r}s` : `${r}s`;
}

export class ProgressMeter {
  private stage = "";
  private startedAt = 0;
  private startCount = 0;
  private lastLog = 0;

  constructor(
    private readonly log: Logger,
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** Begins a stage at `count` done items (the rate counts from here). */
  begin(stage: string, count: number): void {
    this.stage = stage;
    this.startedAt = this.now();
    this.startCount = count;
    this.lastLog = this.startedAt;
  }

  /** Logs a line when the interval has passed (or `force`): `done` of `total`, shown as `block`. */
  report(block: number, highest: number, done: number, total: number, force = false): void {
    const t = this.now();
    if (!force && t - this.lastLog < this.intervalMs) return;
    this.lastLog = t;
    const secs = (t - this.startedAt) / 1000;
    const rate = secs > 0 ? (done - this.startCount) / secs : 0;
    this.log.info("Sync progress", {
      stage: this.stage,
      block: `${block}/${highest}`,
      speed: `${rate.toFixed(1)} blocks/s`,
      eta: rate > 0 ? formatEta((total - done) / rate) : "unknown",
    });
  }
}
