/**
 * Interoperability with an RLPx not written here: @ethereumjs/devp2p 10.0.0 (its own ECIES, MACs,
 * framing, Hello and snappy via snappyjs). In both directions — Opal dials ethereumjs, ethereumjs
 * dials Opal — the encryption handshake and Hello complete, eth/68 is negotiated, the eth/68 Status
 * exchange passes ethereumjs's checks (version, network id, genesis, EIP-2124 fork id: Opal echoes
 * the Status it receives), a GetBlockHeaders request gets our BlockHeaders answer through
 * ethereumjs's decoder, and a Disconnect carries its reason each way.
 */
import assert from "node:assert/strict";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { DISCONNECT_REASON, type Peer as EjsPeer, ETH, RLPx } from "@ethereumjs/devp2p";
import { dialRlpx, listenRlpx, type RlpxLocalOptions } from "../../../../src/devp2p/rlpx/dial.js";
import { publicKeyOf, randomPrivateKey } from "../../../../src/devp2p/rlpx/ecies.js";
import { DisconnectReason } from "../../../../src/devp2p/rlpx/p2pMessages.js";
import type { RlpxCloseInfo, RlpxSession } from "../../../../src/devp2p/rlpx/rlpxSession.js";
import { decodeRlp } from "../../../../src/rlp/decode.js";
import { encodeRlp } from "../../../../src/rlp/encode.js";

const OPAL_OPTS = (key: Uint8Array): RlpxLocalOptions => ({
  privateKey: key,
  clientId: "opal-exec/test",
  capabilities: [{ name: "eth", version: 68, length: 17 }],
  listenPort: 0,
});

/** Opal's side of eth/68 for this test: echo Status, answer GetBlockHeaders (3) with an empty BlockHeaders (4). */
function serveEth(s: RlpxSession, seen: number[]): void {
  s.on("message", (cap, code, payload) => {
    assert.equal(cap, "eth");
    seen.push(code);
    if (code === 0) s.send("eth", 0, payload);
    if (code === 3) {
      const req = decodeRlp(payload) as Uint8Array[];
      s.send("eth", 4, encodeRlp([req[0]!, []]));
    }
  });
}

function ejsNode(key: Uint8Array): { rlpx: RLPx; common: Common } {
  const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
  const rlpx = new RLPx(key, {
    capabilities: [ETH.eth68],
    common,
    maxPeers: 5,
    clientId: new TextEncoder().encode("ethereumjs-devp2p/interop"),
    timeout: 5000,
  });
  return { rlpx, common };
}

/** Drives ethereumjs's eth/68 through Status, one GetBlockHeaders and its answer. */
function driveEjs(peer: EjsPeer): Promise<{ status: unknown; headersAnswer: unknown }> {
  const eth = peer.getProtocols()[0] as ETH;
  return new Promise((resolve, reject) => {
    let status: unknown = null;
    eth.events.on("status", (st: unknown) => {
      status = st;
      // reqId 7, [origin 1, amount 2, skip 0, reverse 0]
      eth.sendMessage(3, [
        Uint8Array.from([7]),
        [Uint8Array.from([1]), Uint8Array.from([2]), new Uint8Array(0), new Uint8Array(0)],
      ]);
    });
    eth.events.on("message", (code: number, payload: unknown) => {
      if (code === 4) resolve({ status, headersAnswer: payload });
    });
    peer.events.on("error", reject);
    eth.sendStatus({
      td: Uint8Array.from([1]),
      bestHash: new Uint8Array(32).fill(0xbb),
      genesisHash: new Uint8Array(32).fill(0xdd),
    });
  });
}

describe("devp2p/rlpx interop with @ethereumjs/devp2p 10.0.0", function () {
  this.timeout(20_000);

  it("Opal dials ethereumjs: handshake, Hello, eth/68 Status, GetBlockHeaders → BlockHeaders, Disconnect", async () => {
    const ejsKey = randomPrivateKey();
    const { rlpx } = ejsNode(ejsKey);
    const added = new Promise<EjsPeer>((r) => rlpx.events.once("peer:added", r));
    const removed = new Promise<[unknown, number, boolean | null]>((r) =>
      rlpx.events.once("peer:removed", (p: unknown, reason: number, we: boolean | null) => r([p, reason, we])),
    );
    await new Promise<void>((r) => {
      rlpx.events.once("listening", () => r());
      rlpx.listen(0, "127.0.0.1");
    });
    const port = (rlpx["_server"]!.address() as { port: number }).port;
    try {
      const seen: number[] = [];
      const s = await dialRlpx("127.0.0.1", port, publicKeyOf(ejsKey).subarray(1), OPAL_OPTS(randomPrivateKey()));
      serveEth(s, seen);
      assert.deepEqual(
        s.capabilities.map((c) => [c.name, c.version, c.offset]),
        [["eth", 68, 0x10]],
      );
      assert.equal(s.remoteHello!.clientId, "ethereumjs-devp2p/interop");
      const peer = await added;
      const { status, headersAnswer } = await driveEjs(peer);
      assert.ok(status !== null);
      assert.deepEqual(headersAnswer, [Uint8Array.from([7]), []]);
      assert.deepEqual(seen, [0, 3]);
      const closed = new Promise<RlpxCloseInfo>((r) => s.once("close", r));
      s.disconnect(DisconnectReason.ClientQuitting);
      const [, reason, we] = await removed;
      assert.equal(reason, DISCONNECT_REASON.CLIENT_QUITTING);
      assert.equal(we, false);
      assert.equal((await closed).reason, DisconnectReason.ClientQuitting);
    } finally {
      rlpx.destroy();
    }
  });

  it("ethereumjs dials Opal: handshake, Hello, eth/68 Status, GetBlockHeaders → BlockHeaders, its Disconnect reaches us", async () => {
    const opalKey = randomPrivateKey();
    const seen: number[] = [];
    let session: RlpxSession | null = null;
    let onReady: (s: RlpxSession) => void = () => undefined;
    const ready = new Promise<RlpxSession>((r) => (onReady = r));
    const server = await listenRlpx(0, "127.0.0.1", OPAL_OPTS(opalKey), (s) => {
      session = s;
      serveEth(s, seen);
      onReady(s);
    });
    const port = (server.address() as { port: number }).port;
    const { rlpx } = ejsNode(randomPrivateKey());
    try {
      const added = new Promise<EjsPeer>((r) => rlpx.events.once("peer:added", r));
      await new Promise<void>((r) => {
        rlpx.events.once("listening", () => r());
        rlpx.listen(0, "127.0.0.1");
      });
      await rlpx.connect({ id: publicKeyOf(opalKey).subarray(1), address: "127.0.0.1", tcpPort: port });
      const peer = await added;
      const s = await ready;
      assert.equal(s.remoteHello!.clientId, "ethereumjs-devp2p/interop");
      const { headersAnswer } = await driveEjs(peer);
      assert.deepEqual(headersAnswer, [Uint8Array.from([7]), []]);
      assert.deepEqual(seen, [0, 3]);
      const closed = new Promise<RlpxCloseInfo>((r) => session!.once("close", r));
      peer.disconnect(DISCONNECT_REASON.USELESS_PEER);
      const info = await closed;
      assert.deepEqual(info, { reason: DisconnectReason.UselessPeer, remote: true, error: null });
    } finally {
      rlpx.destroy();
      server.close();
    }
  });
});
