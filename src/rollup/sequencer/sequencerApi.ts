/**
 * The experimental test-sequencer RPC (`--experimental.sequencer-api`; op-node's `opstack_*`
 * block-building methods of op-test-sequencer, optimism#14604): a test drives block production
 * step by step on the node's own engine —
 *
 * - `opstack_openBlockV1({hash, number})`: start building on that parent, with the attributes the
 *   sequencer would use (L1 origin by time and drift, deposits, upgrades); answers `{id, timestamp}`;
 * - `opstack_sealBlockV1({id, timestamp})`: the built payload envelope (nothing inserted yet);
 * - `opstack_cancelBlockV1({id, timestamp})`: forget an open job;
 * - `opstack_commitBlockV1({envelope})`: insert the payload into the engine (newPayload);
 * - `opstack_publishBlockV1({envelope})`: make it the unsafe head (it must extend it).
 *
 * Custom attributes are not taken: the node derives them as its sequencer would. Every call runs
 * under the lock the driver and the sequencer share.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { RpcError } from "../../rpc/errors.js";
import { json } from "../../rpc/params.js";
import { type AnyMethod, defineMethod } from "../../rpc/registry.js";
import type { ChainConfig } from "../../spec/chainConfig.js";
import type { RollupConfig } from "../config/rollupConfig.js";
import { preparePayloadAttributes, type SystemConfigSource } from "../derive/attributes.js";
import { envelopeOf, type PayloadEnvelope } from "../engine/engineClient.js";
import type { EngineController } from "../engine/engineController.js";
import type { Semaphore } from "../l1/limits.js";
import type { Sequencer, SequencerL1 } from "./sequencer.js";

export interface SequencerApiDeps {
  readonly cfg: RollupConfig;
  readonly controller: EngineController;
  readonly sequencer: Sequencer;
  readonly l1: SequencerL1;
  readonly l2: SystemConfigSource;
  readonly l1Chain: ChainConfig | null;
  readonly lock: Semaphore;
}

interface Job {
  readonly timestamp: number;
  readonly parent: Uint8Array;
}

function fail(message: string): never {
  throw RpcError.server(message);
}

function obj(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) fail(`${what}: want an object`);
  return v as Record<string, unknown>;
}

function payloadInfo(v: unknown): { id: string; timestamp: number } {
  const o = obj(v, "payload info");
  if (typeof o.id !== "string" || !/^0x[0-9a-fA-F]{16}$/.test(o.id)) fail("payload info: id must be 8 bytes of hex");
  const ts = typeof o.timestamp === "string" ? Number(BigInt(o.timestamp)) : Number(o.timestamp);
  if (!Number.isSafeInteger(ts)) fail("payload info: bad timestamp");
  return { id: o.id, timestamp: ts };
}

function envelopeArg(v: unknown): PayloadEnvelope {
  const o = obj(v, "signed envelope");
  const env = obj(o.envelope ?? o, "envelope");
  const payload = obj(env.executionPayload, "executionPayload");
  const root = typeof env.parentBeaconBlockRoot === "string" ? env.parentBeaconBlockRoot : null;
  try {
    return envelopeOf(payload, root);
  } catch (e) {
    fail((e as Error).message);
  }
}

/** The methods; `deps()` is read at each call (null until the node's sequencer runs). */
export function sequencerApiMethods(deps: () => SequencerApiDeps | null): AnyMethod[] {
  const jobs = new Map<string, Job>();
  let d: SequencerApiDeps;
  const locked = <T>(f: () => Promise<T>): Promise<T> => {
    const current = deps();
    if (current === null) return Promise.reject(RpcError.server("sequencer is not running (--sequencer.enabled)"));
    d = current;
    return d.lock.run(async () => {
      try {
        return await f();
      } catch (e) {
        if (e instanceof RpcError) throw e;
        throw RpcError.server((e as Error).message);
      }
    });
  };
  return [
    defineMethod({
      name: "opstack_openBlockV1",
      params: [json],
      handler: ([parentArg]) =>
        locked(async () => {
          const p = obj(parentArg, "parent");
          if (typeof p.hash !== "string") fail("parent: want {hash, number}");
          const parent = await d.controller.engine.l2BlockRefByHash(hexToBytes(p.hash));
          const timestamp = parent.timestamp + d.cfg.blockTime;
          const { origin } = await d.sequencer.selectOrigin(parent, timestamp);
          const attrs = await preparePayloadAttributes(
            d.cfg,
            { l1: d.l1, l2: d.l2, l1Chain: d.l1Chain },
            parent,
            origin,
          );
          const h = d.controller.state;
          const r = await d.controller.engine.forkchoiceUpdate(
            { head: parent.hash, safe: h.safe.hash, finalized: h.finalized.hash },
            { ...attrs, noTxPool: false },
          );
          if (r.payloadId === null) fail(`engine did not start a block: ${r.status.status}`);
          jobs.set(r.payloadId, { timestamp, parent: parent.hash });
          return { id: r.payloadId, timestamp: `0x${timestamp.toString(16)}` };
        }),
    }),
    defineMethod({
      name: "opstack_cancelBlockV1",
      params: [json],
      handler: ([info]) =>
        locked(async () => {
          const { id } = payloadInfo(info);
          if (!jobs.delete(id)) fail(`unknown block job ${id}`);
          return null;
        }),
    }),
    defineMethod({
      name: "opstack_sealBlockV1",
      params: [json],
      handler: ([info]) =>
        locked(async () => {
          const { id } = payloadInfo(info);
          const job = jobs.get(id);
          if (job === undefined) fail(`unknown block job ${id}`);
          const env = await d.controller.engine.getPayload(id, job.timestamp);
          jobs.delete(id);
          return { executionPayload: env.executionPayload, parentBeaconBlockRoot: env.parentBeaconBlockRoot };
        }),
    }),
    defineMethod({
      name: "opstack_commitBlockV1",
      params: [json],
      handler: ([signed]) =>
        locked(async () => {
          const env = envelopeArg(signed);
          const status = await d.controller.engine.newPayload(env);
          if (status.status !== "VALID") fail(`engine refused the block: ${status.validationError ?? status.status}`);
          return null;
        }),
    }),
    defineMethod({
      name: "opstack_publishBlockV1",
      params: [json],
      handler: ([signed]) =>
        locked(async () => {
          const env = envelopeArg(signed);
          const ref = await d.controller.engine.blockRef(env.blockHash);
          if (ref === null) fail(`block ${bytesToHex(env.blockHash)} is not committed`);
          if (!equalBytes(ref.parentHash, d.controller.state.unsafe.hash)) {
            fail(`block ${ref.number} does not extend the unsafe head ${d.controller.state.unsafe.number}`);
          }
          await d.controller.adoptUnsafe(ref);
          return null;
        }),
    }),
  ];
}
