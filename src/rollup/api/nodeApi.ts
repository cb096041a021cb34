/**
 * The rollup node's JSON-RPC methods (op-node node/api.go, op-service/rpc; op-stack.md §1.3): the
 * `optimism` namespace, always served, and the `admin` namespace, served only with
 * `--rpc.enable-admin` (the server leaves the namespace out otherwise, so its methods answer
 * -32601 like any missing method). Failures are -32000 with op-node's messages.
 */
import { bytesToHex } from "../../primitives/hex.js";
import { RpcError } from "../../rpc/errors.js";
import { bool, string as goString, hash, json, uint64 } from "../../rpc/params.js";
import { type AnyMethod, defineMethod } from "../../rpc/registry.js";
import type { SafeHeadEntry } from "../driver/safeDb.js";
import { blockIdJson, l2RefJson, type SyncStatus, syncStatusJson } from "../refs.js";
import { type SequencerControl, SequencerControlError } from "../sequencer/sequencerControl.js";
import type { L2Source } from "./l2Source.js";

export interface NodeApiDeps {
  /** optimism_version: "<version>-<meta>". */
  readonly version: string;
  /** The rollup.json object (optimism_rollupConfig). */
  readonly rollupConfigJson: unknown;
  readonly syncStatus: () => SyncStatus;
  readonly l2: L2Source;
  /** --safedb.path: null when not enabled. */
  readonly safeHeadAtL1Block: ((l1Number: number) => SafeHeadEntry | null) | null;
  readonly sequencer: SequencerControl;
  /** Log levels by op-service's names (trace/debug/info/warn/error/crit); returns an error or null. */
  readonly setLogLevel: (level: string) => string | null;
  readonly resetDerivationPipeline: () => void;
  readonly conductor: { enabled(): boolean; overrideLeader(): void };
  readonly setRecoverMode: (on: boolean) => void;
  /** admin_postUnsafePayload: checks the block hash and inserts the payload as the unsafe head. */
  readonly postUnsafePayload: (envelope: unknown) => Promise<void>;
}

/** Any failure in a handler, as op-node answers it: code -32000 and the error's text. */
async function served<T>(f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw RpcError.server(e instanceof Error ? e.message : String(e));
  }
}

function sequencerCall<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SequencerControlError) throw RpcError.server(e.message);
    throw e;
  }
}

export function optimismMethods(d: NodeApiDeps): AnyMethod[] {
  return [
    defineMethod({
      name: "optimism_outputAtBlock",
      params: [uint64],
      handler: ([n]) =>
        served(async () => {
          const o = await d.l2.outputAtBlock(Number(n));
          return {
            version: bytesToHex(o.version),
            outputRoot: bytesToHex(o.outputRoot),
            blockRef: l2RefJson(o.blockRef),
            withdrawalStorageRoot: bytesToHex(o.withdrawalStorageRoot),
            stateRoot: bytesToHex(o.stateRoot),
            syncStatus: syncStatusJson(d.syncStatus()),
          };
        }),
    }),
    defineMethod({ name: "optimism_syncStatus", params: [], handler: () => syncStatusJson(d.syncStatus()) }),
    defineMethod({ name: "optimism_rollupConfig", params: [], handler: () => d.rollupConfigJson }),
    defineMethod({ name: "optimism_version", params: [], handler: () => d.version }),
    defineMethod({
      name: "optimism_safeHeadAtL1Block",
      params: [uint64],
      handler: ([n]) =>
        served(() => {
          if (d.safeHeadAtL1Block === null) throw new Error("safe head database not enabled");
          const e = d.safeHeadAtL1Block(Number(n));
          if (e === null) throw new Error("not found");
          return { l1Block: blockIdJson(e.l1Block), safeHead: blockIdJson(e.safeHead) };
        }),
    }),
  ];
}

export function adminMethods(d: NodeApiDeps): AnyMethod[] {
  return [
    defineMethod({
      name: "admin_startSequencer",
      params: [hash],
      handler: ([h]) =>
        sequencerCall(() => {
          d.sequencer.start(h);
          return null;
        }),
    }),
    defineMethod({
      name: "admin_stopSequencer",
      params: [],
      handler: () => sequencerCall(() => bytesToHex(d.sequencer.stop())),
    }),
    defineMethod({ name: "admin_sequencerActive", params: [], handler: () => d.sequencer.active }),
    defineMethod({
      name: "admin_resetDerivationPipeline",
      params: [],
      handler: () =>
        served(() => {
          d.resetDerivationPipeline();
          return null;
        }),
    }),
    defineMethod({
      name: "admin_postUnsafePayload",
      params: [json],
      handler: ([env]) =>
        served(async () => {
          await d.postUnsafePayload(env);
          return null;
        }),
    }),
    defineMethod({
      name: "admin_overrideLeader",
      params: [],
      handler: () =>
        served(() => {
          d.conductor.overrideLeader();
          return null;
        }),
    }),
    defineMethod({ name: "admin_conductorEnabled", params: [], handler: () => d.conductor.enabled() }),
    defineMethod({
      name: "admin_setLogLevel",
      params: [goString],
      handler: ([level]) => {
        const err = d.setLogLevel(level);
        if (err !== null) throw RpcError.server(err);
        return null;
      },
    }),
    defineMethod({
      name: "admin_setRecoverMode",
      params: [bool],
      handler: ([on]) => {
        d.setRecoverMode(on);
        return null;
      },
    }),
  ];
}
