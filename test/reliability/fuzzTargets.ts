/**
 * Fuzz targets (issue 10): every decoder that takes outside bytes, with the errors it may raise.
 * A target passes a case when it returns a value (a typed error value included) or throws one of its
 * typed errors within the time limit; anything else — a TypeError, a RangeError, a hang — is a
 * failure. Inputs are random bytes or mutations of valid seeds (flipped bytes, truncations,
 * insertions, duplicated slices), the seeds read from ../shared at run time, never copied here.
 *
 * Used by test/unit/reliability/fuzz.test.ts (a short slice in `npm test`) and by
 * scripts/reliability.ts (`npm run reliability`: 100,000 cases per target and a table).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import { decodeBlock } from "../../src/block/block.js";
import { BlockError } from "../../src/block/errors.js";
import { decodeReceipt } from "../../src/block/receipt.js";
import { GenesisError, parseGenesis } from "../../src/chain/genesis.js";
import { parseExecArgs } from "../../src/cli/execFlags.js";
import { parseNodeArgs } from "../../src/cli/nodeFlags.js";
import { Enr, EnrError } from "../../src/devp2p/discovery/enr.js";
import { generateNodeKey } from "../../src/devp2p/discovery/nodeKey.js";
import { decodePacket, encodePacket } from "../../src/devp2p/discovery/v4wire.js";
import { decodeEthMessage, EthMsg, encodeEthMessage } from "../../src/devp2p/eth/messages.js";
import { decodeDisconnect, decodeHello, encodeDisconnect, encodeHello } from "../../src/devp2p/rlpx/p2pMessages.js";
import { PayloadError, payloadToBlock } from "../../src/engine/payload.js";
import { coreApis } from "../../src/node/exec/execNode.js";
import { decodeEnvelope } from "../../src/p2p/ssz.js";
import { PrimitiveError } from "../../src/primitives/errors.js";
import { snappyFrameDecode, snappyUncompress } from "../../src/primitives/snappy.js";
import { decodeHeader, decodeRlp } from "../../src/rlp/decode.js";
import { RlpError } from "../../src/rlp/errors.js";
import { NETWORK_ROLLUP_JSON } from "../../src/rollup/config/networks.js";
import { parseRollupConfig, RollupConfigError } from "../../src/rollup/config/rollupConfig.js";
import { decodeSingularBatch } from "../../src/rollup/derive/batch.js";
import { BatchDecodeError } from "../../src/rollup/derive/batchErrors.js";
import { readChannelBatches } from "../../src/rollup/derive/channelReader.js";
import { deriveSpanBatch } from "../../src/rollup/derive/deriveSpanBatch.js";
import { DeriveError } from "../../src/rollup/derive/errors.js";
import { parseFrames } from "../../src/rollup/derive/frame.js";
import { decodeRawSpanBatch } from "../../src/rollup/derive/rawSpanBatch.js";
import type { Dispatcher } from "../../src/rpc/dispatch.js";
import { Registry } from "../../src/rpc/registry.js";
import { ChainConfigError } from "../../src/spec/chainConfig.js";
import { decodeTx } from "../../src/tx/envelope.js";
import { TxError } from "../../src/tx/errors.js";
import { TxPool } from "../../src/txpool/txPool.js";
import { fixturePath } from "../utils/fixtures.js";
import { buildSuiteChain } from "../utils/rpcCompatChain.js";
import { SESSION_FUZZ_TARGETS } from "./sessionFuzz.js";

export interface FuzzTarget {
  readonly name: string;
  /** Valid inputs the mutations start from. */
  readonly seeds: () => Uint8Array[];
  /**
   * Decodes one input; may return anything (a promise is awaited), may throw (or reject with) only
   * what `typed` accepts.
   */
  run(input: Uint8Array): unknown;
  readonly typed: (e: unknown) => boolean;
  /** Largest random input (bytes). */
  readonly maxLength?: number;
  /** The seeds are JSON: also mutate them as JSON values (keys, types, nesting), not only as bytes. */
  readonly json?: boolean;
  /**
   * Targets that drive live sockets (sessionFuzz.ts): started before the first case and stopped after
   * the last, outside the per-case time limit; a throw from either fails the target.
   */
  readonly setup?: () => Promise<void>;
  readonly teardown?: () => Promise<void>;
  /** At most this many cases per run, whatever is asked (targets whose case is a TCP session). */
  readonly maxCases?: number;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const text = (b: Uint8Array): string => dec.decode(b);
