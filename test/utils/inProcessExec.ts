/**
 * An opal-exec in the test's own process: a chain on a memory store, its tx pool, the Engine API and
 * every RPC namespace behind one dispatcher, reached through `RpcTransport` with the same JSON text
 * a socket would carry — so the rollup node's clients run unchanged, with no ports and no timers.
 */
import { Blockchain } from "../../src/chain/blockchain.js";
import { parseGenesis } from "../../src/chain/genesis.js";
import { EngineApi } from "../../src/engine/engineApi.js";
import { engineMethods, testingMethods } from "../../src/engine/methods.js";
import { coreApis } from "../../src/node/exec/execNode.js";
import { RpcCallError, RpcTransportError } from "../../src/rollup/transport/rpcClient.js";
import type { RpcTransport } from "../../src/rollup/transport/rpcTransport.js";
import type { Dispatcher, RpcConnection } from "../../src/rpc/dispatch.js";
import { Registry } from "../../src/rpc/registry.js";
import { MemoryKv } from "../../src/storage/memory.js";
import { decodeTx } from "../../src/tx/envelope.js";
import { BlobSidecarStore } from "../../src/txpool/blobSidecars.js";
import { TxPool } from "../../src/txpool/txPool.js";
import { txSourceOf } from "../../src/txpool/txsByPriceAndNonce.js";

const CONN: RpcConnection = { ctx: { transport: "http", remoteAddr: "in-process" }, subs: null };

export class InProcessRpc implements RpcTransport {
  private nextId = 1;
  /** Every method called, in order (tests check which calls a client made). */
  readonly calls: string[] = [];

  constructor(private readonly dispatcher: Dispatcher) {}

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    this.calls.push(method);
    const text = await this.dispatcher.handleText(
      JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }),
      CONN,
    );
    if (text === null) throw new RpcTransportError(`${method}: no answer`);
    return resultOf<T>(method, JSON.parse(text));
  }

  async callBatch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const c of calls) {
      try {
        out.push(await this.call(c.method, c.params));
      } catch (e) {
        out.push(e);
      }
    }
    return out;
  }
}

function resultOf<T>(method: string, r: { result?: unknown; error?: { code: number; message: string } }): T {
  if (r.error !== undefined) throw new RpcCallError(method, r.error.code, r.error.message);
  return r.result as T;
}

export class InProcessExec {
  readonly rpc: InProcessRpc;

  private constructor(
    readonly chain: Blockchain,
    readonly pool: TxPool,
    readonly engine: EngineApi,
    /** Every namespace, for serving this chain over HTTP in node tests. */
    readonly registry: Registry,
    dispatcher: Dispatcher,
  ) {
    this.rpc = new InProcessRpc(dispatcher);
  }

  /** Blob sidecars of an L1 chain (blob txs accepted in the network form); null on OP chains. */
  blobSidecars: BlobSidecarStore | null = null;

  /** A fresh chain from a genesis document (with its `config`). */
  /** `txPool`: payloads built without `noTxPool` take the pool's txs, as opal-exec's engine does. */
  static create(genesis: Record<string, unknown>, opts: { readonly txPool?: boolean } = {}): InProcessExec {
    const chain = Blockchain.init(new MemoryKv(), parseGenesis(genesis), genesis.config as never);
    // As src/node/exec/execNode.ts wires a dev L1: the store knows the chain (its head's fork decides the
    // blob wrapper version it takes) and the Engine API reads its blobs from it (getBlobs, bundles).
    const sidecars = chain.config.optimism === null ? new BlobSidecarStore(undefined, chain) : null;
    const pool = new TxPool({}, { chain, acceptBlobs: sidecars !== null });
    const engine = new EngineApi(
      chain,
      opts.txPool === true ? (baseFee) => txSourceOf(pool.byPriceAndNonce(baseFee)) : null,
      { blobs: sidecars },
    );
    const apis = coreApis({
      chain,
      pool,
      networkId: chain.config.chainId,
      clientVersion: "opal/test",
      gasCap: 50_000_000n,
      txFeeCap: 0,
      evmTimeoutMs: 5000,
      devAccounts: [],
      forwardRawTx: null,
      blobSidecars: sidecars,
    });
    engine.onHead = (change) => {
      if (sidecars !== null) {
        const txs = (chain.store.body(chain.headBlockHash)?.transactions ?? []).map((t) => decodeTx(t));
        sidecars.sealed(change.newHead.number, chain.headBlockHash, txs);
      }
      pool.onNewHead(change.newHead);
      apis.events?.emitHeadChange(change);
    };
    const registry = new Registry([...engineMethods(engine), ...testingMethods(engine), ...apis.methods]);
    const dispatcher = registry.forApis(["eth", "engine", "debug", "testing", "net", "web3", "txpool"]);
    const exec = new InProcessExec(chain, pool, engine, registry, dispatcher);
    exec.blobSidecars = sidecars;
    return exec;
  }
}
