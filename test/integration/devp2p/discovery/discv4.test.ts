/**
 * discv4 on 127.0.0.1: three of our nodes find each other through one bootnode (the facade reports
 * each to the others as a fork-compatible candidate, a node of another chain is filtered out), and
 * interop with @ethereumjs/devp2p's DPT (another implementation): it bonds with us, and a lookup
 * of ours through it finds a third node.
 */
import assert from "node:assert/strict";
import { DPT } from "@ethereumjs/devp2p";
import { Discovery, type PeerCandidate } from "../../../../src/devp2p/discovery/discovery.js";
import { Discv4 } from "../../../../src/devp2p/discovery/discv4.js";
import { formatEnode, parseEnode } from "../../../../src/devp2p/discovery/enode.js";
import { newForkFilter } from "../../../../src/devp2p/discovery/forkFilter.js";
import { generateNodeKey, type NodeKey } from "../../../../src/devp2p/discovery/nodeKey.js";
import { type ForkPoints, forkIdAt } from "../../../../src/spec/forkId.js";

const POINTS: ForkPoints = { blocks: [], times: [1000, 2000] };
const GENESIS_A = new Uint8Array(32).fill(1);
const GENESIS_B = new Uint8Array(32).fill(2);

function fork(genesis: Uint8Array) {
  const head = { number: 10, time: 1500 };
  return { id: forkIdAt(genesis, POINTS, head.number, head.time), filter: newForkFilter(genesis, POINTS, () => head) };
}

async function until(cond: () => boolean, ms: number, tick?: () => Promise<unknown>): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    if (tick) await tick();
    await new Promise((r) => setTimeout(r, 100));
  }
}

function enodeOf(d: Discv4, key: NodeKey, tcp: number): string {
  return formatEnode({
    publicKey: key.publicKey,
    ip: new Uint8Array([127, 0, 0, 1]),
    udpPort: d.localPort,
    tcpPort: tcp,
  });
}

describe("devp2p/discovery: discv4 on loopback", function () {
  this.timeout(30_000);
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
  });

  it("three nodes find each other via one bootnode; another chain's node is filtered", async () => {
    const mk = async (tcp: number, boot: string[], genesis = GENESIS_A) => {
      const key = generateNodeKey();
      const d = await Discovery.start({
        key,
        udpPort: 0,
        tcpPort: tcp,
        bindIp: "127.0.0.1",
        bootnodes: boot,
        v4: true,
        v5: false,
        fork: fork(genesis),
      });
      stops.push(() => d.stop());
      const seen = new Map<string, PeerCandidate>();
      d.onPeer((p) => seen.set(p.id, p));
      return { d, key, seen, id: Buffer.from(key.id).toString("hex") };
    };
    const a = await mk(30301, []);
    const boot = [enodeOf(a.d.v4!, a.key, 30301)];
    const b = await mk(30302, boot);
    const c = await mk(30303, boot);
    const x = await mk(30309, boot, GENESIS_B);
    const all = [a, b, c];
    await until(
      () => all.every((n) => all.every((m) => m === n || n.seen.has(m.id))),
      20_000,
      () => Promise.all(all.map((n) => n.d.lookup())),
    );
    for (const n of all) {
      assert.ok(!n.seen.has(x.id), "a node of another chain is not a candidate");
      for (const m of all) {
        if (m === n) continue;
        const p = n.seen.get(m.id)!;
        assert.equal(p.ip, "127.0.0.1");
        assert.equal(p.tcpPort, m === a ? 30301 : m === b ? 30302 : 30303);
        assert.deepEqual(p.pubkey, m.key.publicKey);
      }
    }
    assert.ok(b.d.v4!.table.get(c.key.id) !== undefined, "b's table holds c");
    assert.ok((a.d.stats().filteredFork ?? 0) + (b.d.stats().filteredFork ?? 0) >= 1, "x was seen and refused");
  });

  it("interoperates with @ethereumjs/devp2p's DPT", async () => {
    const dptKey = generateNodeKey();
    const dpt = new DPT(dptKey.privateKey, {
      endpoint: { address: "127.0.0.1", udpPort: null, tcpPort: null },
      refreshInterval: 60_000,
      shouldGetDnsPeers: false,
      shouldFindNeighbours: true,
      timeout: 2000,
    });
    const port = 30390 + Math.floor(Math.random() * 500);
    dpt.bind(port, "127.0.0.1");
    stops.push(async () => dpt.destroy());
    const dptEnode = formatEnode({
      publicKey: dptKey.publicKey,
      ip: new Uint8Array([127, 0, 0, 1]),
      udpPort: port,
      tcpPort: port,
    });
    const mk = async () => {
      const key = generateNodeKey();
      const d = await Discv4.start({
        key,
        udpPort: 0,
        bindIp: "127.0.0.1",
        tcpPort: 30400,
        bootnodes: [parseEnode(dptEnode)],
      });
      stops.push(() => d.stop());
      return { d, key };
    };
    const o = await mk();
    // DPT bonds with us: its ping is answered, our ping back is answered.
    await dpt.addPeer({ address: "127.0.0.1", udpPort: o.d.localPort, tcpPort: 30400 });
    const idHex = Buffer.from(o.key.publicKey).toString("hex");
    await until(
      () => dpt.getPeers().some((p) => p.id !== undefined && Buffer.from(p.id).toString("hex") === idHex),
      5000,
    );
    await until(() => o.d.table.get(dptKey.id) !== undefined, 5000);
    const p = await mk();
    await until(() => p.d.table.get(dptKey.id) !== undefined, 5000);
    await dpt.addPeer({ address: "127.0.0.1", udpPort: p.d.localPort, tcpPort: 30400 }).catch(() => undefined);
    // Our lookup through DPT's neighbours finds p.
    await until(
      () => o.d.table.get(p.key.id) !== undefined,
      15_000,
      () => o.d.lookup(o.key.publicKey),
    );
    const stats = o.d.stats();
    assert.equal(stats.drop_bad_hash ?? 0, 0);
    assert.equal(stats.drop_bad_fields ?? 0, 0);
  });
});