const is =
  (...classes: (abstract new (...a: never[]) => unknown)[]) =>
  (e: unknown): boolean =>
    classes.some((c) => e instanceof c);

/** `f` of the input read as JSON; input that is not JSON never reaches these decoders (the caller's parser refuses it). */
function withJson(b: Uint8Array, f: (json: unknown) => unknown): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text(b));
  } catch {
    return null;
  }
  return f(json);
}

function hexBytes(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s.trim().replace(/^0x/, ""), "hex"));
}

const RPC_COMPAT = (): string => fixturePath("execution-apis-rpc", "tests");
const KONA = (): string => fixturePath("op-stack", "kona-batch-data");

/** The first blocks of the rpc-compat chain, as RLP. */
function chainBlocks(n: number): Uint8Array[] {
  const all = new Uint8Array(readFileSync(join(RPC_COMPAT(), "chain.rlp")));
  const out: Uint8Array[] = [];
  for (let pos = 0; pos < all.length && out.length < n; ) {
    const h = decodeHeader(all, pos);
    out.push(all.slice(pos, h.start + h.length));
    pos = h.start + h.length;
  }
  return out;
}

/** Raw txs of the first blocks of the rpc-compat chain. */
function chainTxs(): Uint8Array[] {
  const txs: Uint8Array[] = [];
  for (const b of chainBlocks(40)) {
    const block = decodeBlock(b);
    for (const t of block.body.transactions) txs.push(t);
  }
  return txs.slice(0, 40);
}

/** What the dispatcher answers when a handler throws an untyped error (rpc/errors.ts toRpcError). */
const CRASHED = "method handler crashed";

let JSON_RPC: Dispatcher | null = null;

/** opal-exec's namespaces but engine (node/execNode.ts coreApis) over the rpc-compat chain, built once. */
function jsonRpc(): Dispatcher {
  if (JSON_RPC !== null) return JSON_RPC;
  const chain = buildSuiteChain(RPC_COMPAT());
  const pool = new TxPool({}, { chain });
  const apis = coreApis({
    chain,
    pool,
    networkId: 1n,
    clientVersion: "opal/fuzz",
    gasCap: 50_000_000n,
    txFeeCap: 1,
    // Each case must end well inside CASE_LIMIT_MS, whatever gas or trace it asks for.
    evmTimeoutMs: 500,
    devAccounts: [],
    forwardRawTx: null,
  });
  JSON_RPC = new Registry(apis.methods).forApis(["eth", "net", "web3", "txpool", "debug", "trace"]);
  return JSON_RPC;
}

/** The requests (">> " lines) of every rpc-compat test file. */
function rpcCompatRequests(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const dir of readdirSync(RPC_COMPAT(), { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of readdirSync(join(RPC_COMPAT(), dir.name))) {
      if (!f.endsWith(".io")) continue;
      for (const line of readFileSync(join(RPC_COMPAT(), dir.name, f), "utf8").split("\n")) {
        if (line.startsWith(">> ")) out.push(enc.encode(line.slice(3)));
      }
    }
  }
  return out;
}

/** argv from bytes: NUL-separated words (the bytes a shell could hand over). */
function argvOf(b: Uint8Array): string[] {
  return text(b)
    .split("\0")
    .filter((w) => w.length > 0);
}

const CLI_SEEDS = (): Uint8Array[] =>
  [
    "--dev\0--http\0--http.port\x008545\0--http.api\0eth,net,web3,debug\0--workers.evmcall=2",
    "--datadir\0/tmp/x\0--db.engine=lmdb\0--rpc.gascap\x050000000\0--cache=512\0init\0g.json",
    "--network=op-sepolia\0--l1=http://127.0.0.1:8545\0--l2=http://127.0.0.1:8551\0--l2.jwt-secret=j.hex\0--p2p.listen.tcp=9222\0--p2p.netrestrict=10.0.0.0/8",
    "--sequencer.enabled\0--sequencer.l1-confs=4\0--metrics.enabled\0--pprof.type=cpu\0--log.level=debug",
  ].map((x) => enc.encode(x));

const DEVP2P_KEY = generateNodeKey();

