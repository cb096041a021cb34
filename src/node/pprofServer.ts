/**
 * The rollup node's profiler (op-node's pprof service, MONO op-service/oppprof/{cli,service}.go):
 * `PprofServer` serves Go's `/debug/pprof/` paths over node:http, and `ProfileOnExit` collects one
 * profile from startup and writes it at shutdown (`--pprof.path`, `--pprof.type`). Node has only
 * two of Go's profiles: `cpu` (V8's sampling profiler through @datadog/pprof: wall and CPU time) and
 * `heap` (V8's sampling heap profiler: live objects); the rest are refused with the reason.
 * Output is gzipped pprof protobuf, which `go tool pprof` and speedscope open.
 */

import { mkdirSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { encode, heap, time } from "@datadog/pprof";
import { closeGracefully, listenError } from "../util/httpServe.js";
import type { Logger } from "../util/log.js";
import { GETH_METRICS_PATH, type MetricsSource } from "./metricsServer.js";
import type { OwnedService } from "./rollup/rollupNode.js";

/** A profiler failure: one line for the operator. */
export class PprofError extends Error {
  override readonly name = "PprofError";
}

/**
 * Go's pprof types without a Node equivalent, with the reason given to the operator (HTTP 501 on the
 * server, a startup error for `--pprof.type`).
 *
 * `allocs` is refused too: Go's allocs profile is the heap profile read as totals of everything
 * allocated since start; V8's sampling heap profiler on Node 20 keeps live objects only (totals need
 * the `allocations` mode, Node ≥ 26), so serving `heap` under that name would mislead.
 */
export const GO_ONLY_PROFILES: Readonly<Record<string, string>> = {
  goroutine: "Node has no goroutines (JavaScript runs one event loop per thread); use the cpu profile",
  threadcreate: "Node has no equivalent of Go's OS-thread creation profile",
  block: "Node has no equivalent of Go's blocking profile (nothing blocks on channels or select)",
  mutex: "Node has no equivalent of Go's mutex contention profile (JavaScript has no shared locks)",
  allocs: "Node 20's sampling heap profiler reports live objects only, not totals of past allocations; use heap",
  trace: "Node has no equivalent of Go's execution tracer; use the cpu profile",
  symbol: "Node profiles carry function names already; there is no program counter to look up",
};

/** The profile types `--pprof.type` accepts under Node. */
export const NODE_PROFILE_TYPES: readonly string[] = ["cpu", "heap"];

/**
 * Refuses a `--pprof.type` that Node cannot collect (Go's goroutine, threadcreate, block, mutex,
 * allocs) or that is unknown, with one line; `undefined` (no file profile) passes. The CLI calls it
 * before starting anything.
 */
export function validateProfileType(type: string | undefined): void {
  if (type === undefined || NODE_PROFILE_TYPES.includes(type)) return;
  const why = GO_ONLY_PROFILES[type];
  if (why !== undefined && type !== "trace" && type !== "symbol") {
    throw new PprofError(`--pprof.type=${type} is not available: ${why} (Node profiles: cpu, heap)`);
  }
  throw new PprofError(`--pprof.type=${type} is not a profile type (Node profiles: cpu, heap)`);
}

/**
 * The file a profile is written to (op-service flags.PathFlag): an existing directory gets
 * `{dir}/{type}.prof`, a path ending in a separator too; anything else is the file itself; no path
 * writes `{type}.prof` in the working directory.
 */
export function profileFilePath(type: string, path: string | undefined): string {
  if (path === undefined || path === "") return `${type}.prof`;
  if (path.endsWith("/")) return join(path, `${type}.prof`);
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    // Missing: the path names the file.
  }
  return isDir ? join(path, `${type}.prof`) : path;
}

/**
 * CPU sampling period: 10 ms, Go's 100 Hz (runtime/pprof), so a 30 s profile holds about as many
 * samples as op-node's and sampling costs the node little. V8's default is 1 ms.
 */
const CPU_INTERVAL_MICROS = 10_000;
/** Heap sampling: one sample per 512 KiB allocated on average, Go's runtime.MemProfileRate default. */
const HEAP_INTERVAL_BYTES = 512 * 1024;
/** Frames kept per heap sample (@datadog/pprof's own default; Go keeps 32 to 128). */
const HEAP_STACK_DEPTH = 64;
/** `?seconds=` when absent: Go's net/http/pprof default. */
const DEFAULT_PROFILE_SECONDS = 30;
/**
 * `?seconds=` upper bound: one hour. Longer requests are taken for typos (a value in ms): the one
 * CPU profiler would stay taken, and a connection held, for that long.
 */
const MAX_PROFILE_SECONDS = 3600;

/** How long `close()` lets responses in flight (a 503, a heap profile) drain before cutting connections. */
const CLOSE_GRACE_MS = 1000;

/** Starts V8's CPU sampling; false when it already runs (another request, or `--pprof.type=cpu`). */
function startCpu(): boolean {
  if (time.isStarted()) return false;
  // collectCpuTime adds Go's cpu/nanoseconds beside wall/nanoseconds; it requires contexts.
  time.start({ intervalMicros: CPU_INTERVAL_MICROS, withContexts: true, collectCpuTime: true });
  return true;
}

