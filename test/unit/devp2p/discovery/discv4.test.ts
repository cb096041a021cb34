/**
 * The discv4 service over a fake transport (no sockets): garbage is dropped and counted, findnode
 * before the endpoint proof gets no answer, a pinger gets a pong and a ping back, and the Kademlia
 * table keeps 16 per bucket with replacements. Plus built-in bootnodes and netrestrict.
 */
import assert from "node:assert/strict";
import {
  builtinBootnodes,
  OP_MAINNET_BOOTNODES,
  OP_TESTNET_BOOTNODES,
} from "../../../../src/devp2p/discovery/bootnodes.js";
import { Discv4 } from "../../../../src/devp2p/discovery/discv4.js";
import { parseEnode } from "../../../../src/devp2p/discovery/enode.js";
import { ipFromBytes, ipToBytes, Netlist } from "../../../../src/devp2p/discovery/ip.js";
import { BUCKET_SIZE, KademliaTable, logDistance, N_BUCKETS } from "../../../../src/devp2p/discovery/kademliaTable.js";
import { generateNodeKey, nodeIdOf } from "../../../../src/devp2p/discovery/nodeKey.js";
import { type DecodedPacket, decodePacket, encodePacket, PacketType } from "../../../../src/devp2p/discovery/v4wire.js";

function fake() {
  const sent: { datagram: Uint8Array; ip: string; port: number }[] = [];
  const key = generateNodeKey();
  const d = new Discv4(
    { key, udpPort: 30303, background: false },
    { send: (datagram, ip, port) => sent.push({ datagram, ip, port }) },
  );
  return { d, key, sent };
}
const exp = () => Math.floor(Date.now() / 1000) + 20;

describe("devp2p/discovery/discv4 (fake transport)", () => {
  it("drops and counts garbage without throwing", () => {
    const { d, sent } = fake();
    for (let i = 0; i < 300; i++) {
      const junk = new Uint8Array(Math.floor(Math.random() * 1500));
      for (let j = 0; j < junk.length; j++) junk[j] = Math.floor(Math.random() * 256);
      d.handle(junk, "10.0.0.1", 30303);
    }
    d.handle(new Uint8Array(2000), "10.0.0.2", 1);
    const s = d.stats();
    assert.equal(sent.length, 0);
    const total = Object.values(s).reduce((x, y) => x + y, 0);
    assert.equal(total, 301, JSON.stringify(s));
    assert.ok((s.drop_too_small ?? 0) + (s.drop_bad_hash ?? 0) + (s.drop_too_large ?? 0) >= 200, JSON.stringify(s));
    assert.equal(s.drop_internal ?? 0, 0);
    // Rate limit: past the burst of 200 (refilled at 100/s while the loop runs), one address is cut off.
    assert.ok((s.rate_limited ?? 0) >= 50, JSON.stringify(s));
  });

  it("answers a ping with a pong and a ping back; refuses findnode before the proof; drops expired", () => {
    const { d, key, sent } = fake();
    const peer = generateNodeKey();
    const ep = { ip: new Uint8Array([10, 0, 0, 9]), udp: 40000, tcp: 40001 };
    const fn = encodePacket({ type: PacketType.Findnode, target: peer.publicKey, expiration: exp() }, peer.privateKey);
    d.handle(fn.datagram, "10.0.0.9", 40000);
    assert.equal(sent.length, 0);
    assert.equal(d.stats().drop_unbonded, 1);
    const old = encodePacket(
      { type: PacketType.Ping, version: 4, from: ep, to: ep, expiration: 1, enrSeq: null },
      peer.privateKey,
    );
    d.handle(old.datagram, "10.0.0.9", 40000);
    assert.equal(d.stats().drop_expired, 1);
    const ping = encodePacket(
      { type: PacketType.Ping, version: 4, from: ep, to: ep, expiration: exp(), enrSeq: 1n },
      peer.privateKey,
    );
    d.handle(ping.datagram, "10.0.0.9", 40000);
    const replies = sent.map((s) => decodePacket(s.datagram) as DecodedPacket);
    assert.equal(replies.length, 2);
    assert.equal(replies[0]!.packet.type, PacketType.Pong);
    if (replies[0]!.packet.type === PacketType.Pong) {
      assert.deepEqual(replies[0]!.packet.pingHash, ping.hash);
      assert.equal(replies[0]!.packet.enrSeq, d.localRecord.seq);
    }
    assert.deepEqual(replies[0]!.publicKey, key.publicKey);
    assert.equal(replies[1]!.packet.type, PacketType.Ping);
    assert.equal(sent[1]!.port, 40000);
    // An unsolicited pong (wrong hash) is dropped.
    const pong = encodePacket(
      { type: PacketType.Pong, to: ep, pingHash: new Uint8Array(32), expiration: exp(), enrSeq: null },
      peer.privateKey,
    );
    d.handle(pong.datagram, "10.0.0.9", 40000);
    assert.equal(d.stats().drop_unsolicited, 1);
    void d.stop();
  });
});

