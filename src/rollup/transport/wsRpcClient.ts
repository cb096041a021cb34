/**
 * JSON-RPC over one WebSocket (`--l1 ws://…`): calls and batches matched to answers by id, a
 * per-call timeout, reconnection on the next call after the socket closed. Errors are the same
 * typed errors as `RpcClient`'s: RpcCallError for a JSON-RPC error, RpcTransportError otherwise.
 */
import WebSocket from "ws";
import { RpcCallError, RpcTransportError } from "./rpcClient.js";
import type { RpcTransport } from "./rpcTransport.js";

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export class WsRpcClient implements RpcTransport {
  private socket: WebSocket | null = null;
  private opening: Promise<WebSocket> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  private open(): Promise<WebSocket> {
    if (this.socket !== null && this.socket.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    if (this.opening !== null) return this.opening;
    this.opening = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(this.url, { handshakeTimeout: this.timeoutMs });
      ws.on("open", () => {
        this.socket = ws;
        this.opening = null;
        resolve(ws);
      });
      ws.on("message", (data) => this.onMessage(String(data)));
      ws.on("error", (e) => {
        if (this.opening !== null) {
          this.opening = null;
          reject(new RpcTransportError(`${this.url}: ${e.message}`));
        }
      });
      ws.on("close", () => {
        if (this.socket === ws) this.socket = null;
        for (const [id, p] of this.pending) {
          clearTimeout(p.timer);
          p.reject(new RpcTransportError(`${this.url}: connection closed`));
          this.pending.delete(id);
        }
      });
    });
    return this.opening;
  }

  private onMessage(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      const id = (m as { id?: unknown })?.id;
      if (typeof id !== "number") continue;
      const p = this.pending.get(id);
      if (p === undefined) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.resolve(m);
    }
  }

  private async send(ids: number[], body: string, what: string): Promise<unknown[]> {
    const ws = await this.open();
    const answers = ids.map(
      (id) =>
        new Promise<unknown>((resolve, reject) => {
          const timer = setTimeout(() => {
            this.pending.delete(id);
            reject(new RpcTransportError(`${what} to ${this.url}: timed out after ${this.timeoutMs} ms`));
          }, this.timeoutMs);
          timer.unref?.();
          this.pending.set(id, { resolve, reject, timer });
        }),
    );
    ws.send(body);
    return Promise.all(answers);
  }

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const [reply] = await this.send([id], JSON.stringify({ jsonrpc: "2.0", id, method, params }), method);
    return resultOf<T>(method, reply);
  }

  async callBatch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const ids = calls.map(() => this.nextId++);
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: "2.0", id: ids[i], method: c.method, params: c.params })),
    );
    const replies = await this.send(ids, body, `batch of ${calls.length}`);
    return replies.map((r, i) => {
      try {
        return resultOf(calls[i]!.method, r);
      } catch (e) {
        return e;
      }
    });
  }

  close(): void {
    this.socket?.close();
    this.socket = null;
  }
}

function resultOf<T>(method: string, reply: unknown): T {
  const r = reply as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (r.error !== undefined && r.error !== null) {
    const code = typeof r.error.code === "number" ? r.error.code : -32603;
    throw new RpcCallError(method, code, typeof r.error.message === "string" ? r.error.message : "error", r.error.data);
  }
  return r.result as T;
}
