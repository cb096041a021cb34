/**
 * The op-conductor client of a sequencer (`--conductor.enabled`, `--conductor.rpc`,
 * `--conductor.rpc-timeout`; op-node conductor/conductor.go): `conductor_leader` before a block is
 * built, `conductor_commitUnsafePayload` before it becomes the unsafe head, `conductor_overrideLeader`
 * for admin_overrideLeader. Every call is bounded by the timeout; a failure is an error for the
 * caller (the sequencer then publishes nothing for that block).
 */
import type { PayloadEnvelope } from "../engine/engineClient.js";
import { RpcClient } from "../transport/rpcClient.js";
import type { Conductor } from "./sequencer.js";

export class ConductorClient implements Conductor {
  private readonly rpc: RpcClient;

  constructor(url: string, timeoutMs: number) {
    this.rpc = new RpcClient(url, { timeoutMs });
  }

  async leader(): Promise<boolean> {
    return (await this.rpc.call<boolean>("conductor_leader")) === true;
  }

  async commitUnsafePayload(env: PayloadEnvelope): Promise<void> {
    await this.rpc.call("conductor_commitUnsafePayload", [
      {
        executionPayload: env.executionPayload,
        ...(env.parentBeaconBlockRoot === null ? {} : { parentBeaconBlockRoot: env.parentBeaconBlockRoot }),
      },
    ]);
  }

  async overrideLeader(): Promise<void> {
    await this.rpc.call("conductor_overrideLeader");
  }
}
