/**
 * The admin-state file of `--rpc.admin-state` (op-node config_persistence.go; op-stack.md §1.5):
 * a JSON object with exactly one key, `{"sequencerStarted": true|false}`, written on every
 * admin_startSequencer / admin_stopSequencer through `<file>.tmp` (written, fsynced, closed, then
 * renamed over the file and the directory fsynced: a crash or power cut leaves the old or the new
 * state, never half of one). The parent directory is created 0755, the file 0644. Reading: a missing file is "unset"; unknown keys, a
 * missing key or a non-boolean value make the file invalid.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface AdminState {
  readonly sequencerStarted: boolean;
}

/** The file exists but is not a valid admin state (one line naming the file and the problem). */
export class AdminStateError extends Error {
  override readonly name = "AdminStateError";
}

/** The stored state, or null when the file does not exist. */
export function readAdminState(path: string): AdminState | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new AdminStateError(`admin state ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AdminStateError(`admin state ${path}: not JSON`);
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new AdminStateError(`admin state ${path}: expected a JSON object`);
  }
  const keys = Object.keys(json);
  const unknown = keys.filter((k) => k !== "sequencerStarted");
  if (unknown.length > 0) throw new AdminStateError(`admin state ${path}: unknown field ${JSON.stringify(unknown[0])}`);
  const v = (json as { sequencerStarted?: unknown }).sequencerStarted;
  if (v === undefined) throw new AdminStateError(`admin state ${path}: missing sequencerStarted`);
  if (typeof v !== "boolean") throw new AdminStateError(`admin state ${path}: sequencerStarted must be true or false`);
  return { sequencerStarted: v };
}

/** Atomically replaces the file with `state`. */
export function writeAdminState(path: string, state: AdminState): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w", 0o644);
  try {
    writeSync(fd, JSON.stringify({ sequencerStarted: state.sequencerStarted }));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename itself survives power loss only once the directory is synced.
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
