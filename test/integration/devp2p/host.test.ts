/**
 * Devp2pHost over loopback: real RLPx sessions, the eth handshake and the downloader. A node holding
 * a chain and a fresh node given only its enode URL as a static peer: they connect (admin_peers shows
 * each side, inbound on one, static on the other), the fresh node syncs to the source's head with the
 * same state root, and a third node configured for another chain (different genesis) is refused at
 * the eth handshake and never counted as a peer.
 */
import { strict as assert } from "node:assert";
import type { Blockchain } from "../../../src/chain/blockchain.js";
import { generateNodeKey } from "../../../src/devp2p/discovery/nodeKey.js";
import { Devp2pHost } from "../../../src/devp2p/host.js";
import { Downloader } from "../../../src/devp2p/sync/downloader.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { adminApi } from "../../../src/rpc/admin.js";
import type { RpcError } from "../../../src/rpc/errors.js";
import type { AnyMethod } from "../../../src/rpc/registry.js";
import { TxPool } from "../../../src/txpool/txPool.js";
import { freshChain, sourceChain } from "../../unit/devp2p/sync/syncFixtures.js";
import { forkedChain, otherChain } from "./hostFixtures.js";

const ZERO = new Uint8Array(32);

async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function host(chain: Blockchain, staticNodes: string[], downloader: Downloader | null): Promise<Devp2pHost> {
  return Devp2pHost.start(
    {
      key: generateNodeKey(),
      clientId: "opal-exec/test",
      listenAddr: "127.0.0.1",
      port: 0,
      maxPeers: 10,
      discovery: null,
      staticNodes,
      disableTxPoolGossip: false,
    },
    { chain, pool: new TxPool({}, { chain }), downloader },
  );
}

describe("devp2p host: RLPx + eth + sync over loopback", function () {
  this.timeout(60_000);

  /** A node holding `n` blocks and a fresh one given its enode as a static peer; `follow`: peer-following on. */
  async function pair(n: number, follow: boolean) {
    const source = sourceChain(n);
    const a = await host(source, [], null);
    const fresh = freshChain();
    const downloader = new Downloader({}, { chain: fresh });
    if (follow) downloader.followPeers(20);
    const b = await host(fresh, [a.enode()], downloader);
    return {
      source,
      a,
      b,
      downloader,
      /** Waits for the fresh node to reach the source's head; same hash and state root. */
      async synced(what: string): Promise<void> {
        await waitFor(() => fresh.head.number === n, 40_000, what);
        assert.equal(bytesToHex(fresh.headBlockHash), bytesToHex(source.headBlockHash));
        assert.equal(bytesToHex(fresh.head.stateRoot), bytesToHex(source.head.stateRoot));
      },
      async stop(): Promise<void> {
        await downloader.stop();
        await b.stop();
        await a.stop();
      },
    };
  }

  it("a fresh node given a peer's enode syncs its 200 blocks to the same head and state root", async () => {
    const p = await pair(200, false);
    try {
      await waitFor(() => p.a.peerCount === 1 && p.b.peerCount === 1, 10_000, "the eth handshake");
      const [pa] = p.a.peerInfos();
      const [pb] = p.b.peerInfos();
      assert.equal(pa!.network.inbound, true);
      assert.equal(pb!.network.inbound, false);
      assert.equal(pb!.network.static, true);
      assert.ok(pb!.caps.includes("eth/69") && pb!.caps.includes("eth/68"), pb!.caps.join());
      assert.equal(pb!.protocols.eth.version, 69);
      p.downloader.sync(p.source.headBlockHash, ZERO, ZERO);
      await p.synced("the sync to block 200");
    } finally {
      await p.stop();
    }
  });

  it("with no consensus client, a node given only a peer's enode follows the head that peer announces (eth/69)", async () => {
    const p = await pair(120, true);
    try {
      await p.synced("following the peer to block 120");
    } finally {
      await p.stop();
    }
  });

  it("three nodes: a peer on a fork answers headers that do not link and is dropped; the sync completes from the honest one", async () => {
    const source = sourceChain(200);
    const honest = await host(source, [], null);
    const liar = await host(forkedChain(10, 210), [], null);
    const fresh = freshChain();
    const downloader = new Downloader({}, { chain: fresh });
    const b = await host(fresh, [liar.enode()], downloader);
    try {
      await waitFor(() => b.peerCount === 1, 10_000, "the liar's connection");
      // The target's header as newPayload would give it: no network needed to start, so the first
      // header chunk goes to the only peer there is.
      downloader.extend(source.store.headerRlp(source.headBlockHash)!);
      downloader.sync(source.headBlockHash, ZERO, ZERO);
      await waitFor(() => b.counters.dropped >= 1, 20_000, "the liar dropped for headers that do not link");
      b.addStatic(honest.enode());
      await waitFor(() => fresh.head.number === 200, 40_000, "the sync to block 200");
      assert.equal(bytesToHex(fresh.headBlockHash), bytesToHex(source.headBlockHash));
      assert.equal(bytesToHex(fresh.head.stateRoot), bytesToHex(source.head.stateRoot));
    } finally {
      await downloader.stop();
      await b.stop();
      await liar.stop();
      await honest.stop();
    }
  });

  it("a node of another chain is refused at the eth handshake (genesis / fork id) and never counted", async () => {
    const a = await host(sourceChain(3), [], null);
    const other = await host(otherChain(), [a.enode()], null);
    try {
      await waitFor(() => other.counters.dialed > 0, 5_000, "the dial");
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(a.peerCount, 0);
      assert.equal(other.peerCount, 0);
    } finally {
      await other.stop();
      await a.stop();
    }
  });

  it("admin_addPeer / admin_peers / admin_nodeInfo / admin_removePeer over a running host; without P2P: node stopped", async () => {
    const a = await host(sourceChain(2), [], null);
    const b = await host(freshChain(), [], null);
    const call = (h: Devp2pHost | null, name: string, params: unknown[] = []) => {
      const m = adminApi({ host: () => h }).find((x) => x.name === name) as AnyMethod & {
        handler: (p: unknown[], ctx: unknown) => unknown;
      };
      return m.handler(params, {});
    };
    try {
      const info = call(a, "admin_nodeInfo") as {
        enode: string;
        ports: { listener: number };
        protocols: { eth: { network: number } };
      };
      assert.equal(info.enode, a.enode());
      assert.equal(info.ports.listener, a.listenPort);
      assert.equal(info.protocols.eth.network, 1337);
      assert.deepEqual(call(b, "admin_peers"), []);
      assert.equal(call(b, "admin_addPeer", [info.enode]), true);
      await waitFor(() => b.peerCount === 1 && a.peerCount === 1, 10_000, "admin_addPeer's connection");
      const peers = call(b, "admin_peers") as { enode: string; network: { static: boolean } }[];
      assert.equal(peers.length, 1);
      assert.equal(peers[0]!.network.static, true);
      assert.equal(call(b, "admin_removePeer", [info.enode]), true);
      await waitFor(() => b.peerCount === 0 && a.peerCount === 0, 10_000, "admin_removePeer's disconnect");
      assert.throws(
        () => call(b, "admin_addPeer", ["enode://nothex@1.2.3.4:1"]),
        (e: RpcError) => /invalid enode/.test(e.message),
      );
      assert.throws(
        () => call(null, "admin_addPeer", [info.enode]),
        (e: RpcError) => e.message === "node stopped",
      );
      assert.deepEqual(call(null, "admin_peers"), []);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
