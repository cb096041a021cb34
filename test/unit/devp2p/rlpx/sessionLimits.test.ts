/**
 * What an RLPx session spends on a hostile peer stays bounded.
 *
 * A peer that sends requests and never reads the answers must not make the session buffer without
 * bound. geth writes synchronously — a handler blocked writing to a peer that does not read stops
 * reading it — so a session with more than WRITE_HIGH_WATER unsent stops reading the peer until its
 * socket drains. Each answer here is 512 KiB of incompressible bytes for a 40-byte request: without
 * the bound, 60 requests leave ~30 MiB queued in the process.
 *
 * A peer without a key that dribbles its auth a byte at a time must not cost an ECIES decrypt
 * (~2 ms) per byte: 307 bytes starting like a pre-EIP-8 auth that does not decrypt, read as EIP-8,
 * declare 1024–1279 bytes; the session reads the packet again only once that many are there (geth
 * reads 307 bytes, tries them once, then reads the rest).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { eciesDecrypt, eciesEncrypt, publicKeyOf, randomPrivateKey } from "../../../../src/devp2p/rlpx/ecies.js";
import { FrameCodec, frameBodyLength } from "../../../../src/devp2p/rlpx/frameCodec.js";
import { InitiatorHandshake } from "../../../../src/devp2p/rlpx/handshake.js";
import { encodeHello } from "../../../../src/devp2p/rlpx/p2pMessages.js";
import { type RlpxCloseInfo, RlpxSession, WRITE_HIGH_WATER } from "../../../../src/devp2p/rlpx/rlpxSession.js";
import { concatBytes } from "../../../../src/primitives/bytes.js";
import { snappyCompress } from "../../../../src/primitives/snappy.js";

const ANSWER = new Uint8Array(randomBytes(512 * 1024));
const REQUESTS = 60;

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("devp2p/rlpx/session: bounded work for a hostile peer", function () {
  this.timeout(30_000);
  let server: Server | null = null;
  let client: Socket | null = null;
  afterEach(() => {
    client?.destroy();
    server?.close();
  });

  it("stops being read once WRITE_HIGH_WATER is unsent, and is served again when it reads", async () => {
    const key = randomPrivateKey();
    let node: RlpxSession | null = null;
    let answered = 0;
    server = createServer((socket) => {
      const s = new RlpxSession(socket, {
        privateKey: key,
        remoteId: null,
        clientId: "opal/test",
        capabilities: [{ name: "eth", version: 68, length: 17 }],
        listenPort: 0,
      });
      // Every eth message 3 is answered with 512 KiB (message 4), as a server answers GetBlockHeaders.
      s.on("message", (_cap, code) => {
        if (code === 3 && s.send("eth", 4, ANSWER)) answered++;
      });
      s.start();
      node = s;
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;

    // A raw initiator: handshake, Hello, then requests while it reads nothing.
    const peerKey = randomPrivateKey();
    const hs = new InitiatorHandshake(peerKey, publicKeyOf(key).subarray(1));
    const socket = connect({ host: "127.0.0.1", port });
    client = socket;
    socket.on("error", () => undefined);
    socket.write(hs.authPacket);
    let codec: FrameCodec | null = null;
    let buf: Uint8Array = new Uint8Array(0);
    let pending = -1;
    let frames = 0;
    socket.on("data", (chunk: Buffer) => {
      buf = concatBytes(buf, chunk);
      if (codec === null) {
        const r = hs.readAck(buf);
        if (r.kind !== "ok") return;
        codec = new FrameCodec(r.secrets);
        buf = buf.subarray(r.consumed);
      }
      for (;;) {
        if (pending < 0) {
          if (buf.length < 32) return;
          pending = codec.decodeHeader(buf.subarray(0, 32));
          assert.ok(pending >= 0);
          buf = buf.subarray(32);
        }
        const n = frameBodyLength(pending);
        if (buf.length < n) return;
        assert.ok(codec.decodeBody(buf.subarray(0, n), pending) instanceof Uint8Array);
        buf = buf.subarray(n);
        pending = -1;
        frames++;
      }
    });
    await until(() => codec !== null && frames >= 1, 5_000); // the node's Hello
    const c = codec as unknown as FrameCodec;
    const hello = encodeHello({
      protocolVersion: 5,
      clientId: "raw",
      capabilities: [{ name: "eth", version: 68 }],
      listenPort: 0,
      nodeId: publicKeyOf(peerKey).subarray(1),
    });
    socket.write(c.encode(concatBytes(Uint8Array.of(0x80), hello)));
    await until(() => node?.isReady === true, 5_000);

    socket.pause();
    const request = (): Uint8Array => c.encode(concatBytes(Uint8Array.of(0x13), snappyCompress(Uint8Array.of(0xc0))));
    for (let i = 0; i < REQUESTS; i++) socket.write(request());
    await new Promise((r) => setTimeout(r, 1_000));
    const unsent = node!.socket.writableLength;
    // One answer may be written past the mark (it is checked between messages).
    assert.ok(
      unsent <= WRITE_HIGH_WATER + ANSWER.length + 1024,
      `${unsent} bytes unsent to a peer that does not read (${answered} answers queued)`,
    );
    assert.ok(answered < REQUESTS, "the node kept reading requests it could not send the answers of");
    assert.equal(node!.closed, false);

    // The peer reads again: every request is answered, in order, and the session lives on.
    socket.resume();
    await until(() => answered === REQUESTS && frames === 1 + REQUESTS, 20_000);
    assert.equal(node!.closed, false);
  });

  it("an auth dribbled a byte at a time costs a few decrypts, not one per byte", async () => {
    const key = randomPrivateKey();
    // A pre-EIP-8-looking packet (a valid R) whose tag does not verify.
    const packet = eciesEncrypt(publicKeyOf(key), new Uint8Array(194), new Uint8Array(0));
    packet[300]! ^= 1;
    assert.equal(eciesDecrypt(key, packet, new Uint8Array(0)), null);

    let closed: RlpxCloseInfo | null = null;
    let session: RlpxSession | null = null;
    server = createServer((socket) => {
      const s = new RlpxSession(socket, {
        privateKey: key,
        remoteId: null,
        clientId: "opal/test",
        capabilities: [],
        listenPort: 0,
        handshakeTimeoutMs: 20_000,
      });
      s.on("close", (info) => {
        closed = info;
      });
      session = s;
      s.start();
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const socket = connect({ host: "127.0.0.1", port: (server.address() as { port: number }).port });
    client = socket;
    socket.on("error", () => undefined);
    socket.setNoDelay(true);
    await new Promise((r) => socket.once("connect", r));
    socket.write(packet);
    const total = 2 + ((packet[0]! << 8) | packet[1]!); // the packet read as EIP-8: 1026–1281 bytes
    const bytes = total - 1 - packet.length;
    for (let i = 0; i < bytes; i++) {
      socket.write(Uint8Array.of(0));
      await new Promise((r) => setTimeout(r, 1));
    }
    await until(() => session !== null, 5_000);
    // Read once with the first bytes (need more), once as pre-EIP-8 when 307 are there (does not
    // decrypt, so read as EIP-8: need the declared size), then not again until that size is there.
    const reads = (session as RlpxSession | null)!.handshakeReads;
    assert.ok(reads <= 3, `${reads} handshake reads for ${packet.length + bytes} bytes dribbled`);
    assert.equal(closed, null);
    // The last byte completes the declared packet: read once more, refused at once.
    socket.write(Uint8Array.of(0));
    await until(() => closed !== null, 5_000);
    assert.match((closed as RlpxCloseInfo | null)?.error ?? "", /does not decrypt/);
    assert.ok((session as RlpxSession | null)!.handshakeReads <= 4);
  });
});
