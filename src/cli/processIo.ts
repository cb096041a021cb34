/**
 * What the commands share with the process: exit statuses, the `Io` they print through (tests pass
 * their own), and synchronous writes to stdout/stderr that never throw (the reader may be gone).
 */
import { writeSync } from "node:fs";

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
 * Runs a command's `main` as the process: its status becomes the exit code; an error that escaped
 * it is one line (`<name>: internal error: …`) and exit 1, never a stack trace. Exits without
 * waiting for stray handles (servers and pools are closed by then).
 */
export async function runAsProcess(
  name: string,
  main: (argv: readonly string[]) => Promise<number>,
  argv: readonly string[],
): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (e) {
    writeAll(2, `${name}: internal error: ${(e as Error)?.message ?? String(e)}\n`);
    process.exitCode = EXIT_FAILED;
  }
  process.exit();
}
