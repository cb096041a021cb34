/**
 * Child processes and small tools of the crash harness (crashHarness.ts): the repo's own launchers
 * (bin/opal-exec.mjs, bin/opal-node.mjs, bin/opal-batcher.mjs) spawned with their output in a log
 * file, SIGKILL and SIGTERM that wait for the exit, free loopback ports, a JSON-RPC client with a
 * time limit (and an optional Engine API JWT), and a seeded PRNG so a run can be replayed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { signJwt } from "../../src/engine/jwt.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export type Bin = "opal-exec" | "opal-node" | "opal-batcher";

/** One running launcher; its stdout and stderr go to `logFile` (appended). */
export class Proc {
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
    /** The log file's size when this process started: its own lines come after. */
    private readonly logStart: number,
  ) {
    this.exited = new Promise((res) => {
      child.once("exit", (code, signal) => {
        this.exitInfo = { code, signal };
        res(this.exitInfo);
      });
    });
  }

  static spawn(name: string, bin: Bin, args: readonly string[], logFile: string): Proc {
    const fd = openSync(logFile, "a");
    try {
      const start = fstatSync(fd).size;
      const child = spawn(process.execPath, [join(ROOT, "bin", `${bin}.mjs`), ...args], {
        stdio: ["ignore", fd, fd],
        env: { ...process.env },
      });
      return new Proc(name, child, logFile, start);
    } finally {
      closeSync(fd);
    }
  }

  get alive(): boolean {
    return this.exitInfo === null;
  }

  get exit(): { code: number | null; signal: NodeJS.Signals | null } | null {
    return this.exitInfo;
  }

  /** SIGKILL, then the exit. */
  async kill9(): Promise<void> {
    if (!this.alive) return;
    this.child.kill("SIGKILL");
    await this.exited;
  }

  /** SIGTERM, SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
  async term(graceMs = 15_000): Promise<number | null> {
    if (!this.alive) return this.exitInfo!.code;
    this.child.kill("SIGTERM");
    const t = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    const r = await this.exited;
    clearTimeout(t);
    return r.code;
  }

  /** What this process wrote to its log so far. */
  ownLog(): string {
    try {
      return readFileSync(this.logFile).subarray(this.logStart).toString("utf8");
    } catch {
      return "";
    }
  }

  /** The last `chars` characters of the log. */
  tail(chars = 2000): string {
    try {
      const s = readFileSync(this.logFile, "utf8");
      return s.slice(-chars);
    } catch {
      return "";
    }
  }
}

/** `count` distinct free TCP ports on 127.0.0.1 (bound to port 0 at once, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import("node:net").Server>((res, rej) => {
          const s = createServer();
          s.once("error", rej);
          s.listen(0, "127.0.0.1", () => res(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}

export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
  }
}

/** A JSON-RPC call with a time limit; an RPC error or a transport failure is an RpcError. */
export async function call(
  url: string,
  method: string,
  params: unknown[] = [],
  opts: { timeoutMs?: number; jwt?: Uint8Array } = {},
): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.jwt !== undefined) headers.authorization = `Bearer ${signJwt(opts.jwt, Date.now() / 1000)}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
    });
  } catch (e) {
    throw new RpcError(`${method}: ${(e as Error).message}`, null);
  }
  const text = await res.text().catch(() => "");
  let j: { result?: unknown; error?: { code: number; message: string } };
  try {
    j = JSON.parse(text);
  } catch {
    throw new RpcError(`${method}: HTTP ${res.status}: ${text.slice(0, 200)}`, null);
  }
  if (j.error !== undefined) throw new RpcError(`${method}: ${j.error.message}`, j.error.code);
  return j.result;
}

/**
 * Many calls of one method as JSON-RPC batches of at most `chunk` (geth's batch limit is 1000): the
 * results in order; an entry's RPC error is an RpcError in its place, a transport failure throws.
 */
export async function callMany(
  url: string,
  method: string,
  paramsList: readonly unknown[][],
  chunk = 500,
): Promise<(unknown | RpcError)[]> {
  const out: (unknown | RpcError)[] = [];
  for (let i = 0; i < paramsList.length; i += chunk) {
    const part = paramsList.slice(i, i + chunk);
    const body = JSON.stringify(part.map((params, j) => ({ jsonrpc: "2.0", id: j, method, params })));
    let text: string;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      text = await res.text();
    } catch (e) {
      throw new RpcError(`${method} ×${part.length}: ${(e as Error).message}`, null);
    }
    let replies: { id: number; result?: unknown; error?: { code: number; message: string } }[];
    try {
      replies = JSON.parse(text);
    } catch {
      throw new RpcError(`${method} ×${part.length}: ${text.slice(0, 200)}`, null);
    }
    if (!Array.isArray(replies)) throw new RpcError(`${method} ×${part.length}: ${text.slice(0, 200)}`, null);
    const byId = new Map(replies.map((r) => [r.id, r]));
    for (let j = 0; j < part.length; j++) {
      const r = byId.get(j);
      if (r === undefined) throw new RpcError(`${method}: no reply for entry ${j}`, null);
      out.push(r.error === undefined ? r.result : new RpcError(`${method}: ${r.error.message}`, r.error.code));
    }
  }
  return out;
}

/** Calls until the server answers without a transport error (any RPC answer counts), or throws after `ms`. */
export async function waitAnswer(url: string, method: string, ms: number, alive: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      await call(url, method, [], { timeoutMs: 2000 });
      return;
    } catch (e) {
      if (e instanceof RpcError && e.code !== null) return;
      if (!alive()) throw new Error(`exited before answering ${method}`);
      if (Date.now() > end) throw new Error(`no answer to ${method} within ${ms} ms`);
    }
    await sleep(100);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** mulberry32: a small seeded PRNG, so a run's kill points can be replayed from its seed. */
export class Prng {
  private s: number;
  constructor(readonly seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  bytes(n: number): Uint8Array {
    const b = new Uint8Array(n);
    for (let i = 0; i < n; i++) b[i] = this.int(0, 255);
    return b;
  }
}

export const hexNum = (n: number): string => `0x${n.toString(16)}`;
export const numOf = (h: unknown): number => Number(BigInt(h as string));
