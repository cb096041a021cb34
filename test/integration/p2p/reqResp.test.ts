/**
 * payload_by_number between two hosts on 127.0.0.1: the server's answers (block, not found, invalid
 * request) as raw bytes on the wire, the client's checks on what comes back, and the server's
 * per-peer rate limit delaying a burst. The token bucket alone, on a fake clock:
 * test/unit/p2p/reqResp.test.ts.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import type { Stream } from "@libp2p/interface";
import { blockVersionAt } from "../../../src/p2p/gossipBlock.js";
import { P2pNode } from "../../../src/p2p/host.js";
import {
  PayloadByNumberClient,
  payloadByNumberProtocol,
  RESULT_INVALID_REQUEST,
  RESULT_NOT_FOUND,
  RESULT_OK,
  ReqRespError,
} from "../../../src/p2p/reqResp.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { Rollup } from "../../utils/actions/rollup.js";
import { tempDir, waitFor } from "../../utils/node.js";
import { p2pConfig, quiet, recordingMetrics } from "../../utils/p2p.js";

describe("p2p/reqResp: payload_by_number on the wire", function () {
  this.timeout(60_000);
  const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
  const dir = tempDir("p2p-reqresp");
  const seen = recordingMetrics();
  let server: P2pNode;
  let client: P2pNode;
  const proto = payloadByNumberProtocol(rollup.cfg.l2ChainId);

  before(async () => {
    for (let i = 0; i < 3; i++) await rollup.sequencer.buildBlock();
    const deps = {
      cfg: rollup.cfg,
      log: quiet,
      unsafeSigner: () => new Uint8Array(20),
      onUnsafePayload: () => undefined,
    };
    server = await P2pNode.start(p2pConfig(dir.path, "server"), {
      ...deps,
      metrics: seen.sink,
      payloadByNumber: (n) => rollup.sequencer.engine.payloadByNumber(n),
    });
    client = await P2pNode.start(p2pConfig(dir.path, "client", { "p2p.static": [server.listenAddrs()[0]!] }), {
      ...deps,
      payloadByNumber: async () => null,
    });
    await waitFor(() => client.connectedPeerIds().includes(server.peerIdString), 10_000, "the connection");
  });

  after(async () => {
    await client.stop();
    await server.stop();
    dir.remove();
  });

  /** Sends `req` raw and returns everything the server answers. */
  async function raw(req: Uint8Array): Promise<Uint8Array> {
    const { peerIdFromString } = await import("@libp2p/peer-id");
    const stream: Stream = await client.libp2p.dialProtocol(peerIdFromString(server.peerIdString), proto);
    stream.send(req);
    await stream.close();
    const parts: Uint8Array[] = [];
    for await (const c of stream) parts.push(c instanceof Uint8Array ? c : c.subarray());
    return Buffer.concat(parts);
  }

  function numberRequest(n: bigint): Uint8Array {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, n, true);
    return b;
  }

  it("answers a known block with result 0, the version and a snappy frame; unknown blocks with 1", async () => {
    const ok = await raw(numberRequest(2n));
    assert.equal(ok[0], RESULT_OK);
    assert.ok(ok.length > 5 + 10);
    // The snappy framing stream identifier follows the 4-byte version.
    assert.deepEqual([...ok.subarray(5, 9)], [0xff, 0x06, 0x00, 0x00]);
    assert.deepEqual([...(await raw(numberRequest(999n)))], [RESULT_NOT_FOUND]);
  });

  it("answers a short request, or a number past 2^53, with result 2 (invalid request)", async () => {
    assert.deepEqual([...(await raw(new Uint8Array([1, 2, 3])))], [RESULT_INVALID_REQUEST]);
    assert.deepEqual([...(await raw(numberRequest(2n ** 63n)))], [RESULT_INVALID_REQUEST]);
    assert.ok(seen.calls.includes("reqresp:server:invalid_request"));
    assert.ok(seen.calls.includes("reqresp:server:not_found"));
    assert.ok(seen.calls.includes("reqresp:server:ok"));
  });

  it("the client checks number, hash and parent, and reports each outcome", async () => {
    const outcomes: string[] = [];
    const c = new PayloadByNumberClient({
      chainId: rollup.cfg.l2ChainId,
      versionAtNumber: () => 0,
      onResult: (_peer, outcome) => outcomes.push(outcome),
    });
    // The action rollup runs every fork from genesis: take the version the host itself would use.
    const version = blockVersionAt(rollup.cfg, rollup.sequencer.envelopes[1]!.timestamp);
    const typed = new PayloadByNumberClient({
      chainId: rollup.cfg.l2ChainId,
      versionAtNumber: () => version,
      onResult: (_peer, outcome) => outcomes.push(outcome),
    });
    const env2 = rollup.sequencer.envelopes[1]!;
    const got = await typed.request(client.libp2p, server.peerIdString, 2, {
      parentHash: bytesToHex(rollup.sequencer.envelopes[0]!.blockHash),
    });
    assert.ok(!(got instanceof ReqRespError), String(got));
    assert.equal(got.blockHash, bytesToHex(env2.blockHash));

    const wrongParent = await typed.request(client.libp2p, server.peerIdString, 2, {
      parentHash: `0x${"11".repeat(32)}`,
    });
    assert.ok(wrongParent instanceof ReqRespError && wrongParent.code === "mismatch");
    const missing = await typed.request(client.libp2p, server.peerIdString, 999);
    assert.ok(missing instanceof ReqRespError && missing.code === "not_found");
    if (version !== 0) {
      // A client expecting another version refuses the answer.
      const wrongVersion = await c.request(client.libp2p, server.peerIdString, 2);
      assert.ok(wrongVersion instanceof ReqRespError && wrongVersion.code === "mismatch");
    }
    assert.deepEqual(outcomes.slice(0, 3), ["valid", "rejected", "error"]);
  });

  it("the server's per-peer limit (4/s, burst 15) delays 19 quick requests by about a second", async () => {
    // Let the bucket refill from the requests above.
    await new Promise((r) => setTimeout(r, 4000));
    const t0 = Date.now();
    const answers: Uint8Array[] = [];
    for (let i = 0; i < 19; i++) answers.push(await raw(numberRequest(1n)));
    const elapsed = Date.now() - t0;
    assert.ok(
      answers.every((a) => a[0] === RESULT_OK),
      "all served in the end",
    );
    // 4 requests beyond the burst at 4 per second: no earlier than ~1 s.
    assert.ok(elapsed >= 900, `elapsed ${elapsed} ms`);
  });
});
