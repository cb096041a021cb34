/**
 * discv4 packet codec against EIP-8's discovery vectors (signed with b71c71a6…), round trips of
 * every packet type, and garbage that must come back as a drop code.
 */
import assert from "node:assert/strict";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { Enr } from "../../../../src/devp2p/discovery/enr.js";
import { nodeKeyOf } from "../../../../src/devp2p/discovery/nodeKey.js";
import {
  type DecodedPacket,
  decodePacket,
  encodePacket,
  MAX_PACKET_SIZE,
  PacketType,
  V4Drop,
} from "../../../../src/devp2p/discovery/v4wire.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";

const KEY = nodeKeyOf(hexToBytes("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"));

const hex = (s: string): Uint8Array => hexToBytes(s.replace(/\s+/g, ""));

// SPEC: EIP-8 "RLPx Discovery Protocol" test vectors.
const PING_V4 = hex(`e9614ccfd9fc3e74360018522d30e1419a143407ffcce748de3e22116b7e8dc92ff74788c0b6663a
aa3d67d641936511c8f8d6ad8698b820a7cf9e1be7155e9a241f556658c55428ec0563514365799a
4be2be5a685a80971ddcfa80cb422cdd0101ec04cb847f000001820cfa8215a8d790000000000000
000000000000000000018208ae820d058443b9a3550102`);
const PING_V555 = hex(`577be4349c4dd26768081f58de4c6f375a7a22f3f7adda654d1428637412c3d7fe917cadc56d4e5e
7ffae1dbe3efffb9849feb71b262de37977e7c7a44e677295680e9e38ab26bee2fcbae207fba3ff3
d74069a50b902a82c9903ed37cc993c50001f83e82022bd79020010db83c4d001500000000abcdef
12820cfa8215a8d79020010db885a308d313198a2e037073488208ae82823a8443b9a355c5010203
040531b9019afde696e582a78fa8d95ea13ce3297d4afb8ba6433e4154caa5ac6431af1b80ba7602
3fa4090c408f6b4bc3701562c031041d4702971d102c9ab7fa5eed4cd6bab8f7af956f7d565ee191
7084a95398b6a21eac920fe3dd1345ec0a7ef39367ee69ddf092cbfe5b93e5e568ebc491983c09c7
6d922dc3`);
const PONG = hex(`09b2428d83348d27cdf7064ad9024f526cebc19e4958f0fdad87c15eb598dd61d08423e0bf66b206
9869e1724125f820d851c136684082774f870e614d95a2855d000f05d1648b2d5945470bc187c2d2
216fbe870f43ed0909009882e176a46b0102f846d79020010db885a308d313198a2e037073488208
ae82823aa0fbc914b16819237dcd8801d7e53f69e9719adecb3cc0e790c57e91ca4461c9548443b9
a355c6010203c2040506a0c969a58f6f9095004c0177a6b47f451530cab38966a25cca5cb58f0555
42124e`);
const FINDNODE = hex(`c7c44041b9f7c7e41934417ebac9a8e1a4c6298f74553f2fcfdcae6ed6fe53163eb3d2b52e39fe91
831b8a927bf4fc222c3902202027e5e9eb812195f95d20061ef5cd31d502e47ecb61183f74a504fe
04c51e73df81f25c4d506b26db4517490103f84eb840ca634cae0d49acb401d8a4c6b6fe8c55b70d
115bf400769cc1400f3258cd31387574077f301b421bc84df7266c44e9e6d569fc56be0081290476
7bf5ccd1fc7f8443b9a35582999983999999280dc62cc8255c73471e0a61da0c89acdc0e035e260a
dd7fc0c04ad9ebf3919644c91cb247affc82b69bd2ca235c71eab8e49737c937a2c396`);
const NEIGHBORS = hex(`c679fc8fe0b8b12f06577f2e802d34f6fa257e6137a995f6f4cbfc9ee50ed3710faf6e66f932c4c8
d81d64343f429651328758b47d3dbc02c4042f0fff6946a50f4a49037a72bb550f3a7872363a83e1
b9ee6469856c24eb4ef80b7535bcf99c0004f9015bf90150f84d846321163782115c82115db84031
55e1427f85f10a5c9a7755877748041af1bcd8d474ec065eb33df57a97babf54bfd2103575fa8291
15d224c523596b401065a97f74010610fce76382c0bf32f84984010203040101b840312c55512422
cf9b8a4097e9a6ad79402e87a15ae909a4bfefa22398f03d20951933beea1e4dfa6f968212385e82
9f04c2d314fc2d4e255e0d3bc08792b069dbf8599020010db83c4d001500000000abcdef12820d05
820d05b84038643200b172dcfef857492156971f0e6aa2c538d8b74010f8e140811d53b98c765dd2
d96126051913f44582e8c199ad7c6d6819e9a56483f637feaac9448aacf8599020010db885a308d3
13198a2e037073488203e78203e8b8408dcab8618c3253b558d459da53bd8fa68935a719aff8b811
197101a4b2b47dd2d47295286fc00cc081bb542d760717d1bdd6bec2c37cd72eca367d6dd3b9df73
8443b9a355010203b525a138aa34383fec3d2719a0`);