/** Seeds of the eth target: a version-69 Status and a GetBlockHeaders, each behind its code byte. */
function DEVP2P_ETH_SEEDS(): Uint8Array[] {
  const status = encodeEthMessage(69, {
    code: EthMsg.Status,
    form: 69,
    version: 69,
    networkId: 10n,
    genesis: new Uint8Array(32).fill(1),
    forkId: { hash: Uint8Array.of(1, 2, 3, 4), next: 0 },
    earliest: 0,
    latest: 100,
    latestHash: new Uint8Array(32).fill(2),
  });
  const headers = encodeEthMessage(68, {
    code: EthMsg.GetBlockHeaders,
    requestId: 7n,
    origin: 100n,
    amount: 64n,
    skip: 0n,
    reverse: true,
  });
  return [Uint8Array.of(0x80, ...status), Uint8Array.of(EthMsg.GetBlockHeaders, ...headers)];
}

const DISCV4_PING = encodePacket(
  {
    type: 1,
    version: 4,
    from: { ip: Uint8Array.of(127, 0, 0, 1), udp: 30303, tcp: 30303 },
    to: { ip: Uint8Array.of(127, 0, 0, 1), udp: 30304, tcp: 30304 },
    expiration: 2_000_000_000,
    enrSeq: 1n,
  },
  DEVP2P_KEY.privateKey,
).datagram;

const P2P_HELLO = encodeHello({
  protocolVersion: 5,
  clientId: "fuzz",
  capabilities: [
    { name: "eth", version: 68 },
    { name: "eth", version: 69 },
  ],
  listenPort: 30303,
  nodeId: DEVP2P_KEY.publicKey,
});

const ENR_SEED = Enr.sign(DEVP2P_KEY, 1n, new Map()).raw;

function tryEnr(b: Uint8Array): unknown {
  try {
    return Enr.decode(b);
  } catch (e) {
    if (e instanceof EnrError) return e;
    throw e;
  }
}