/**
 * Starts V8's heap sampling; false when someone else already started it (the server and
 * `ProfileOnExit` share the one sampler: only the starter stops it, and the node closes its services
 * in reverse start order, so the starter is closed last).
 */
function startHeap(): boolean {
  try {
    heap.start(HEAP_INTERVAL_BYTES, HEAP_STACK_DEPTH);
    return true;
  } catch {
    return false; // "already started": reuse the running sampler.
  }
}

/** A GC before a heap snapshot (op-node runs runtime.GC()), when the process has `--expose-gc`. */
function gcIfExposed(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") gc();
}

async function heapProfile(): Promise<Buffer> {
  gcIfExposed();
  return encode(heap.profile());
}

export interface PprofServerConfig {
  readonly "pprof.addr": string;
  readonly "pprof.port": number;
}

export interface PprofServerDeps {
  readonly log: Logger | null;
  /** Served at geth's /debug/metrics/prometheus too (opal-exec with --metrics and no --metrics.addr). */
  readonly metrics?: MetricsSource | null;
}

/**
 * `GET /debug/pprof/` index, `/debug/pprof/profile?seconds=N` (CPU, default 30, 1 ≤ N ≤ 3600),
 * `/debug/pprof/heap` (sampled from `listen()` on). One CPU profile at a time: a second request while
 * one runs (or while `--pprof.type=cpu` holds the profiler) gets 409 at once rather than waiting, so
 * the overlap is visible and no connection is parked for up to an hour; Go answers 500 "cpu
 * profiling already in use" in that case.
 */
export class PprofServer implements OwnedService {
  readonly name = "pprof server";
  private readonly server: Server;
  private ownsHeap = false;
  /** The CPU profile in progress: finish it early (close, client gone). */
  private cpuRun: { timer: NodeJS.Timeout; finish: (send: boolean) => void } | null = null;

  constructor(
    private readonly opts: PprofServerConfig,
    private readonly deps: PprofServerDeps,
  ) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  /** Starts listening and heap sampling; resolves the bound address (the real port when `port` is 0). */
  listen(): Promise<AddressInfo> {
    const addr = this.opts["pprof.addr"];
    const port = this.opts["pprof.port"];
    return new Promise((resolve, reject) => {
      const onError = (e: unknown): void => reject(new PprofError(listenError("pprof", addr, port, e)));
      this.server.once("error", onError);
      this.server.listen(port, addr, () => {
        this.server.off("error", onError);
        this.ownsHeap = startHeap();
        const bound = this.address();
        this.deps.log?.info("Started pprof server", { addr: `${bound.address}:${bound.port}` });
        resolve(bound);
      });
    });
  }

  address(): AddressInfo {
    const a = this.server.address();
    if (a === null || typeof a === "string") throw new PprofError("pprof server is not listening");
    return a;
  }