function ok(buf: Uint8Array): DecodedPacket {
  const d = decodePacket(buf);
  assert.equal(typeof d, "object", `dropped: ${String(d)}`);
  return d as DecodedPacket;
}

describe("devp2p/discovery/v4wire: EIP-8 vectors", () => {
  it("ping v4 with extra list elements", () => {
    const d = ok(PING_V4);
    assert.deepEqual(d.publicKey, KEY.publicKey);
    assert.equal(d.packet.type, PacketType.Ping);
    if (d.packet.type !== PacketType.Ping) return;
    assert.equal(d.packet.version, 4);
    assert.deepEqual([...d.packet.from.ip], [127, 0, 0, 1]);
    assert.equal(d.packet.from.udp, 3322);
    assert.equal(d.packet.from.tcp, 5544);
    assert.equal(d.packet.to.ip.length, 16);
    assert.equal(d.packet.to.udp, 2222);
    assert.equal(d.packet.to.tcp, 3333);
    assert.equal(d.packet.expiration, 1136239445);
    assert.equal(d.packet.enrSeq, 1n, "the first extra element reads as enr-seq (EIP-868)");
  });

  it("ping v555 with extra elements and trailing random data", () => {
    const d = ok(PING_V555);
    assert.equal(d.packet.type, PacketType.Ping);
    if (d.packet.type !== PacketType.Ping) return;
    assert.equal(d.packet.version, 555);
    assert.equal(d.packet.from.ip.length, 16);
    assert.equal(d.packet.expiration, 1136239445);
  });

  it("pong, findnode and neighbours with extra data", () => {
    const pong = ok(PONG).packet;
    assert.equal(pong.type, PacketType.Pong);
    if (pong.type === PacketType.Pong) {
      assert.equal(
        Buffer.from(pong.pingHash).toString("hex"),
        "fbc914b16819237dcd8801d7e53f69e9719adecb3cc0e790c57e91ca4461c954",
      );
      assert.equal(pong.expiration, 1136239445);
    }
    const fn = ok(FINDNODE).packet;
    assert.equal(fn.type, PacketType.Findnode);
    if (fn.type === PacketType.Findnode) {
      assert.equal(Buffer.from(fn.target.subarray(0, 4)).toString("hex"), "ca634cae");
      assert.equal(fn.expiration, 1136239445);
    }
    const nb = ok(NEIGHBORS).packet;
    assert.equal(nb.type, PacketType.Neighbors);
    if (nb.type === PacketType.Neighbors) {
      assert.equal(nb.nodes.length, 4);
      assert.deepEqual([...nb.nodes[0]!.ip], [99, 33, 22, 55]);
      assert.equal(nb.nodes[0]!.udp, 4444);
      assert.equal(nb.nodes[0]!.tcp, 4445);
      assert.deepEqual([...nb.nodes[1]!.ip], [1, 2, 3, 4]);
      assert.equal(nb.nodes[1]!.udp, 1);
      assert.equal(nb.nodes[1]!.tcp, 1);
      assert.equal(nb.nodes[2]!.ip.length, 16);
      assert.equal(nb.nodes[3]!.udp, 999);
      assert.equal(nb.nodes[3]!.tcp, 1000);
      assert.equal(nb.expiration, 1136239445);
    }
  });
});

