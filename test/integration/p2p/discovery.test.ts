/**
 * discv5 discovery between real nodes on 127.0.0.1: nodes that share only a bootnode find each
 * other; a node of another chain is in the table but never reported as a peer; a malformed
 * bootnode is refused at start; the records seen persist in `--p2p.discovery.path` and seed the
 * next start, and `memory` writes nothing. The opstack ENR entry's codec alone:
 * test/unit/p2p/discovery.test.ts.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type DiscoveredPeer, Discovery, DiscoveryError, type DiscoveryOptions } from "../../../src/p2p/discovery.js";
import { tempDir, waitFor } from "../../utils/node.js";

async function freeUdpPort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", r));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Started {
  readonly d: Discovery;
  readonly found: Map<string, DiscoveredPeer>;
  readonly tcpPort: number;
}

describe("p2p/discovery: nodes on 127.0.0.1", function () {
  this.timeout(60_000);
  const running: Discovery[] = [];
  let dir: ReturnType<typeof tempDir>;

  beforeEach(() => {
    dir = tempDir("p2p-discovery");
  });

  afterEach(async () => {
    for (const d of running.splice(0)) await d.stop();
    dir.remove();
  });

  async function start(over: Partial<DiscoveryOptions> = {}, key: Uint8Array = randomBytes(32)): Promise<Started> {
    const found = new Map<string, DiscoveredPeer>();
    const tcpPort = 20_000 + Math.floor(Math.random() * 10_000);
    const d = await Discovery.start({
      privateKey: key,
      chainId: 10n,
      listenIp: "127.0.0.1",
      udpPort: await freeUdpPort(),
      tcpPort,
      bootnodes: [],
      dbPath: "memory",
      ...over,
    });
    running.push(d);
    d.onPeer((p) => found.set(p.peerId, p));
    return { d, found, tcpPort };
  }

  /** Looks up until `cond` holds (each node's own loop runs every 5 s; this is quicker). */
  async function lookUntil(nodes: Started[], cond: () => boolean, what: string): Promise<void> {
    await waitFor(
      async () => {
        await Promise.all(nodes.map((n) => n.d.findPeers()));
        return cond();
      },
      30_000,
      what,
    );
  }

  it("nodes that share only a bootnode find each other; another chain's node is never reported", async () => {
    const boot = await start();
    const b = await start({ bootnodes: [boot.d.localEnr()] });
    const c = await start({ bootnodes: [boot.d.localEnr()] });
    const other = await start({ chainId: 11n, bootnodes: [boot.d.localEnr()] });
    await lookUntil([b, c, other], () => b.found.size >= 2 && c.found.size >= 2, "b and c to find each other");
    // b found c (and the bootnode) as libp2p peers with c's TCP port.
    const cAddr = [...b.found.values()].find((p) => p.multiaddr.includes(`/tcp/${c.tcpPort}/`));
    assert.ok(cAddr !== undefined, `b found c: ${JSON.stringify([...b.found.values()])}`);
    assert.match(cAddr.multiaddr, /^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/16Uiu2/);
    // The other chain's node reached the bootnode's table but no one reports it...
    const otherId = other.d.nodeId();
    await lookUntil([other], () => boot.d.table().some((r) => r.nodeId === otherId), "the other chain in the table");
    for (const s of [boot, b, c]) {
      assert.ok(![...s.found.values()].some((p) => p.multiaddr.includes(`/tcp/${other.tcpPort}/`)), "filtered");
    }
    // ...and it reports none of ours.
    assert.equal(other.found.size, 0);
  });

  it("a malformed bootnode is refused at start with a clear error", async () => {
    await assert.rejects(
      start({ bootnodes: ["enr:-this-is-not-a-record"] }),
      (e: unknown) => e instanceof DiscoveryError && /--p2p\.bootnodes: not a node record/.test(e.message),
    );
  });

  it("the discovery db keeps the records seen and seeds the next start; memory keeps nothing", async () => {
    const boot = await start();
    const dbPath = join(dir.path, "discovery");
    const key = randomBytes(32);
    const a = await start({ bootnodes: [boot.d.localEnr()], dbPath }, key);
    await lookUntil([a], () => a.found.size >= 1, "a to find the bootnode");
    await a.d.stop();
    running.splice(running.indexOf(a.d), 1);
    const saved = JSON.parse(readFileSync(join(dbPath, "opal_discovery.json"), "utf8")) as string[];
    assert.ok(saved.length >= 1 && saved.every((r) => r.startsWith("enr:")), "records saved");
    // Restarted without bootnodes, the saved records put the bootnode back in the table.
    const a2 = await start({ bootnodes: [], dbPath }, key);
    assert.ok(
      a2.d.table().some((r) => r.nodeId === boot.d.nodeId()),
      "seeded from the db",
    );
    assert.ok(a2.found.size >= 1);
    // "memory": nothing written, not even a folder of that name.
    const m = await start({ bootnodes: [boot.d.localEnr()], dbPath: "memory" });
    await m.d.stop();
    running.splice(running.indexOf(m.d), 1);
    assert.equal(existsSync("memory"), false);
  });
});