describe("devp2p/discovery/kademliaTable", () => {
  it("17 buckets of 16 with replacements; closest by XOR", () => {
    const self = generateNodeKey();
    const t = new KademliaTable(self.id);
    let entered = 0;
    const nodes = [];
    for (let i = 0; i < 400; i++) {
      const k = generateNodeKey();
      const n = {
        publicKey: k.publicKey,
        id: k.id,
        ip: new Uint8Array([10, 0, i >> 8, i & 255]),
        udpPort: 1,
        tcpPort: 1,
      };
      nodes.push(n);
      if (t.addSeen(n, 0) !== null) entered++;
    }
    const sizes = t.bucketSizes();
    assert.equal(sizes.length, N_BUCKETS);
    assert.ok(sizes.every((s) => s <= BUCKET_SIZE));
    assert.equal(t.size, entered);
    // Almost all random ids are at distance 256..254: the top buckets fill up.
    assert.equal(sizes[N_BUCKETS - 1], BUCKET_SIZE);
    assert.equal(logDistance(self.id, self.id), 0);
    const target = nodes[0]!.id;
    const c = t.closest(target, 5);
    for (let i = 1; i < c.length; i++)
      assert.ok(logDistance(target, c[i - 1]!.node.id) <= logDistance(target, c[i]!.node.id));
    // Removing a full bucket's entry promotes a replacement.
    const last = t.entries().find((e) => t.bucketIndex(e.node.id) === N_BUCKETS - 1)!;
    t.remove(last.node.id);
    assert.equal(t.bucketSizes()[N_BUCKETS - 1], BUCKET_SIZE);
    assert.equal(t.get(last.node.id), undefined);
  });

  it("limits one /24 to 2 per bucket (LAN exempt)", () => {
    const t = new KademliaTable(generateNodeKey().id);
    let n = 0;
    for (let i = 0; i < 50; i++) {
      const k = generateNodeKey();
      if (
        t.addSeen(
          {
            publicKey: k.publicKey,
            id: nodeIdOf(k.publicKey),
            ip: new Uint8Array([8, 8, 8, i]),
            udpPort: 1,
            tcpPort: 1,
          },
          0,
        )
      )
        n++;
    }
    assert.ok(n <= 10, `table-wide /24 limit: ${n}`);
  });
});

describe("devp2p/discovery: bootnodes and netrestrict", () => {
  it("built-in OP bootnodes parse; keyed by chain id or L1", () => {
    assert.equal(OP_MAINNET_BOOTNODES.length, 11);
    assert.equal(OP_TESTNET_BOOTNODES.length, 8);
    for (const b of [...OP_MAINNET_BOOTNODES, ...OP_TESTNET_BOOTNODES]) parseEnode(b);
    assert.equal(builtinBootnodes(10n), OP_MAINNET_BOOTNODES);
    assert.equal(builtinBootnodes(11155420n), OP_TESTNET_BOOTNODES);
    assert.equal(builtinBootnodes(7777777n, 1n), OP_MAINNET_BOOTNODES);
    assert.deepEqual(builtinBootnodes(901n), []);
  });
  it("netrestrict CIDRs and IP codecs", () => {
    const n = Netlist.parse("10.0.0.0/8, 192.168.1.0/24 fd00::/8");
    assert.ok(n.contains(ipToBytes("10.9.8.7")!));
    assert.ok(n.contains(ipToBytes("192.168.1.200")!));
    assert.ok(!n.contains(ipToBytes("192.168.2.1")!));
    assert.ok(n.contains(ipToBytes("fd12::1")!));
    assert.ok(!n.contains(ipToBytes("2001:db8::1")!));
    assert.throws(() => Netlist.parse("10.0.0.0"), /not a CIDR/);
    assert.throws(() => Netlist.parse("10.0.0.0/33"), /not a CIDR/);
    assert.equal(ipFromBytes(ipToBytes("::ffff:1.2.3.4")!), "1.2.3.4");
    assert.equal(ipFromBytes(ipToBytes("2001:db8::1")!), "2001:db8::1");
    assert.equal(ipFromBytes(ipToBytes("::1")!), "::1");
  });
});