describe("devp2p/discovery/v4wire: round trips", () => {
  const ep = { ip: new Uint8Array([10, 0, 0, 1]), udp: 30303, tcp: 30304 };
  it("every packet type encodes, signs and decodes back", () => {
    const record = Enr.sign(KEY, 3n, new Map([["ip", new Uint8Array([127, 0, 0, 1])]]));
    const packets = [
      { type: PacketType.Ping, version: 4, from: ep, to: ep, expiration: 1_900_000_000, enrSeq: 7n },
      { type: PacketType.Pong, to: ep, pingHash: new Uint8Array(32).fill(9), expiration: 1_900_000_000, enrSeq: null },
      { type: PacketType.Findnode, target: KEY.publicKey, expiration: 1_900_000_000 },
      { type: PacketType.Neighbors, nodes: [{ ...ep, id: KEY.publicKey }], expiration: 1_900_000_000 },
      { type: PacketType.EnrRequest, expiration: 1_900_000_000 },
      { type: PacketType.EnrResponse, requestHash: new Uint8Array(32).fill(1), record },
    ] as const;
    for (const p of packets) {
      const { datagram, hash } = encodePacket(p, KEY.privateKey);
      const d = ok(datagram);
      assert.deepEqual(d.hash, hash);
      assert.deepEqual(d.publicKey, KEY.publicKey);
      if (p.type === PacketType.EnrResponse) {
        assert.equal(d.packet.type, PacketType.EnrResponse);
        if (d.packet.type === PacketType.EnrResponse) {
          assert.equal(d.packet.record?.encodeTxt(), record.encodeTxt());
          assert.deepEqual(d.packet.requestHash, p.requestHash);
        }
      } else {
        assert.deepEqual(d.packet, p);
      }
    }
  });
});

describe("devp2p/discovery/v4wire: garbage is a drop code", () => {
  it("sizes, hash, signature, type, RLP and fields", () => {
    assert.equal(decodePacket(new Uint8Array(0)), V4Drop.TooSmall);
    assert.equal(decodePacket(new Uint8Array(98)), V4Drop.TooSmall);
    assert.equal(decodePacket(new Uint8Array(MAX_PACKET_SIZE + 1)), V4Drop.TooLarge);
    const bad = PING_V4.slice();
    bad[200 % bad.length] ^= 1;
    assert.equal(decodePacket(bad), V4Drop.BadHash);
    const { datagram } = encodePacket({ type: PacketType.EnrRequest, expiration: 1 }, KEY.privateKey);
    // Unknown type 0x07 with a fixed-up hash: the signature still recovers some key, the type is refused.
    const t = datagram.slice();
    t[97] = 7;
    assert.equal(decodePacket(rehash(t)), V4Drop.UnknownType);
    const r = datagram.slice();
    r[96] = 5;
    assert.equal(decodePacket(rehash(r)), V4Drop.BadSignature);
    const rl = concat(datagram.subarray(0, 98), new Uint8Array([0xf9, 0xff]));
    assert.equal(decodePacket(rehash(rl)), V4Drop.BadRlp);
    const f = concat(datagram.subarray(0, 98), new Uint8Array([0xc1, 0xc0]));
    assert.equal(decodePacket(rehash(f)), V4Drop.BadFields);
    for (let i = 0; i < 2000; i++) {
      const junk = new Uint8Array(1 + Math.floor(Math.random() * 1400));
      for (let j = 0; j < junk.length; j++) junk[j] = Math.floor(Math.random() * 256);
      const d = decodePacket(Math.random() < 0.5 ? junk : rehash(junk));
      assert.ok(typeof d === "string" || typeof d === "object");
    }
  });
});

function rehash(b: Uint8Array): Uint8Array {
  const out = b.slice();
  if (out.length > 32) out.set(keccak256(out.subarray(32)), 0);
  return out;
}
function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const o = new Uint8Array(a.length + b.length);
  o.set(a);
  o.set(b, a.length);
  return o;
}