export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  {
    name: "rlp",
    seeds: () => chainBlocks(5),
    run: (b) => decodeRlp(b),
    typed: is(RlpError),
  },
  {
    name: "transaction (every type)",
    seeds: chainTxs,
    run: (b) => decodeTx(b),
    typed: is(TxError, RlpError, PrimitiveError),
  },
  {
    name: "block",
    seeds: () => chainBlocks(8),
    run: (b) => decodeBlock(b),
    typed: is(BlockError, RlpError, TxError, PrimitiveError),
    maxLength: 4096,
  },
  {
    name: "receipt",
    seeds: () => [hexBytes("0xf901c58001b9010000"), hexBytes("0x02f901c58001b9010000")],
    run: (b) => decodeReceipt(b),
    typed: is(BlockError, RlpError, PrimitiveError),
  },
  {
    name: "snappy block",
    seeds: () => [hexBytes("0x0c2c68656c6c6f20776f726c6421")],
    run: (b) => snappyUncompress(b, 1 << 20),
    typed: () => false,
  },
  {
    name: "snappy framed",
    seeds: () => [hexBytes("0xff060000734e61507059")],
    run: (b) => snappyFrameDecode(b, 1 << 20),
    typed: () => false,
  },
  {
    name: "SSZ execution payload envelope (v1–v4)",
    seeds: () => [new Uint8Array(600), new Uint8Array(560)],
    run: (b) => {
      for (const v of [0, 1, 2, 3] as const) decodeEnvelope(v, b);
    },
    typed: () => false,
  },
  {
    name: "batcher frames",
    seeds: () => [new Uint8Array(readFileSync(join(KONA(), "raw_batcher_tx.bin"))).subarray(0, 4096)],
    run: (b) => parseFrames(b),
    typed: () => false,
    maxLength: 4096,
  },
  {
    name: "channel (zlib/brotli, bombs included)",
    seeds: () => [
      new Uint8Array(deflateSync(Buffer.from(new Uint8Array(readFileSync(join(KONA(), "raw_span_batch.bin")))))),
      // A small bomb: 64 KiB of zeros compress to 84 bytes (each case must stay fast; the channel
      // limit on decompressed bytes is tested in the channel reader's own tests).
      new Uint8Array(deflateSync(Buffer.alloc(1 << 16))),
    ],
    run: (b) => readChannelBatches(b, { fjord: true }),
    typed: () => false,
    maxLength: 4096,
  },
  {
    name: "singular batch",
    seeds: () => [hexBytes(`0xf84ba0${"11".repeat(32)}01a0${"22".repeat(32)}02c0`)],
    run: (b) => decodeSingularBatch(b),
    typed: is(BatchDecodeError),
  },
  {
    name: "span batch",
    seeds: () => [new Uint8Array(readFileSync(join(KONA(), "raw_span_batch.bin"))).subarray(1)],
    run: (b) => deriveSpanBatch(decodeRawSpanBatch(b), { genesisL2Time: 1686068903, blockTime: 2, l2ChainId: 10n }),
    typed: is(BatchDecodeError, DeriveError),
    maxLength: 8192,
  },
  {
    name: "JSON-RPC request (envelope, batch, params of every method)",
    // Every request of the execution-apis rpc-compat suite (each method's real params), plus
    // envelope shapes; served by every namespace opal-exec has but engine, over the suite's chain.
    seeds: () => [
      ...[
        '{"jsonrpc":"2.0","id":1,"method":"web3_sha3","params":["0x68656c6c6f"]}',
        '[{"jsonrpc":"2.0","id":1,"method":"web3_clientVersion"},{"jsonrpc":"2.0","method":"x"}]',
      ].map((x) => enc.encode(x)),
      ...rpcCompatRequests(),
    ],
    run: async (b) => {
      const reply = await jsonRpc().handleText(text(b), { ctx: { transport: "http", remoteAddr: "fuzz" }, subs: null });
      // A handler's untyped throw (TypeError, RangeError, ...) is answered "method handler crashed":
      // for the fuzzer that is the crash it looks for.
      if (typeof reply === "string" && reply.includes(CRASHED))
        throw new Error(`handler crashed: ${reply.slice(0, 300)}`);
    },
    typed: () => false,
    maxLength: 2048,
    json: true,
  },
  {
    name: "Engine API payload (JSON)",
    seeds: () => [enc.encode(ENGINE_PAYLOAD)],
    run: (b) => withJson(b, (json) => payloadToBlock(json as never, 3, new Uint8Array(32), null, true)),
    typed: is(PayloadError, PrimitiveError),
    json: true,
  },
  {
    name: "rollup.json",
    seeds: () => [enc.encode(JSON.stringify(NETWORK_ROLLUP_JSON["op-mainnet"]))],
    run: (b) => withJson(b, parseRollupConfig),
    typed: is(RollupConfigError),
    maxLength: 4096,
    json: true,
  },
  {
    name: "genesis.json",
    seeds: () => [new Uint8Array(readFileSync(join(RPC_COMPAT(), "genesis.json")))],
    run: (b) => withJson(b, (json) => parseGenesis(json)),
    typed: is(GenesisError, ChainConfigError, PrimitiveError),
    maxLength: 4096,
    json: true,
  },
  {
    // devp2p (issue 24): what a peer sends after the RLPx frame layer. First byte: the version bit
    // and the message code; the rest the payload. Bad input is an error value, never a throw.
    name: "devp2p eth/68–69 message",
    seeds: DEVP2P_ETH_SEEDS,
    run: (b) => (b.length === 0 ? null : decodeEthMessage(b[0]! & 0x80 ? 69 : 68, b[0]! & 0x1f, b.subarray(1))),
    typed: () => false,
  },
  {
    name: "devp2p discv4 packet",
    seeds: () => [DISCV4_PING],
    run: (b) => decodePacket(b),
    typed: () => false,
    maxLength: 1500,
  },
  {
    // RLPx base protocol after the handshake (Hello, Disconnect) and an ENR as discovery relays it.
    name: "devp2p Hello / Disconnect / ENR",
    seeds: () => [P2P_HELLO, encodeDisconnect(0x10), ENR_SEED],
    run: (b) => [decodeHello(b), decodeDisconnect(b), b.length > 300 ? null : tryEnr(b)],
    typed: () => false,
  },
  {
    name: "opal-exec command line",
    seeds: CLI_SEEDS,
    // A bad command line is a result ({kind: "error"}), never a throw.
    run: (b) => parseExecArgs(argvOf(b), {}, { home: "/home/fuzz" }),
    typed: () => false,
  },
  {
    name: "opal-node command line",
    seeds: CLI_SEEDS,
    run: (b) => parseNodeArgs(argvOf(b), {}, { home: "/home/fuzz" }),
    typed: () => false,
  },
  // Whole RLPx sessions against a live Devp2pHost over loopback: auth bytes, raw frame bytes and
  // encrypted frame payloads (sessionFuzz.ts; a few hundred cases a run).
  ...SESSION_FUZZ_TARGETS,
];

