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
import { WriteBatch } from "../../src/storage/kv.js";
import { MemoryKv } from "../../src/storage/memory.js";
import { TABLE_NAMES, type TableName } from "../../src/storage/tables.js";
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
    return resultOf<T>(method, JSON.parse(String(text)));
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

/**
 * The rows `Blockchain.init` writes for a genesis document, by the document's content: each new
 * chain on the same document starts from a copy of them (then `Blockchain.open`, as a restart
 * would), the same store `init` leaves. PERF: the OP dev genesis (2,350 accounts, ~2,050 predeploy
 * proxies with storage) costs ~150 ms to parse, write and hash per chain; the action tests build
 * 333 chains: 18.5 s of a 43 s run, which takes 18 s with the rows computed once per process (9
 * builds; measured with test/unit/rollup/actions, 2 cores). A handful of documents recur, so the
 * map keeps the 16 newest.
 */
const GENESIS_ROWS = new Map<string, readonly (readonly [TableName, Uint8Array, Uint8Array])[]>();
const GENESIS_ROWS_KEPT = 16;
/** Long strings (code) of the documents seen, numbered, so that a key names each by its number. */
const LONG_STRINGS = new Map<string, number>();

/**
 * The document's JSON with every string prefixed ("s…") or, when long, replaced by its number
 * ("l…"): equal keys, equal documents. PERF: the OP dev genesis is 9.3 MB of JSON (the 3.3 KB proxy
 * code 2,046 times): JSON.stringify takes 30–60 ms, this key ~5 ms.
 */
function genesisKey(genesis: Record<string, unknown>): string {
  return JSON.stringify(genesis, (_k, v: unknown) => {
    if (typeof v !== "string") return v;
    if (v.length < 256) return `s${v}`;
    let n = LONG_STRINGS.get(v);
    if (n === undefined) {
      n = LONG_STRINGS.size;
      LONG_STRINGS.set(v, n);
    }
    return `l${n}`;
  });
}

function genesisChain(genesis: Record<string, unknown>): Blockchain {
  const key = genesisKey(genesis);
  let rows = GENESIS_ROWS.get(key);
  if (rows === undefined) {
    const built = new MemoryKv();
    Blockchain.init(built, parseGenesis(genesis), genesis.config as never);
    rows = TABLE_NAMES.flatMap((t) => [...built.iterate(t)].map(([k, v]) => [t, k, v] as const));
    if (GENESIS_ROWS.size >= GENESIS_ROWS_KEPT) GENESIS_ROWS.delete(GENESIS_ROWS.keys().next().value!);
    GENESIS_ROWS.set(key, rows);
  }
  const kv = new MemoryKv();
  const b = new WriteBatch();
  for (const [t, k, v] of rows) b.put(t, k, v);
  kv.write(b);
  return Blockchain.open(kv);
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
    const chain = genesisChain(genesis);
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
