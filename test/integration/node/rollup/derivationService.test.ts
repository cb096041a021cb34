/**
 * The derivation service's startup rules: `--rollup.halt` against the ProtocolVersions signal read
 * from L1 state (the node halts when L1 requires a newer major version than it supports, and does not
 * without the option).
 */
import { strict as assert } from "node:assert";
import { parseNodeArgs } from "../../../../src/cli/nodeFlags.js";
import { DerivationService } from "../../../../src/node/rollup/derivationService.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeProtocolVersion } from "../../../../src/rollup/config/protocolVersion.js";
import { REQUIRED_PROTOCOL_VERSION_SLOT } from "../../../../src/rollup/config/runtimeConfig.js";
import { EngineClient } from "../../../../src/rollup/engine/engineClient.js";
import { RpcHttpServer } from "../../../../src/rpc/httpServer.js";
import { Rollup, SILENT_LOG } from "../../../utils/actions/rollup.js";
import { InProcessExec } from "../../../utils/inProcessExec.js";

const PV = "0x00000000000000000000000000000000000a0a0a";

async function startWith(r: Rollup, extra: string[]): Promise<{ halted: string | null; stop: () => Promise<void> }> {
  const server = new RpcHttpServer({ addr: "127.0.0.1", port: 0, apis: ["eth"] }, { registry: r.miner.exec.registry });
  const port = (await server.listen()).port;
  const parsed = parseNodeArgs(
    [
      "--network=op-sepolia",
      "--l2=http://127.0.0.1:1",
      `--l1=http://127.0.0.1:${port}`,
      "--l1.beacon.ignore",
      ...extra,
    ],
    {},
  );
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  let halted: string | null = null;
  const exec = InProcessExec.create(r.l2Genesis);
  const svc = await DerivationService.start(parsed.config, {
    cfg: r.cfg,
    engine: new EngineClient(exec.rpc, r.cfg),
    log: SILENT_LOG,
    l1Chain: null,
    safeDb: null,
    onHalt: (why) => {
      halted = why;
    },
  });
  return {
    get halted() {
      return halted;
    },
    stop: async () => {
      await svc.stop();
      await server.close();
    },
  };
}

describe("node/derivationService: --rollup.halt", function () {
  this.timeout(30_000);
  const required = bytesToHex(
    encodeProtocolVersion({ build: new Uint8Array(8), major: 10, minor: 0, patch: 0, preRelease: 0 }),
  );
  const rollup = () =>
    new Rollup({
      protocolVersionsAddress: PV,
      l1Alloc: {
        [PV]: { balance: "0x0", code: "0x00", storage: { [bytesToHex(REQUIRED_PROTOCOL_VERSION_SLOT)]: required } },
      },
    });

  it("halts when L1 requires a newer major protocol version and --rollup.halt=major", async () => {
    const s = await startWith(rollup(), ["--rollup.halt=major"]);
    try {
      assert.match(
        String(s.halted),
        /opted to halt, unprepared for protocol change: required v10\.0\.0, local v9\.0\.0/,
      );
    } finally {
      await s.stop();
    }
  });

  it("keeps running on the same signal without --rollup.halt or with --rollup.halt=none", async () => {
    for (const extra of [[], ["--rollup.halt=none"]]) {
      const s = await startWith(rollup(), extra);
      try {
        assert.equal(s.halted, null);
      } finally {
        await s.stop();
      }
    }
  });
});