const ENGINE_PAYLOAD = JSON.stringify({
  parentHash: `0x${"11".repeat(32)}`,
  feeRecipient: `0x${"22".repeat(20)}`,
  stateRoot: `0x${"33".repeat(32)}`,
  receiptsRoot: `0x${"44".repeat(32)}`,
  logsBloom: `0x${"00".repeat(256)}`,
  prevRandao: `0x${"55".repeat(32)}`,
  blockNumber: "0x1",
  gasLimit: "0x1c9c380",
  gasUsed: "0x0",
  timestamp: "0x64",
  extraData: "0x",
  baseFeePerGas: "0x7",
  blockHash: `0x${"66".repeat(32)}`,
  transactions: [
    `0x02f86a01808080809411111111111111111111111111111111111111118080c001a0${"11".repeat(32)}a0${"22".repeat(32)}`,
  ],
  withdrawals: [],
  blobGasUsed: "0x0",
  excessBlobGas: "0x0",
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values that trip decoders: wrong types, edge numbers, odd hex, block tags, deep nesting. */
const ODD_VALUE: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2 ** 53,
    1e308,
    "",
    "0x",
    "0x0",
    "0x00",
    "0x1",
    "-0x1",
    "0xzz",
    `0x${"f".repeat(64)}`,
    `0x${"f".repeat(65)}`,
    `0x${"1".repeat(4096)}`,
    "latest",
    "pending",
    "earliest",
    "safe",
    "finalized",
    "0x7fffffffffffffff",
    "0xffffffffffffffff",
    [],
    {},
    [[[[[[[[[[[]]]]]]]]]]],
    { blockHash: `0x${"11".repeat(32)}`, requireCanonical: true },
  ),
  fc.integer(),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), maxLength: 80 }).map((h) => `0x${h}`),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** One structural edit at the node chosen by `at`: replace it, delete it, add a key, wrap it, nest a copy. */
const JSON_EDIT: fc.Arbitrary<JsonEdit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom<JsonEdit["kind"]>("replace", "delete", "addKey", "wrap", "dup"),
  value: ODD_VALUE,
  key: fc.oneof(
    fc.constantFrom("from", "to", "gas", "value", "input", "data", "blockHash", "__proto__"),
    fc.string({ maxLength: 8 }),
  ),
});

/** Every container of `v` with its keys (depth first), so an edit can pick one by index. */
function containers(v: Json, out: (Json[] | { [k: string]: Json })[] = []): (Json[] | { [k: string]: Json })[] {
  if (v !== null && typeof v === "object") {
    out.push(v);
    for (const c of Array.isArray(v) ? v : Object.values(v)) containers(c, out);
  }
  return out;
}

interface JsonEdit {
  at: number;
  kind: "replace" | "delete" | "addKey" | "wrap" | "dup";
  value: Json;
  key: string;
}

function applyEdit(root: Json, edit: JsonEdit): Json {
  // A fresh copy of the value: the arbitrary's constants are shared objects, and inserting one
  // twice (or into itself) would alias or cycle.
  const e = { ...edit, value: JSON.parse(JSON.stringify(edit.value) ?? "null") as Json };
  const all = containers(root);
  if (all.length === 0) return e.kind === "wrap" ? [root] : e.value;
  const c = all[e.at % all.length]!;
  const keys = Array.isArray(c) ? c.map((_, i) => i) : Object.keys(c);
  const setAt = (k: number | string, v: Json | undefined): void => {
    if (Array.isArray(c)) {
      if (v === undefined) c.splice(k as number, 1);
      else c[k as number] = v;
    } else if (v === undefined) delete c[k as string];
    else Object.defineProperty(c, k as string, { value: v, enumerable: true, writable: true, configurable: true });
  };
  const k = keys.length === 0 ? null : keys[e.at % keys.length]!;
  const cur = k === null ? undefined : (c as Record<string | number, Json>)[k];
  switch (e.kind) {
    case "replace":
      if (k !== null) setAt(k, e.value);
      break;
    case "delete":
      if (k !== null) setAt(k, undefined);
      break;
    case "addKey":
      if (Array.isArray(c)) c.push(e.value);
      else setAt(e.key, e.value);
      break;
    case "wrap":
      if (k !== null && cur !== undefined) setAt(k, [cur]);
      break;
    case "dup":
      if (k !== null && cur !== undefined) setAt(k, JSON.parse(JSON.stringify([cur, cur])) as Json);
      break;
  }
  return root;
}

