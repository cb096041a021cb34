/**
 * The opp2p_* methods over real hosts on 127.0.0.1, through the JSON-RPC dispatcher (so parameter
 * decoding and error codes are the ones a client sees): op-node's JSON shapes, the operator's
 * block/unblock/protect/connect controls taking effect on the host, and Go's errors for bad input.
 * Go's net.IPNet forms alone: test/unit/p2p/p2pApi.test.ts.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { P2pNode } from "../../../src/p2p/host.js";
import { p2pMethods } from "../../../src/p2p/p2pApi.js";
import { payloadByNumberProtocol } from "../../../src/p2p/reqResp.js";
import type { RpcConnection } from "../../../src/rpc/dispatch.js";
import { Registry } from "../../../src/rpc/registry.js";
import { Rollup } from "../../utils/actions/rollup.js";
import { tempDir, waitFor } from "../../utils/node.js";
import { p2pConfig, quiet } from "../../utils/p2p.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "127.0.0.1" }, subs: null };

interface Reply {
  result?: unknown;
  error?: { code: number; message: string };
}

describe("p2p/p2pApi: opp2p_* over running hosts", function () {
  this.timeout(60_000);
  const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
  const dir = tempDir("p2p-api");
  let a: P2pNode;
  let b: P2pNode;
  let host: P2pNode | null = null;
  const d = new Registry(p2pMethods(() => host)).forApis(["opp2p"]);

  async function call(method: string, ...params: unknown[]): Promise<Reply> {
    const text = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP);
    return JSON.parse(String(text)) as Reply;
  }

  async function ok(method: string, ...params: unknown[]): Promise<unknown> {
    const r = await call(method, ...params);
    assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  const deps = {
    cfg: rollup.cfg,
    log: quiet,
    unsafeSigner: () => new Uint8Array(20),
    onUnsafePayload: () => undefined,
    payloadByNumber: async () => null,
    userAgent: "opal-node/test",
  };

  before(async () => {
    a = await P2pNode.start(p2pConfig(dir.path, "a", { "p2p.no-discovery": false }), deps);
    b = await P2pNode.start(p2pConfig(dir.path, "b", { "p2p.static": [a.listenAddrs()[0]!] }), deps);
    host = a;
    await waitFor(() => a.connectedPeerIds().includes(b.peerIdString), 10_000, "b to connect");
  });

  after(async () => {
    await b.stop();
    await a.stop();
    dir.remove();
  });

  it("opp2p_self: our peer ID, node ID, ENR, addresses and protocols", async () => {
    const self = (await ok("opp2p_self")) as Record<string, unknown>;
    assert.equal(self.peerID, a.peerIdString);
    // The node ID is discv5's: keccak256 of the uncompressed public key, which the ENR also carries.
    assert.equal(self.nodeID, a.discovery!.nodeId().replace(/^0x/, ""));
    assert.match(String(self.nodeID), /^[0-9a-f]{64}$/);
    assert.equal(self.ENR, a.discovery!.localEnr());
    assert.match(String(self.ENR), /^enr:/);
    assert.equal(self.userAgent, "opal-node/test");
    assert.ok((self.addresses as string[]).every((x) => x.endsWith(`/p2p/${a.peerIdString}`)));
    assert.ok((self.protocols as string[]).includes(payloadByNumberProtocol(rollup.cfg.l2ChainId)));
    assert.equal(self.gossipBlocks, true);
    assert.equal(self.chainID, Number(rollup.cfg.l2ChainId));
    assert.deepEqual(Object.keys(self), [
      "peerID",
      "nodeID",
      "userAgent",
      "protocolVersion",
      "ENR",
      "addresses",
      "protocols",
      "connectedness",
      "direction",
      "protected",
      "chainID",
      "latency",
      "gossipBlocks",
      "scores",
    ]);
  });

  it("opp2p_peers and opp2p_peerStats: the connected peer with op-node's fields", async () => {
    await waitFor(
      () => a.libp2p.services.pubsub.getSubscribers(a.topics[0]!).some((p) => p.toString() === b.peerIdString),
      10_000,
      "b's subscriptions",
    );
    const dump = (await ok("opp2p_peers", true)) as {
      totalConnected: number;
      peers: Record<string, Record<string, unknown>>;
      bannedPeers: string[];
      bannedIPS: string[];
      bannedSubnets: unknown[];
    };
    assert.equal(dump.totalConnected, 1);
    const p = dump.peers[b.peerIdString]!;
    assert.ok(p !== undefined, "b in the dump");
    assert.equal(p.peerID, b.peerIdString);
    assert.equal(p.connectedness, 1);
    assert.equal(p.direction, 1, "b dialled a: inbound");
    assert.equal(p.gossipBlocks, true);
    // b's node ID from its peer ID's public key equals the one b's own opp2p_self would give.
    host = b;
    const bSelf = (await ok("opp2p_self")) as { nodeID: string };
    host = a;
    assert.equal(p.nodeID, bSelf.nodeID);
    assert.ok((p.addresses as string[]).every((x) => x.includes("/tcp/") && x.endsWith(`/p2p/${b.peerIdString}`)));
    const scores = p.scores as { gossip: Record<string, unknown>; reqResp: Record<string, unknown> };
    assert.deepEqual(Object.keys(scores.gossip), ["total", "blocks", "IPColocationFactor", "behavioralPenalty"]);
    assert.deepEqual(Object.keys(scores.gossip.blocks as object), [
      "timeInMesh",
      "firstMessageDeliveries",
      "meshMessageDeliveries",
      "invalidMessageDeliveries",
    ]);
    assert.deepEqual(scores.reqResp, { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 });
    assert.deepEqual(dump.bannedPeers, []);

    const stats = (await ok("opp2p_peerStats")) as Record<string, number>;
    assert.deepEqual(Object.keys(stats), [
      "connected",
      "table",
      "blocksTopic",
      "blocksTopicV2",
      "blocksTopicV3",
      "blocksTopicV4",
      "banned",
      "known",
    ]);
    assert.equal(stats.connected, 1);
    assert.equal(stats.blocksTopic, 1);
    assert.ok(stats.known! >= 1);
  });

  it("protect, disconnect, connect and block a peer", async () => {
    await ok("opp2p_protectPeer", b.peerIdString);
    let dump = (await ok("opp2p_peers", true)) as { peers: Record<string, { protected: boolean }> };
    assert.equal(dump.peers[b.peerIdString]!.protected, true);
    await ok("opp2p_unprotectPeer", b.peerIdString);
    dump = (await ok("opp2p_peers", true)) as { peers: Record<string, { protected: boolean }> };
    assert.equal(dump.peers[b.peerIdString]!.protected, false);

    // b is a's static peer only in the other direction: after a hangs up, a dials it back on request.
    await ok("opp2p_disconnectPeer", b.peerIdString);
    assert.ok(!a.connectedPeerIds().includes(b.peerIdString));
    await ok("opp2p_connectPeer", b.listenAddrs()[0]!);
    assert.ok(a.connectedPeerIds().includes(b.peerIdString));

    await ok("opp2p_blockPeer", b.peerIdString);
    assert.deepEqual(await ok("opp2p_listBlockedPeers"), [b.peerIdString]);
    assert.ok(!a.connectedPeerIds().includes(b.peerIdString), "a blocked peer is disconnected");
    const refused = await call("opp2p_connectPeer", b.listenAddrs()[0]!);
    assert.equal(refused.error?.code, -32000);
    assert.match(refused.error!.message, /blocked/);
    const dump2 = (await ok("opp2p_peers", false)) as { bannedPeers: string[] };
    assert.deepEqual(dump2.bannedPeers, [b.peerIdString]);
    await ok("opp2p_unblockPeer", b.peerIdString);
    assert.deepEqual(await ok("opp2p_listBlockedPeers"), []);
    await waitFor(() => a.connectedPeerIds().includes(b.peerIdString), 15_000, "b's static redial");
  });

  it("block, list and unblock addresses and subnets in Go's forms", async () => {
    await ok("opp2p_blockAddr", "10.9.8.7");
    assert.deepEqual(await ok("opp2p_listBlockedAddrs"), ["10.9.8.7"]);
    await ok("opp2p_unblockAddr", "10.9.8.7");
    assert.deepEqual(await ok("opp2p_listBlockedAddrs"), []);

    // A CIDR string, masked to its network as net.ParseCIDR does; listed as net.IPNet JSON.
    await ok("opp2p_blockSubnet", "10.1.2.3/8");
    await ok("opp2p_blockSubnet", {
      IP: "2001:db8::",
      Mask: Buffer.from([255, 255, 255, 255, ...new Array(12).fill(0)]).toString("base64"),
    });
    assert.deepEqual(await ok("opp2p_listBlockedSubnets"), [
      { IP: "10.0.0.0", Mask: "/wAAAA==" },
      { IP: "2001:db8::", Mask: "/////wAAAAAAAAAAAAAAAA==" },
    ]);
    // The object form unblocks what the string form blocked.
    await ok("opp2p_unblockSubnet", { IP: "10.0.0.0", Mask: "/wAAAA==" });
    await ok("opp2p_unblockSubnet", "2001:db8:0:0::/32");
    assert.deepEqual(await ok("opp2p_listBlockedSubnets"), []);
  });

  it("bad arguments answer -32602 with Go's messages; host failures -32000", async () => {
    const badIp = await call("opp2p_blockAddr", "10.0.0");
    assert.deepEqual(badIp.error, { code: -32602, message: "invalid argument 0: invalid IP address: 10.0.0" });
    const badSubnet = await call("opp2p_blockSubnet", "10.0.0.0/33");
    assert.equal(badSubnet.error?.code, -32602);
    const badMask = await call("opp2p_blockSubnet", {
      IP: "10.0.0.0",
      Mask: Buffer.from([255, 0, 255, 0]).toString("base64"),
    });
    assert.equal(badMask.error?.code, -32602);
    const badPeer = await call("opp2p_blockPeer", "not-a-peer-id");
    assert.equal(badPeer.error?.code, -32602);
    assert.match(badPeer.error!.message, /^invalid argument 0: failed to parse peer ID/);
    const badAddr = await call("opp2p_connectPeer", "/ip4/127.0.0.1/tcp/1");
    assert.equal(badAddr.error?.code, -32000);
    assert.match(badAddr.error!.message, /^bad peer address/);
    const notBool = await call("opp2p_peers", "yes");
    assert.equal(notBool.error?.code, -32602);

    host = b; // b runs without discovery
    const noDisc = await call("opp2p_discoveryTable");
    host = a;
    assert.deepEqual(noDisc.error, { code: -32000, message: "discovery disabled" });
    assert.ok(Array.isArray(await ok("opp2p_discoveryTable")));

    host = null;
    const down = await call("opp2p_self");
    host = a;
    assert.equal(down.error?.code, -32000);
  });
});
