/**
 * A plain JSON-RPC client over fetch for tests, benches and scripts: `rpc` returns the HTTP status,
 * body and parsed reply; `call` the result, or an Error with the server's message. Kept apart from
 * node.ts so that benches and scripts can use it without loading the nodes.
 */
export interface RpcReply {
  status: number;
  body: string;
  json: { result?: unknown; error?: { code: number; message: string } } | null;
}

export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
  headers: Record<string, string> = {},
): Promise<RpcReply> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.text();
  let json: RpcReply["json"] = null;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  return { status: res.status, body, json };
}

/** The JSON-RPC result of a call, or an Error with the server's message. */
export async function call(
  url: string,
  method: string,
  params: unknown[] = [],
  headers: Record<string, string> = {},
): Promise<unknown> {
  const r = await rpc(url, method, params, headers);
  if (r.json === null) throw new Error(`HTTP ${r.status}: ${r.body.slice(0, 200)}`);
  if (r.json.error !== undefined) throw new Error(r.json.error.message);
  return r.json.result;
}
