/**
 * `opal-evm`: runs state tests and blockchain tests from fixture files, in the style of geth's
 * `evm statetest` / `evm blocktest`. One JSON line per case on stdout, then `N passed, N failed`;
 * exit 0 when all passed, 1 when any failed, 2 on a usage error (one line on stderr). Flags:
 * `evmTool/flags.ts` (the shared flag machinery). `--trace` writes EIP-3155 lines to stderr.
 */
import { readdirSync, realpathSync, statSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Tracer } from "../evm/tracer.js";
import { parseEvmArgs } from "./evmTool/flags.js";
import type { CaseResult } from "./evmTool/stateTest.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./processIo.js";
import { OPAL_VERSION } from "./version.js";

/**
 * Output buffered into chunks and written with `writeSync` on the file descriptor: synchronous, so
 * a closed pipe (`| head`) is seen at once as EPIPE and the run stops instead of working on.
 * 64 KiB is the Linux pipe buffer: one chunk fills it once.
 */
const CHUNK = 64 * 1024;
/**
 * Longest wait between flushes at a file boundary, so that results stream while a slow corpus runs
 * and a reader that has gone is noticed within about this long, not a whole chunk later.
 */
const FLUSH_MS = 200;

class FdOut {
  private buf: string[] = [];
  private size = 0;
  private lastFlush = Date.now();
  /** Set once the reader has gone (EPIPE); later writes are dropped. */
  closed = false;

  constructor(private readonly fd: number) {}

  line(s: string): void {
    if (this.closed) return;
    this.buf.push(s, "\n");
    this.size += s.length + 1;
    if (this.size >= CHUNK) this.flush();
  }

  /** Flushes if the last flush is older than FLUSH_MS. */
  flushIfStale(): void {
    if (Date.now() - this.lastFlush >= FLUSH_MS) this.flush();
  }

  flush(): void {
    this.lastFlush = Date.now();
    if (this.closed || this.size === 0) return;
    const data = Buffer.from(this.buf.join(""), "utf8");
    this.buf = [];
    this.size = 0;
    let off = 0;
    while (off < data.length) {
      try {
        off += writeSync(this.fd, data, off, data.length - off);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") {
          // A non-blocking pipe inherited from the parent is full: wait a little for the reader.
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
          continue;
        }
        if (code === "EPIPE" || code === "EBADF") {
          this.closed = true;
          return;
        }
        throw e;
      }
    }
  }
}

/** Files a PATH argument names: the file itself, or the *.json files under a folder, sorted, recursively. */
function expandPath(path: string, out: string[]): void {
  const seen = new Set<string>();
  const walk = (dir: string): void => {
    const real = realpathSync(dir);
    if (seen.has(real)) return; // a symlink loop
    seen.add(real);
    const names = readdirSync(dir).sort();
    for (const name of names) {
      const p = join(dir, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st === undefined) continue; // dangling symlink
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && name.endsWith(".json")) out.push(p);
    }
  };
  if (statSync(path).isDirectory()) walk(path);
  else out.push(path);
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

/** One line on stderr, pointing at the help of the command (when known); exit 2. */
function usageError(message: string, command: string | undefined, stderr: FdOut): number {
  const hint = command === undefined ? "opal-evm --help" : `opal-evm ${command} --help`;
  stderr.line(`opal-evm: ${oneLine(message)} (see '${hint}')`);
  stderr.flush();
  return EXIT_USAGE;
}

/** What a run does, from the parsed command line. */
interface EvmRun {
  readonly command: "statetest" | "blocktest";
  readonly fork: string | undefined;
  readonly run: RegExp | undefined;
  readonly trace: boolean;
}

type FileRunner = (path: string) => CaseResult[];

async function runnerFor(args: EvmRun, traceOut: FdOut): Promise<FileRunner> {
  const filter: { fork?: string; run?: RegExp } = {};
  if (args.fork !== undefined) filter.fork = args.fork;
  if (args.run !== undefined) filter.run = args.run;
  if (args.command === "blocktest") {
    const { runBlockTestFile } = await import("./evmTool/blockTest.js");
    return (path) => runBlockTestFile(path, filter);
  }
  const { runStateTestFile } = await import("./evmTool/stateTest.js");
  let tracer: (() => Tracer) | undefined;
  if (args.trace) {
    const { Tracer } = await import("../evm/tracer.js");
    tracer = () => new Tracer((line) => traceOut.line(line));
  }
  return (path) => runStateTestFile(path, tracer === undefined ? filter : { ...filter, tracer });
}

/** Runs the command; returns the exit status. `argv` excludes `node` and the script. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const stdout = new FdOut(1);
  const stderr = new FdOut(2);
  const parsed = parseEvmArgs(argv, env);
  switch (parsed.kind) {
    case "error":
      return usageError(parsed.error, parsed.command, stderr);
    case "version":
      // Unchanged by the move to the shared machinery: "opal-evm <version>", not its "opal-evm version <version>".
      stdout.line(`opal-evm ${OPAL_VERSION}`);
      stdout.flush();
      return EXIT_OK;
    case "help":
      stdout.line(parsed.text.trimEnd());
      stdout.flush();
      return EXIT_OK;
    case "run":
      return usageError("a command is required: statetest, blocktest", undefined, stderr);
  }
  const { command, options } = parsed;
  const args: EvmRun = {
    command,
    fork: options.fork,
    run: options.run === undefined ? undefined : new RegExp(options.run),
    trace: "trace" in options && options.trace,
  };

  const files: string[] = [];
  for (const p of parsed.args) {
    try {
      expandPath(p, files);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const why = err.code === "ENOENT" ? "no such file or directory" : oneLine(err.message);
      return usageError(`${p}: ${why}`, command, stderr);
    }
  }

  const runFile = await runnerFor(args, stderr);
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    let results: CaseResult[];
    try {
      results = runFile(file);
    } catch (e) {
      // The runners turn bad input into failed cases; this is the net for anything they let through.
      results = [
        { name: file, fork: "", pass: false, stateRoot: "", error: `runner exception: ${(e as Error).message}` },
      ];
    }
    stderr.flush(); // this file's traces before its results
    for (const r of results) {
      if (r.pass) passed++;
      else failed++;
      stdout.line(
        JSON.stringify({
          name: r.name,
          fork: r.fork,
          pass: r.pass,
          stateRoot: r.stateRoot,
          error: r.pass ? null : r.error,
        }),
      );
    }
    stdout.flushIfStale();
    if (stdout.closed) break; // the reader has gone: stop working
  }
  stdout.line(`${passed} passed, ${failed} failed`);
  stdout.flush();
  stderr.flush();
  return failed === 0 ? EXIT_OK : EXIT_FAILED;
}

/** Runs `main` for a process and sets its exit status; no stack trace reaches the user. */
export async function runProcess(argv: readonly string[]): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (e) {
    try {
      writeSync(2, `opal-evm: internal error: ${oneLine(String((e as Error).message ?? e))}\n`);
    } catch {
      // stderr is gone too
    }
    process.exitCode = EXIT_FAILED;
  }
}

// Run when this file is the process entry (`node dist/src/cli/opalEvm.js`, `tsx src/cli/opalEvm.ts`);
// the launcher bin/opal-evm.mjs imports it and calls runProcess itself.
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(resolve(entry)).href) {
  await runProcess(process.argv.slice(2));
}