/** A JSON seed with a few structural edits, written back as JSON text. */
function jsonMutated(seeds: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> | null {
  const parsed: string[] = [];
  for (const s of seeds) {
    try {
      parsed.push(JSON.stringify(JSON.parse(text(s))));
    } catch {
      // not JSON: byte mutations only
    }
  }
  if (parsed.length === 0) return null;
  return fc
    .tuple(fc.constantFrom(...parsed), fc.array(JSON_EDIT, { minLength: 1, maxLength: 4 }))
    .map(([seed, edits]) => {
      let v = JSON.parse(seed) as Json;
      for (const e of edits) v = applyEdit(v, e);
      return enc.encode(JSON.stringify(v) ?? "null");
    });
}

/**
 * Random bytes, or a valid seed with a few byte mutations, or (JSON targets) a seed with a few
 * structural edits — most byte-mutated JSON fails JSON.parse before any decoder sees it.
 */
export function inputs(seeds: readonly Uint8Array[], maxLength: number, json = false): fc.Arbitrary<Uint8Array> {
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
    fc.record({ kind: fc.constant("dup" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 64 }) }),
  );
  const mutated =
    seeds.length === 0
      ? fc.uint8Array({ maxLength })
      : fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 4 })).map(([seed, ms]) => {
          let b = seed;
          for (const m of ms) {
            const at = b.length === 0 ? 0 : m.at % (b.length + 1);
            if (m.kind === "flip" && b.length > 0) {
              b = b.slice();
              b[at % b.length] = m.value;
            } else if (m.kind === "truncate") {
              b = b.subarray(0, at);
            } else if (m.kind === "insert") {
              b = Buffer.concat([b.subarray(0, at), m.bytes, b.subarray(at)]);
            } else if (m.kind === "dup") {
              b = Buffer.concat([b.subarray(0, at), b.subarray(at, at + m.len), b.subarray(at)]);
            }
          }
          return new Uint8Array(b);
        });
  const structural = json ? jsonMutated(seeds) : null;
  if (structural !== null) {
    return fc.oneof(
      { weight: 1, arbitrary: fc.uint8Array({ maxLength }) },
      { weight: 2, arbitrary: mutated },
      { weight: 4, arbitrary: structural },
    );
  }
  return fc.oneof({ weight: 1, arbitrary: fc.uint8Array({ maxLength }) }, { weight: 3, arbitrary: mutated });
}

export interface FuzzResult {
  readonly target: string;
  readonly cases: number;
  readonly ms: number;
  /** The first failure, shrunk: what was thrown (or the time taken) and the input. */
  readonly failure: string | null;
}

/** A case slower than this is a failure (a hang, or unbounded work). */
export const CASE_LIMIT_MS = 2000;

/** The cases `fuzz(t, cases)` runs: `cases`, or the target's maxCases when that is lower. */
export function casesFor(t: FuzzTarget, cases: number): number {
  return Math.min(cases, t.maxCases ?? cases);
}

const message = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** Runs `casesFor(t, cases)` inputs through `t`; deterministic for a given `seed`. */
export async function fuzz(t: FuzzTarget, cases: number, seed = 42): Promise<FuzzResult> {
  const seeds = t.seeds();
  const t0 = performance.now();
  let r: fc.RunDetails<[Uint8Array]>;
  let teardownFailure: string | null = null;
  try {
    await t.setup?.();
    r = await fc.check(
      fc.asyncProperty(inputs(seeds, t.maxLength ?? 1024, t.json === true), async (input) => {
        const s = performance.now();
        try {
          await t.run(input);
        } catch (e) {
          if (!t.typed(e)) throw e;
        }
        const took = performance.now() - s;
        if (took > CASE_LIMIT_MS) throw new Error(`took ${took.toFixed(0)} ms`);
      }),
      { numRuns: casesFor(t, cases), seed, endOnFailure: true },
    );
  } catch (e) {
    // setup failed (the target's structured seeds included): no case ran.
    await t.teardown?.().catch(() => undefined);
    return { target: t.name, cases: 0, ms: performance.now() - t0, failure: `setup: ${message(e)}` };
  }
  try {
    await t.teardown?.();
  } catch (e) {
    teardownFailure = `teardown: ${message(e)}`;
  }
  let failure: string | null = null;
  if (r.failed) {
    const ex = r.counterexample?.[0] as Uint8Array | undefined;
    const err = r.errorInstance as Error | undefined;
    const shown =
      ex === undefined
        ? "?"
        : t.json === true
          ? JSON.stringify(text(ex).slice(0, 300))
          : `0x${Buffer.from(ex).toString("hex").slice(0, 200)}`;
    failure = `${err?.name ?? "Error"}: ${err?.message ?? "failed"} on ${shown}`;
  }
  failure ??= teardownFailure;
  return { target: t.name, cases: r.numRuns, ms: performance.now() - t0, failure };
}
