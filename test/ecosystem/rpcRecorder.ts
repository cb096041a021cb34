/**
 * A loopback HTTP proxy in front of a node's JSON-RPC port that records every exchange, so a
 * failing ecosystem test can show what the library sent and what the node answered (the library's
 * own error often names only its half). viem and ethers both talk to the proxy; WebSocket traffic
 * goes to the node directly and is not recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RpcExchange {
  readonly method: string;
  readonly request: string;
  readonly response: string;
}

/** One JSON-RPC call and its answer, as `RpcRecorder.calls` returns them. */
export interface RpcCall {
  readonly params: readonly unknown[];
  /** The answer's `result` (undefined if it failed or never came). */
  readonly result: unknown;
  readonly error: { readonly code: number; readonly message: string } | undefined;
}

interface RpcMessage {
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: unknown[];
  readonly result?: unknown;
  readonly error?: { code: number; message: string };
}

const KEEP = 5000;

export class RpcRecorder {
  private readonly log: RpcExchange[] = [];
  /** Exchanges recorded so far, including those no longer kept. */
  private total = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Listens on 127.0.0.1 at a free port and forwards every POST body to `upstream`. */
  static async start(upstream: string): Promise<RpcRecorder> {
    let recorder: RpcRecorder | null = null;
    const server = createServer((req, res) => {
      void forward(upstream, req, res, (e) => recorder?.push(e));
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    recorder = new RpcRecorder(server, `http://127.0.0.1:${port}/`);
    return recorder;
  }

  /** A position to read the exchanges from later (`since`). */
  mark(): number {
    return this.total;
  }

  since(mark: number): RpcExchange[] {
    const first = this.total - this.log.length;
    return this.log.slice(Math.max(0, mark - first));
  }

  /**
   * The calls of `method` recorded since `mark`, parsed (a batch's members matched to their answers
   * by id): what a test asserts the library sent, and what the node answered.
   */
  calls(method: string, mark: number): RpcCall[] {
    const out: RpcCall[] = [];
    for (const e of this.since(mark)) {
      let req: unknown;
      let res: unknown;
      try {
        req = JSON.parse(e.request);
        res = JSON.parse(e.response);
      } catch {
        continue;
      }
      const reqs = (Array.isArray(req) ? req : [req]) as RpcMessage[];
      const ress = (Array.isArray(res) ? res : [res]) as RpcMessage[];
      for (const r of reqs) {
        if (r.method !== method) continue;
        const answer = ress.find((x) => x.id === r.id);
        out.push({ params: r.params ?? [], result: answer?.result, error: answer?.error });
      }
    }
    return out;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private push(e: RpcExchange): void {
    this.log.push(e);
    this.total++;
    if (this.log.length > KEEP) this.log.shift();
  }
}

async function forward(
  upstream: string,
  req: IncomingMessage,
  res: ServerResponse,
  record: (e: RpcExchange) => void,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const request = Buffer.concat(chunks).toString("utf8");
  let status = 502;
  let response = "";
  try {
    const r = await fetch(upstream, {
      method: req.method ?? "POST",
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      ...(req.method === "GET" || req.method === "HEAD" ? {} : { body: request }),
    });
    status = r.status;
    response = await r.text();
  } catch (e) {
    response = `proxy: ${(e as Error).message}`;
  }
  record({ method: methodsOf(request), request, response: status === 200 ? response : `HTTP ${status} ${response}` });
  res.writeHead(status, { "content-type": "application/json" });
  res.end(response);
}

function methodsOf(body: string): string {
  try {
    const j = JSON.parse(body) as { method?: string } | { method?: string }[];
    return Array.isArray(j) ? `batch[${j.map((x) => x.method).join(",")}]` : String(j.method);
  } catch {
    return "(not JSON)";
  }
}

/** Long hex strings shortened to their head, tail and length, so an exchange fits on a line or two. */
function shorten(s: string, max: number): string {
  const t = s.replace(/0x[0-9a-fA-F]{80,}/g, (h) => `${h.slice(0, 18)}…${h.slice(-8)}(${(h.length - 2) / 2} bytes)`);
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** The last `count` exchanges, one request line and one response line each. */
export function formatExchanges(list: readonly RpcExchange[], count = 8, width = 600): string {
  const tail = list.slice(-count);
  const lines = tail.flatMap((e) => [`  → ${shorten(e.request, width)}`, `  ← ${shorten(e.response, width)}`]);
  return [`JSON-RPC exchanges of this test (last ${tail.length} of ${list.length}):`, ...lines].join("\n");
}
