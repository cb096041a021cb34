/**
 * Frame codec and "p2p" messages: frames round-trip between the two sides of a handshake, every
 * flipped bit of a frame is caught by a MAC, sizes are padded as rlpx.md says; Hello decodes EIP-8's
 * published forward-compatible Hello (version 22… extra elements); Disconnect in geth's and
 * ethereumjs's forms; capability negotiation picks the highest shared version, offsets from 0x10.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { publicKeyOf, randomPrivateKey } from "../../../../src/devp2p/rlpx/ecies.js";
import { FrameCodec, FrameStatus, frameBodyLength } from "../../../../src/devp2p/rlpx/frameCodec.js";
import { InitiatorHandshake, respondToAuth } from "../../../../src/devp2p/rlpx/handshake.js";
import {
  decodeDisconnect,
  decodeHello,
  encodeDisconnect,
  encodeHello,
  negotiateCapabilities,
} from "../../../../src/devp2p/rlpx/p2pMessages.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";

function pair(): { a: FrameCodec; b: FrameCodec } {
  const ka = randomPrivateKey();
  const kb = randomPrivateKey();
  const init = new InitiatorHandshake(ka, publicKeyOf(kb).subarray(1));
  const r = respondToAuth(kb, init.authPacket);
  if (r.kind !== "ok") throw new Error("handshake");
  const ack = init.readAck(r.ackPacket);
  if (ack.kind !== "ok") throw new Error("ack");
  return { a: new FrameCodec(ack.secrets), b: new FrameCodec(r.secrets) };
}

function decode(c: FrameCodec, frame: Uint8Array): Uint8Array | number {
  const size = c.decodeHeader(frame.subarray(0, 32));
  if (size < 0) return size;
  assert.equal(frame.length, 32 + frameBodyLength(size));
  return c.decodeBody(frame.subarray(32), size);
}

describe("devp2p/rlpx/frameCodec", () => {
  it("round-trips frames of every padding class in both directions, MAC state carried across frames", () => {
    const { a, b } = pair();
    for (let n = 1; n < 70; n++) {
      const data = randomBytes(n);
      const f = a.encode(data);
      assert.equal(f.length, 32 + Math.ceil(n / 16) * 16 + 16);
      assert.deepEqual(decode(b, f), new Uint8Array(data));
      const g = b.encode(data);
      assert.deepEqual(decode(a, g), new Uint8Array(data));
    }
    const big = randomBytes(1 << 20);
    assert.deepEqual(decode(b, a.encode(big)), new Uint8Array(big));
  });

  it("a flipped bit in the header or its MAC fails the header MAC; in the body or its MAC, the frame MAC", () => {
    for (const pos of [0, 5, 15, 16, 31, 32, 40, 47, 48, 63]) {
      const { a, b } = pair();
      const f = a.encode(randomBytes(20)); // 32 + 32 + 16 = 80 bytes
      f[pos]! ^= 0x10;
      const want = pos < 32 ? FrameStatus.BadHeaderMac : FrameStatus.BadFrameMac;
      assert.equal(decode(b, f), want, `bit at ${pos}`);
    }
  });

  it("a replayed or reordered frame fails: the MACs chain", () => {
    const { a, b } = pair();
    a.encode(new Uint8Array([1])); // sent but never delivered
    const f2 = a.encode(new Uint8Array([2]));
    assert.equal(decode(b, f2), FrameStatus.BadHeaderMac);
    const c = pair();
    const g = c.a.encode(new Uint8Array([1]));
    assert.deepEqual(decode(c.b, g), new Uint8Array([1]));
    assert.equal(decode(c.b, g), FrameStatus.BadHeaderMac);
  });

  it("refuses to encode past the 24-bit size", () => {
    const { a } = pair();
    assert.throws(() => a.encode(new Uint8Array(0x1000000)), RangeError);
  });
});

describe("devp2p/rlpx/p2pMessages", () => {
  it("decodes EIP-8's Hello with version 22 and additional list elements", () => {
    const hello = hexToBytes(
      "0xf87137916b6e6574682f76302e39312f706c616e39cdc5836574683dc6846d6f726b1682270fb840" +
        "fda1cff674c90c9a197539fe3dfb53086ace64f83ed7c6eabec741f7f381cc803e52ab2cd55d5569" +
        "bce4347107a310dfd5f88a010cd2ffd1005ca406f1842877c883666f6f836261720304",
    );
    const h = decodeHello(hello)!;
    assert.equal(h.protocolVersion, 55);
    assert.equal(h.clientId, "kneth/v0.91/plan9");
    assert.deepEqual(h.capabilities, [
      { name: "eth", version: 61 },
      { name: "mork", version: 22 },
    ]);
    assert.equal(h.listenPort, 9999);
    assert.equal(bytesToHex(h.nodeId).slice(0, 10), "0xfda1cff6");
  });

  it("round-trips Hello and rejects malformed ones", () => {
    const h = {
      protocolVersion: 5,
      clientId: "opal/test",
      capabilities: [{ name: "eth", version: 68 }],
      listenPort: 30303,
      nodeId: randomBytes(64),
    };
    const d = decodeHello(encodeHello(h))!;
    assert.deepEqual({ ...d, nodeId: Buffer.from(d.nodeId) }, { ...h, nodeId: Buffer.from(h.nodeId) });
    assert.equal(decodeHello(new Uint8Array([1, 2, 3])), null);
    assert.equal(decodeHello(encodeHello({ ...h, nodeId: randomBytes(63) })), null);
    assert.equal(decodeHello(new Uint8Array([0xc0])), null);
    assert.equal(decodeHello(new Uint8Array([0xf8, 0xff])), null);
  });

  it("Disconnect: geth's [reason], ethereumjs's bare reason, empty; garbage is null", () => {
    assert.deepEqual(encodeDisconnect(4), new Uint8Array([0xc1, 0x04]));
    assert.equal(decodeDisconnect(new Uint8Array([0xc1, 0x04])), 4);
    assert.equal(decodeDisconnect(new Uint8Array([0x10])), 0x10);
    assert.equal(decodeDisconnect(new Uint8Array([0xc1, 0x80])), 0);
    assert.equal(decodeDisconnect(new Uint8Array([])), 0);
    assert.equal(decodeDisconnect(new Uint8Array([0xc0])), 0);
    assert.equal(decodeDisconnect(new Uint8Array([0xc3, 0x82, 0x01, 0x00])), null);
    assert.equal(decodeDisconnect(new Uint8Array([0xb9])), null);
  });

  it("negotiates the highest shared version per name, offsets from 0x10 in name order", () => {
    const local = [
      { name: "snap", version: 1, length: 8 },
      { name: "eth", version: 68, length: 17 },
      { name: "eth", version: 69, length: 18 },
      { name: "les", version: 4, length: 23 },
    ];
    const remote = [
      { name: "eth", version: 68 },
      { name: "eth", version: 69 },
      { name: "eth", version: 70 },
      { name: "snap", version: 1 },
      { name: "Snap", version: 1 },
    ];
    assert.deepEqual(negotiateCapabilities(local, remote), [
      { name: "eth", version: 69, length: 18, offset: 0x10 },
      { name: "snap", version: 1, length: 8, offset: 0x10 + 18 },
    ]);
    assert.deepEqual(negotiateCapabilities(local, [{ name: "eth", version: 67 }]), []);
  });
});
