/**
 * What the commands share with the process: exit statuses, the `Io` they print through (tests pass
 * their own), and synchronous writes to stdout/stderr that never throw (the reader may be gone).
 */
import { writeSync } from "node:fs";
import { applyHeapPolicy } from "../util/heapPolicy.js";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export function writeAll(fd: number, s: string): void {
  try {
    writeSync(fd, s);
  } catch {
    // the reader has gone
  }
}

export const processIo: Io = {
  out: (t) => writeAll(1, `${t}\n`),
  err: (t) => writeAll(2, `${t}\n`),
};

/**
 * What every long-running command does to its process before `main`: V8's heap growing policy
 * (util/heapPolicy.ts). False, with the one-line error written and exit status 2 set, when the
 * environment asks for a bad value.
 */
export function prepareProcess(name: string): boolean {
  const err = applyHeapPolicy();
  if (err === undefined) return true;
  writeAll(2, `${name}: ${err}\n`);
  process.exitCode = EXIT_USAGE;
  return false;
}

/**
 * Runs a command's `main` as the process (after `prepareProcess`): its status becomes the exit
 * code; an error that escaped it is one line (`<name>: internal error: …`) and exit 1, never a
 * stack trace. Exits without waiting for stray handles (servers and pools are closed by then).
 */
export async function runAsProcess(
  name: string,
  main: (argv: readonly string[]) => Promise<number>,
  argv: readonly string[],
): Promise<void> {
  try {
    if (prepareProcess(name)) process.exitCode = await main(argv);
  } catch (e) {
    writeAll(2, `${name}: internal error: ${(e as Error)?.message ?? String(e)}\n`);
    process.exitCode = EXIT_FAILED;
  }
  process.exit();
}
