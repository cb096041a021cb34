/**
 * What the rollup node's clients need of a JSON-RPC endpoint: one call, or one batch whose answers
 * come back in request order (an item's error in its slot). `RpcClient` is the HTTP implementation;
 * action tests plug in a dispatcher of an in-process opal-exec.
 */
export interface RpcTransport {
  call<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  callBatch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]>;
}