  /** Ends a CPU profile in progress (503), stops the server and the heap sampling it started. */
  close(): Promise<void> {
    this.cpuRun?.finish(false);
    if (this.ownsHeap) heap.stop();
    this.ownsHeap = false;
    return closeGracefully(this.server, CLOSE_GRACE_MS);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://pprof");
    const path = url.pathname;
    const name = path.startsWith("/debug/pprof/") ? path.slice("/debug/pprof/".length) : null;
    const why = name === null ? undefined : GO_ONLY_PROFILES[name];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      text(res, 405, "method not allowed: use GET");
    } else if (path === GETH_METRICS_PATH && this.deps.metrics !== undefined && this.deps.metrics !== null) {
      const m = this.deps.metrics;
      m.metricsText().then(
        (body) => {
          if (res.headersSent || res.destroyed) return;
          res.writeHead(200, { "Content-Type": m.contentType, "Content-Length": Buffer.byteLength(body) });
          res.end(body);
        },
        (e: unknown) => text(res, 500, `error gathering metrics: ${(e as Error).message}`),
      );
    } else if (path === "/debug/pprof" || name === "") {
      this.index(res);
    } else if (name === "profile") {
      this.cpu(url, res);
    } else if (name === "heap") {
      heapProfile().then(
        (b) => binary(res, b, "heap"),
        (e: unknown) => text(res, 500, `heap profile failed: ${(e as Error).message}`),
      );
    } else if (why !== undefined) {
      text(res, 501, `${name}: ${why}`);
    } else if (name !== null) {
      text(res, 404, `unknown profile: ${name} (see /debug/pprof/)`);
    } else {
      text(res, 404, `not found: ${path} (see /debug/pprof/)`);
    }
  }

  private cpu(url: URL, res: ServerResponse): void {
    const raw = url.searchParams.get("seconds");
    let seconds = DEFAULT_PROFILE_SECONDS;
    if (raw !== null) {
      seconds = /^[0-9]{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(seconds >= 1 && seconds <= MAX_PROFILE_SECONDS)) {
        text(
          res,
          400,
          `seconds must be an integer from 1 to ${MAX_PROFILE_SECONDS}, got ${JSON.stringify(raw.slice(0, 40))}`,
        );
        return;
      }
    }
    if (!startCpu()) {
      text(res, 409, "a CPU profile is already running (another request or --pprof.type=cpu)");
      return;
    }
    const finish = (send: boolean): void => {
      if (this.cpuRun === null) return;
      clearTimeout(this.cpuRun.timer);
      this.cpuRun = null;
      let profile: ReturnType<typeof time.stop>;
      try {
        profile = time.stop();
      } catch (e) {
        text(res, 500, `cpu profile failed: ${(e as Error).message}`);
        return;
      }
      if (!send) {
        if (!res.headersSent && !res.destroyed) text(res, 503, "pprof server closing: profile discarded");
        return;
      }
      encode(profile).then(
        (b) => binary(res, b, "profile"),
        (e: unknown) => text(res, 500, `cpu profile failed: ${(e as Error).message}`),
      );
    };
    this.cpuRun = { timer: setTimeout(() => finish(true), seconds * 1000), finish };
    // A client that hangs up frees the profiler at once (Go stops on the request's context).
    res.once("close", () => {
      if (this.cpuRun?.finish === finish) finish(false);
    });
  }

  private index(res: ServerResponse): void {
    const rows = [
      row(
        "profile",
        "profile?seconds=30",
        "CPU: V8 wall and CPU time samples of the main thread for ?seconds= (1 to 3600, default 30)",
      ),
      row("heap", "heap", "live objects sampled every 512 KiB allocated since the server started"),
      ...Object.entries(GO_ONLY_PROFILES).map(
        ([n, why]) => `<tr><td>${n}</td><td>not available: ${esc(why)}</td></tr>`,
      ),
    ];
    const body = `<!doctype html><html><head><title>/debug/pprof/</title></head><body>
<p>Opal profiles (gzipped pprof protobuf: <code>go tool pprof</code>, speedscope)</p>
<table>${rows.join("\n")}</table></body></html>\n`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "x-content-type-options": "nosniff" });
    res.end(body);
  }
}

function row(name: string, href: string, what: string): string {
  return `<tr><td><a href="${href}">${name}</a></td><td>${esc(what)}</td></tr>`;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function text(res: ServerResponse, status: number, msg: string): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end(`${msg}\n`);
}

function binary(res: ServerResponse, body: Buffer, name: string): void {
  if (res.destroyed) return;
  res.writeHead(200, {
    "content-type": "application/octet-stream",
    "content-disposition": `attachment; filename="${name}"`,
    "x-content-type-options": "nosniff",
    "content-length": body.length,
  });
  res.end(body);
}

export interface ProfileOnExitConfig {
  readonly "pprof.type": string | undefined;
  readonly "pprof.path": string | undefined;
}

export interface ProfileOnExitDeps {
  readonly log: Logger | null;
}

/**
 * `--pprof.type` + `--pprof.path`: the profile collected from `start()` (cpu: V8's sampler runs from
 * then; heap: sampling from then) and written at `close()` to `profileFilePath(type, path)`. Like
 * op-node, `cpu` holds the one CPU profiler for the whole run (the server's `/debug/pprof/profile`
 * answers 409 meanwhile) and `heap` is snapshotted at shutdown, after a GC when `--expose-gc` is set.
 */
export class ProfileOnExit implements OwnedService {
  readonly name = "profile file";
  readonly type: "cpu" | "heap";
  /** Where the profile is written. */
  readonly path: string;
  private running = false;
  private ownsHeap = false;

  constructor(
    opts: ProfileOnExitConfig,
    private readonly deps: ProfileOnExitDeps,
  ) {
    const type = opts["pprof.type"];
    if (type === undefined) throw new PprofError("--pprof.path needs --pprof.type (cpu or heap)");
    validateProfileType(type);
    this.type = type as "cpu" | "heap";
    this.path = profileFilePath(type, opts["pprof.path"]);
  }

  /** Starts collecting; throws `PprofError` (one line) when the target folder is not usable or the CPU profiler is taken. */
  start(): void {
    if (this.running) return;
    const dir = dirname(this.path);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new PprofError(`--pprof.path: cannot create folder ${dir}: ${(e as Error).message}`);
    }
    if (this.type === "cpu") {
      if (!startCpu()) throw new PprofError("--pprof.type=cpu: the CPU profiler is already running in this process");
    } else {
      this.ownsHeap = startHeap();
    }
    this.running = true;
    this.deps.log?.info("Started profiling to file", { type: this.type, path: this.path });
  }

  /** Stops collecting and writes the profile (gzipped pprof protobuf). */
  async close(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    let body: Buffer;
    if (this.type === "cpu") {
      body = await encode(time.stop());
    } else {
      body = await heapProfile();
      if (this.ownsHeap) heap.stop();
      this.ownsHeap = false;
    }
    await writeFile(this.path, body);
    this.deps.log?.info("Saved profile", { type: this.type, path: this.path, bytes: body.length });
  }
}
