/**
 * Session fuzz targets (devp2p): whole RLPx sessions over a real socket, against a live Devp2pHost
 * (RLPx listener, admission, the eth peer and its server) on loopback with short session timeouts.
 * The decoder targets of fuzzTargets.ts feed one message to one decoder; these drive the node end to
 * end, one TCP connection per input:
 *
 *  - "handshake": the input is what a client writes as its auth packet (seeds: EIP-8 and pre-EIP-8
 *    auths of handshake.ts's initiator, one followed by garbage).
 *  - "frames": a valid handshake as initiator (handshake.ts), then the input as raw frame bytes.
 *    Seeds are frame streams encrypted under fixed reference secrets; each input is re-keyed onto the
 *    live session frame by frame (plaintext and MAC errors carried over: a flipped ciphertext bit stays
 *    a bad MAC, a valid frame stays valid), so mutations of the seeds are mutated ciphertext of this
 *    session. The first input byte picks how the bytes are split across writes.
 *  - "payloads": a valid handshake, then the input as a list of messages, each framed and encrypted
 *    properly (snappy-compressed, or raw frame-data for bombs and bad ids): Hello, Status, requests.
 *
 * The oracle of every input: no uncaughtException / unhandledRejection in the process, every frame
 * the node sends verifies, a Disconnect it sends is its last frame and carries a reason of the
 * DisconnectReason table, the node closes the socket within CLOSE_BOUND_MS, and its peer slot is
 * freed. Every LIVENESS_EVERY inputs (and at the end) a fresh client must still complete handshake,
 * Hello, the eth Status exchange and a GetBlockHeaders round trip. The seeds also run as structured
 * cases before fuzzing, each with the outcome it must have (the Disconnect reason, the replies).
 */
import { type Cipher, createCipheriv, createDecipheriv, type Decipher } from "node:crypto";
import { connect, type Socket } from "node:net";
import type { Keccak } from "@noble/hashes/sha3.js";
import type { Blockchain } from "../../src/chain/blockchain.js";
import { nodeKeyOf } from "../../src/devp2p/discovery/nodeKey.js";
import {
  EthMsg,
  encodeBlockRangeUpdate,
  encodeGetBlockHeaders,
  encodeHashesRequest,
  encodeNewPooledTransactionHashes,
  encodeStatus,
  encodeTransactions,
  type Status,
} from "../../src/devp2p/eth/messages.js";
import { StatusProvider } from "../../src/devp2p/eth/status.js";
import { Devp2pHost } from "../../src/devp2p/host.js";
import { publicKeyOf, randomPrivateKey } from "../../src/devp2p/rlpx/ecies.js";
import { FrameCodec, FrameStatus, frameBodyLength, MAX_FRAME_SIZE } from "../../src/devp2p/rlpx/frameCodec.js";
import { deriveSecrets, InitiatorHandshake, type RlpxSecrets } from "../../src/devp2p/rlpx/handshake.js";
import {
  DisconnectReason,
  decodeDisconnect,
  encodeDisconnect,
  encodeHello,
} from "../../src/devp2p/rlpx/p2pMessages.js";
import { RlpxMac } from "../../src/devp2p/rlpx/rlpxMac.js";
import { concatBytes } from "../../src/primitives/bytes.js";
import { hexToBytes } from "../../src/primitives/hex.js";
import { snappyCompress, snappyUncompress } from "../../src/primitives/snappy.js";
import { encodeTx } from "../../src/tx/envelope.js";
import { signTx } from "../../src/tx/signer.js";
import { TxPool } from "../../src/txpool/txPool.js";
import { sourceChain } from "../unit/devp2p/sync/syncFixtures.js";
import { feeMarketTx } from "../unit/tx/builders.js";
import type { FuzzTarget } from "./fuzzTargets.js";

/** The node's RLPx handshake (auth to Hello) and idle timeouts: short, so every session ends fast. */
const HANDSHAKE_TIMEOUT_MS = 300;
const IDLE_TIMEOUT_MS = 300;
/** The node must have closed the socket this long after the last byte of an input. */
const CLOSE_BOUND_MS = 1500;
/** After the close, the node's peer table must be empty again within this. */
const SLOT_BOUND_MS = 1000;
/** A fresh valid session is checked every this many inputs. */
const LIVENESS_EVERY = 25;
/** Cases per run, whatever is asked: each input is a TCP connection and up to ~0.5 s of the node's timers. */
const MAX_CASES = 300;

const fixedKey = (b: number): Uint8Array => new Uint8Array(32).fill(b);
/** Fixed keys: the seeds (and so the fuzz inputs) are the same on every run. */
const NODE_KEY = nodeKeyOf(fixedKey(0x5a));
const NODE_ID = NODE_KEY.publicKey;
const CLIENT_KEY = fixedKey(0x01);
const CLIENT_ID = publicKeyOf(CLIENT_KEY).subarray(1);
const REASONS: ReadonlySet<number> = new Set(Object.values(DisconnectReason));

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await sleep(2);
  }
  return true;
}

// --- the node's chain ------------------------------------------------------------------------------

let CHAIN: Blockchain | null = null;

/** The sync fixtures' L1 chain of genesis and 8 blocks (headers, bodies and receipts to serve), built once. */
function chain(): Blockchain {
  CHAIN ??= sourceChain(8);
  return CHAIN;
}

/** The node's own eth/69 Status: a peer sending it back passes every check. */
function nodeStatus(): Status {
  return new StatusProvider(chain()).status(69);
}

// --- frames ----------------------------------------------------------------------------------------

const ZERO_IV = new Uint8Array(16);

function macCipher(secret: Uint8Array): Cipher {
  const c = createCipheriv("aes-256-ecb", secret, null);
  c.setAutoPadding(false);
  return c;
}

/** `frame-size (3) ‖ rlp([0, 0]) ‖ zeros`: the 16-byte header plaintext. */
function headerPlain(size: number): Uint8Array {
  const h = new Uint8Array(16);
  h[0] = size >>> 16;
  h[1] = (size >>> 8) & 0xff;
  h[2] = size & 0xff;
  h.set([0xc2, 0x80, 0x80], 3);
  return h;
}

function xorInto(out: Uint8Array, at: number, diff: Uint8Array | undefined): void {
  if (diff !== undefined) for (let i = 0; i < diff.length; i++) out[at + i]! ^= diff[i]!;
}

const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0);

/**
 * The sending side of a session at the frame layer (what FrameCodec.encode does, in pieces): headers
 * and bodies from plaintext, each MAC XORed with `diff` to send a bad one on purpose.
 */
class FrameWriter {
  private readonly enc: Cipher;
  private readonly mac: RlpxMac;

  constructor(s: Pick<RlpxSecrets, "aesSecret" | "macSecret">, egressMac: Keccak) {
    this.enc = createCipheriv("aes-256-ctr", s.aesSecret, ZERO_IV);
    this.mac = new RlpxMac(egressMac, macCipher(s.macSecret));
  }

  header(plain16: Uint8Array, diff?: Uint8Array): Uint8Array {
    const out = new Uint8Array(32);
    out.set(this.enc.update(plain16), 0);
    this.mac.headerMac(out.subarray(0, 16), out, 16);
    xorInto(out, 16, diff);
    return out;
  }

  /** `plain` is the padded frame plaintext (a multiple of 16 bytes). */
  body(plain: Uint8Array, diff?: Uint8Array): Uint8Array {
    const out = new Uint8Array(plain.length + 16);
    out.set(this.enc.update(plain), 0);
    this.mac.frameMac(out.subarray(0, plain.length), out, plain.length);
    xorInto(out, plain.length, diff);
    return out;
  }

  /** Ciphertext without a MAC: the start of a frame the node will wait for the rest of. */
  stream(plain: Uint8Array): Uint8Array {
    return new Uint8Array(this.enc.update(plain));
  }

  frame(frameData: Uint8Array): Uint8Array {
    const padded = new Uint8Array((frameData.length + 15) & ~15);
    padded.set(frameData);
    return concatBytes(this.header(headerPlain(frameData.length)), this.body(padded));
  }
}

/** The receiving side of the reference session, lenient: plaintext and how far each MAC is off. */
class FrameReader {
  private readonly dec: Decipher;
  private readonly mac: RlpxMac;
  private readonly want = new Uint8Array(16);

  constructor(s: Pick<RlpxSecrets, "aesSecret" | "macSecret">, ingressMac: Keccak) {
    this.dec = createDecipheriv("aes-256-ctr", s.aesSecret, ZERO_IV);
    this.mac = new RlpxMac(ingressMac, macCipher(s.macSecret));
  }

  private diff(got: Uint8Array): Uint8Array {
    const d = new Uint8Array(16);
    for (let i = 0; i < 16; i++) d[i] = got[i]! ^ this.want[i]!;
    return d;
  }

  header(h: Uint8Array): { plain: Uint8Array; diff: Uint8Array } {
    this.mac.headerMac(h.subarray(0, 16), this.want, 0);
    return { diff: this.diff(h.subarray(16, 32)), plain: new Uint8Array(this.dec.update(h.subarray(0, 16))) };
  }

  body(ct: Uint8Array, mac: Uint8Array): { plain: Uint8Array; diff: Uint8Array } {
    this.mac.frameMac(ct, this.want, 0);
    return { diff: this.diff(mac), plain: new Uint8Array(this.dec.update(ct)) };
  }

  stream(ct: Uint8Array): Uint8Array {
    return new Uint8Array(this.dec.update(ct));
  }
}

/**
 * Re-keys a frame stream read under the reference secrets onto a live session: each frame's
 * plaintext re-encrypted, each MAC recomputed and XORed with how far the input's MAC was off. Past a
 * bad MAC the node reads nothing more, so the rest goes as it is; a frame cut short goes as
 * ciphertext without its MAC (the node waits for the rest).
 */
function rekey(input: Uint8Array, from: FrameReader, to: FrameWriter): Uint8Array {
  const out: Uint8Array[] = [];
  let p = 0;
  const n = input.length;
  while (p < n) {
    if (n - p < 32) {
      out.push(to.stream(from.stream(input.subarray(p))));
      break;
    }
    const h = from.header(input.subarray(p, p + 32));
    out.push(to.header(h.plain, h.diff));
    p += 32;
    if (!isZero(h.diff)) {
      out.push(input.subarray(p));
      break;
    }
    const size = (h.plain[0]! << 16) | (h.plain[1]! << 8) | h.plain[2]!;
    const padded = frameBodyLength(size) - 16;
    if (n - p < padded + 16) {
      const ct = input.subarray(p, Math.min(n, p + padded));
      out.push(to.stream(from.stream(ct)), input.subarray(p + ct.length));
      break;
    }
    const b = from.body(input.subarray(p, p + padded), input.subarray(p + padded, p + padded + 16));
    out.push(to.body(b.plain, b.diff));
    p += padded + 16;
    if (!isZero(b.diff)) {
      out.push(input.subarray(p));
      break;
    }
  }
  return concatBytes(...out);
}

/** Fixed secrets of a reference session (client → node): what the frame seeds are encrypted with. */
const REFERENCE = ((): { initiator: RlpxSecrets; recipient: RlpxSecrets } => {
  const common = {
    initiatorNonce: fixedKey(0x33),
    recipientNonce: fixedKey(0x44),
    authPacket: new TextEncoder().encode("opal rlpx fuzz: reference auth"),
    ackPacket: new TextEncoder().encode("opal rlpx fuzz: reference ack"),
  };
  const [e1, e2] = [fixedKey(0x11), fixedKey(0x22)];
  const initiator = deriveSecrets({
    ...common,
    initiator: true,
    ephemeralPrivateKey: e1,
    remoteEphemeralPublicKey: publicKeyOf(e2),
    remoteId: NODE_ID,
  });
  const recipient = deriveSecrets({
    ...common,
    initiator: false,
    ephemeralPrivateKey: e2,
    remoteEphemeralPublicKey: publicKeyOf(e1),
    remoteId: CLIENT_ID,
  });
  if (initiator === null || recipient === null) throw new Error("reference secrets");
  return { initiator, recipient };
})();

/** A fresh writer of the reference session's first frame (for building seeds). */
const referenceWriter = (): FrameWriter => new FrameWriter(REFERENCE.initiator, REFERENCE.initiator.egressMac.clone());
const referenceReader = (): FrameReader => new FrameReader(REFERENCE.recipient, REFERENCE.recipient.ingressMac.clone());

// --- messages --------------------------------------------------------------------------------------

/** RLP of a message id (0 is 0x80); ids used here are < 0x80. */
const msgId = (code: number): Uint8Array => Uint8Array.of(code === 0 ? 0x80 : code);
/** Frame-data of a message after Hello: id and snappy payload. */
const snappyMsg = (code: number, payload: Uint8Array): Uint8Array => concatBytes(msgId(code), snappyCompress(payload));
/** eth codes sit after the 16 "p2p" ids. */
const eth = (code: number): number => 0x10 + code;

function hello(nodeId: Uint8Array, caps = [69, 68].map((v) => ({ name: "eth", version: v }))): Uint8Array {
  return encodeHello({ protocolVersion: 5, clientId: "opal-fuzz", capabilities: caps, listenPort: 0, nodeId });
}
const helloFrame = (nodeId = CLIENT_ID): Uint8Array => concatBytes(msgId(0), hello(nodeId));

const statusPayload = (over: Partial<Status> = {}): Uint8Array => encodeStatus({ ...nodeStatus(), ...over } as Status);
const getHeaders = (requestId: bigint, origin = 0n, amount = 4n): Uint8Array =>
  encodeGetBlockHeaders({ requestId, origin, amount, skip: 0n, reverse: false });
const PING = Uint8Array.of(0xc0);

/** A signed 1559 tx of the node's chain id from an empty account (the pool refuses it: no funds). */
function someTx(): Uint8Array {
  const tx = feeMarketTx({
    chainId: chain().config.chainId,
    nonce: 0n,
    maxPriorityFeePerGas: 2n,
    maxFeePerGas: 10n ** 10n,
    gasLimit: 21_000n,
    to: hexToBytes(`0x${"11".repeat(20)}`),
    value: 1n,
    data: new Uint8Array(0),
  });
  return encodeTx(signTx(tx, fixedKey(0x42)));
}

/** A frame the node sent, split into message id and (maybe compressed) payload. */
interface NodeFrame {
  readonly code: number;
  readonly payload: Uint8Array;
}

/** The reason of a Disconnect payload, compressed (after Hello) or not; null when it does not decode. */
function reasonOf(payload: Uint8Array): number | null {
  const d = snappyUncompress(payload, 64);
  if (d instanceof Uint8Array) {
    const r = decodeDisconnect(d);
    if (r !== null) return r;
  }
  return decodeDisconnect(payload);
}

/** Incremental reader of the node's frames; a frame that does not verify is recorded in `bad`. */
class NodeFrames {
  readonly frames: NodeFrame[] = [];
  bad: string | null = null;
  private buf: Uint8Array = new Uint8Array(0);
  private pending = -1;

  constructor(private readonly codec: FrameCodec) {}

  push(chunk: Uint8Array): void {
    if (this.bad !== null) return;
    this.buf = concatBytes(this.buf, chunk);
    for (;;) {
      if (this.pending < 0) {
        if (this.buf.length < 32) return;
        const size = this.codec.decodeHeader(this.buf.subarray(0, 32));
        if (size === FrameStatus.BadHeaderMac) {
          this.bad = "a frame header from the node does not verify";
          return;
        }
        this.pending = size;
        this.buf = this.buf.subarray(32);
      }
      const need = frameBodyLength(this.pending);
      if (this.buf.length < need) return;
      const f = this.codec.decodeBody(this.buf.subarray(0, need), this.pending);
      if (!(f instanceof Uint8Array)) {
        this.bad = "a frame body from the node does not verify";
        return;
      }
      this.buf = this.buf.subarray(need);
      this.pending = -1;
      if (f.length === 0 || f[0]! > 0x80) {
        this.bad = `the node sent a frame without a small message id: ${hex(f.subarray(0, 8))}`;
        return;
      }
      this.frames.push({ code: f[0] === 0x80 ? 0 : f[0]!, payload: f.slice(1) });
    }
  }

  codes(): number[] {
    return this.frames.map((f) => f.code);
  }
}

// --- the client ------------------------------------------------------------------------------------

/** One TCP connection to the node: raw bytes in and out, and after `handshake` the session's frames. */
class Client {
  readonly received: Uint8Array[] = [];
  closed = false;
  writer: FrameWriter | null = null;
  frames: NodeFrames | null = null;
  ackError: string | null = null;
  private hs: InitiatorHandshake | null = null;
  private pre: Uint8Array = new Uint8Array(0);

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(new Uint8Array(chunk)));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      this.closed = true;
    });
  }

  static connect(port: number): Promise<Client> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: "127.0.0.1", port });
      s.once("connect", () => resolve(new Client(s)));
      s.once("error", reject);
    });
  }

  private onData(chunk: Uint8Array): void {
    this.received.push(chunk);
    if (this.frames !== null) {
      this.frames.push(chunk);
      return;
    }
    if (this.hs === null) return;
    this.pre = concatBytes(this.pre, chunk);
    const r = this.hs.readAck(this.pre);
    if (r.kind === "need") return;
    if (r.kind === "invalid") {
      this.ackError = r.reason;
      this.hs = null;
      return;
    }
    this.writer = new FrameWriter(r.secrets, r.secrets.egressMac.clone());
    this.frames = new NodeFrames(new FrameCodec(r.secrets));
    this.frames.push(this.pre.subarray(r.consumed));
  }

  /** The encryption handshake as initiator (handshake.ts), to the node's id. */
  async handshake(key: Uint8Array): Promise<void> {
    this.hs = new InitiatorHandshake(key, NODE_ID);
    this.write(this.hs.authPacket);
    await until(() => this.writer !== null || this.ackError !== null || this.closed, CLOSE_BOUND_MS);
    if (this.writer === null) {
      throw new Error(
        `valid auth not answered: ${this.ackError ?? (this.closed ? "socket closed" : "no ack in time")}`,
      );
    }
  }

  write(b: Uint8Array): void {
    if (!this.closed && !this.socket.destroyed && b.length > 0) this.socket.write(b);
  }

  /** `chunk` 0: one write; else the first 4 KiB in writes of `chunk` bytes, a macrotask apart, then the rest. */
  async writeSplit(b: Uint8Array, chunk: number): Promise<void> {
    if (chunk === 0) return this.write(b);
    const head = Math.min(b.length, 4096);
    for (let i = 0; i < head && !this.closed; i += chunk) {
      this.write(b.subarray(i, Math.min(head, i + chunk)));
      await new Promise((r) => setImmediate(r));
    }
    this.write(b.subarray(head));
  }

  rawReceived(): Uint8Array {
    return concatBytes(...this.received);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

// --- the node --------------------------------------------------------------------------------------

/** A Devp2pHost on loopback with short RLPx timeouts, and what the process reported while it ran. */
class Node {
  readonly errors: string[] = [];
  private readonly onError = (kind: string) => (e: unknown) => {
    this.errors.push(`${kind}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  };
  private readonly uncaught = this.onError("uncaughtException");
  private readonly rejection = this.onError("unhandledRejection");

  private constructor(readonly host: Devp2pHost) {
    process.on("uncaughtException", this.uncaught);
    process.on("unhandledRejection", this.rejection);
  }

  static async start(): Promise<Node> {
    const c = chain();
    const host = await Devp2pHost.start(
      {
        key: NODE_KEY,
        clientId: "opal-exec/fuzz",
        listenAddr: "127.0.0.1",
        port: 0,
        maxPeers: 10,
        discovery: null,
        staticNodes: [],
        disableTxPoolGossip: false,
        rlpx: { handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS, idleTimeoutMs: IDLE_TIMEOUT_MS, pingIntervalMs: 60_000 },
      },
      { chain: c, pool: new TxPool({}, { chain: c }), downloader: null },
    );
    return new Node(host);
  }

  get port(): number {
    return this.host.listenPort;
  }

  /** Throws what the process reported (an exception out of a handler, a rejection nobody handled). */
  check(): void {
    if (this.errors.length > 0) throw new Error(`node process: ${this.errors.splice(0).join("; ")}`);
  }

  /** Stops the host; its listener closes once every session has (each within its timeouts). */
  async stop(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.host.stop(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("the host did not stop within 5 s (a session left open)")), 5_000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      process.off("uncaughtException", this.uncaught);
      process.off("unhandledRejection", this.rejection);
    }
  }
}

/** What the node did with one input. */
interface Outcome {
  /** The reason of the Disconnect the node sent, or null when it closed without one. */
  readonly reason: number | null;
  /** Message ids of the node's frames, in order (empty when no session keys were agreed). */
  readonly codes: readonly number[];
}

/** Waits for the node to close `c`, then checks its frames, its peer table and the process. */
async function settle(node: Node, c: Client): Promise<Outcome> {
  if (!(await until(() => c.closed, CLOSE_BOUND_MS))) {
    throw new Error(`the node left the session open ${CLOSE_BOUND_MS} ms after the input`);
  }
  const out = framesOutcome(c.frames);
  if (!(await until(() => node.host.peerInfos().length === 0, SLOT_BOUND_MS))) {
    throw new Error(`the peer slot was still taken ${SLOT_BOUND_MS} ms after the close`);
  }
  node.check();
  return out;
}

function framesOutcome(frames: NodeFrames | null): Outcome {
  if (frames === null) return { reason: null, codes: [] };
  if (frames.bad !== null) throw new Error(frames.bad);
  const codes = frames.codes();
  const at = codes.indexOf(0x01);
  if (at < 0) return { reason: null, codes };
  if (at !== codes.length - 1) throw new Error(`the node sent frames after its Disconnect: ${codes.join(",")}`);
  const reason = reasonOf(frames.frames[at]!.payload);
  if (reason === null || !REASONS.has(reason)) {
    throw new Error(`Disconnect with a reason outside the table: ${hex(frames.frames[at]!.payload)}`);
  }
  return { reason, codes };
}

/**
 * A fresh client completes a whole session: handshake, Hello, the eth Status exchange (the node counts
 * the peer), GetBlockHeaders answered with the genesis header, then our Disconnect and the slot freed.
 */
async function liveness(node: Node): Promise<void> {
  const key = randomPrivateKey();
  const c = await Client.connect(node.port);
  const step = async (what: string, cond: () => boolean): Promise<void> => {
    if (!(await until(cond, CLOSE_BOUND_MS))) {
      throw new Error(`liveness: ${what} (node sent ${c.frames?.codes().join(",") ?? "no ack"})`);
    }
  };
  try {
    await c.handshake(key);
    const f = c.frames!;
    const w = c.writer!;
    await step("no Hello", () => f.frames.length > 0);
    c.write(w.frame(concatBytes(msgId(0), hello(publicKeyOf(key).subarray(1)))));
    await step("no Status", () => f.codes().includes(eth(EthMsg.Status)) || c.closed);
    const status = f.frames.find((x) => x.code === eth(EthMsg.Status));
    if (status === undefined) throw new Error(`liveness: closed before Status (${f.codes().join(",")})`);
    c.write(w.frame(concatBytes(msgId(status.code), status.payload)));
    await step("the eth handshake did not pass", () => node.host.peerCount === 1);
    c.write(w.frame(snappyMsg(eth(EthMsg.GetBlockHeaders), getHeaders(9n, 0n, 1n))));
    await step("no BlockHeaders", () => f.codes().includes(eth(EthMsg.BlockHeaders)));
    if (f.codes().includes(0x01)) throw new Error(`liveness: the node disconnected (${f.codes().join(",")})`);
    c.write(w.frame(snappyMsg(0x01, encodeDisconnect(DisconnectReason.Requested))));
    await settle(node, c);
  } finally {
    c.destroy();
  }
}

// --- the targets -----------------------------------------------------------------------------------

/** A seed and the outcome it must have. `replies`: ids the node must have sent, in this order. */
interface Seed {
  readonly name: string;
  readonly input: Uint8Array;
  readonly reason: number | null;
  readonly replies?: readonly number[];
}

function checkSeed(s: Seed, o: Outcome): void {
  const fail = (why: string): never => {
    throw new Error(`seed "${s.name}": ${why}; node sent ${o.codes.join(",") || "nothing"}, reason ${o.reason}`);
  };
  if (o.reason !== s.reason) fail(`want reason ${s.reason}`);
  let i = 0;
  for (const c of o.codes) if (i < (s.replies?.length ?? 0) && c === s.replies![i]) i++;
  if (i < (s.replies?.length ?? 0)) fail(`want replies ${s.replies!.join(",")}`);
}

function sessionTarget(spec: {
  name: string;
  seeds: () => Seed[];
  run: (node: Node, input: Uint8Array) => Promise<Outcome>;
  maxLength: number;
}): FuzzTarget {
  let node: Node | null = null;
  let cases = 0;
  let seeds: Seed[] | null = null;
  const seedsOnce = (): Seed[] => {
    seeds ??= spec.seeds();
    return seeds;
  };
  return {
    name: spec.name,
    seeds: () => seedsOnce().map((s) => s.input),
    maxLength: spec.maxLength,
    maxCases: MAX_CASES,
    typed: () => false,
    async setup() {
      node = await Node.start();
      cases = 0;
      for (const s of seedsOnce()) checkSeed(s, await spec.run(node, s.input));
      await liveness(node);
    },
    async run(input) {
      const n = node!;
      await spec.run(n, input);
      if (++cases % LIVENESS_EVERY === 0) await liveness(n);
    },
    async teardown() {
      const n = node;
      node = null;
      if (n === null) return;
      try {
        await liveness(n);
      } finally {
        await n.stop();
      }
    },
  };
}

// (a) The auth packet.

/** Initiator handshakes of the fixed client whose auth packets are the handshake target's seeds. */
let AUTHS: InitiatorHandshake[] | null = null;
function auths(): InitiatorHandshake[] {
  AUTHS ??= [new InitiatorHandshake(CLIENT_KEY, NODE_ID), new InitiatorHandshake(CLIENT_KEY, NODE_ID, { plain: true })];
  return AUTHS;
}

async function authCase(node: Node, input: Uint8Array): Promise<Outcome> {
  const c = await Client.connect(node.port);
  try {
    c.write(input);
    if (!(await until(() => c.closed, CLOSE_BOUND_MS))) {
      throw new Error(`the node left the connection open ${CLOSE_BOUND_MS} ms after the auth`);
    }
    node.check();
    // An input that starts with a seed's auth packet is a valid auth: the node must answer it with
    // an ack that handshake.ts accepts and frames that verify (its Hello first).
    const hs = auths().find((h) => input.length >= h.authPacket.length && hex(input).startsWith(hex(h.authPacket)));
    const got = c.rawReceived();
    if (hs === undefined) {
      if (got.length > 0) throw new Error(`the node answered an invalid auth with ${got.length} bytes`);
      return { reason: null, codes: [] };
    }
    const r = hs.readAck(got);
    if (r.kind !== "ok") throw new Error(`valid auth, bad ack: ${r.kind === "invalid" ? r.reason : "truncated"}`);
    const frames = new NodeFrames(new FrameCodec(r.secrets));
    frames.push(got.subarray(r.consumed));
    const out = framesOutcome(frames);
    if (out.codes[0] !== 0x00)
      throw new Error(`valid auth: the node's first frame is not Hello (${out.codes.join(",")})`);
    return out;
  } finally {
    c.destroy();
  }
}

function authSeeds(): Seed[] {
  const [eip8, plain] = auths();
  const garbage = new Uint8Array(64).fill(0x5c);
  return [
    // Valid auths: ack and Hello, then the handshake timeout (no Hello from us) closes without a reason.
    { name: "EIP-8 auth", input: eip8!.authPacket, reason: null, replies: [0x00] },
    { name: "pre-EIP-8 auth", input: plain!.authPacket, reason: null, replies: [0x00] },
    { name: "EIP-8 auth then garbage (bad header MAC)", input: concatBytes(eip8!.authPacket, garbage), reason: 0x02 },
    { name: "half an auth (handshake timeout)", input: eip8!.authPacket.subarray(0, 200), reason: null },
    { name: "auth size 0xffff (refused at once)", input: Uint8Array.of(0xff, 0xff, 1, 2, 3), reason: null },
  ];
}

// (b) Raw frame bytes after a valid handshake.

async function framesCase(node: Node, input: Uint8Array): Promise<Outcome> {
  const c = await Client.connect(node.port);
  try {
    await c.handshake(CLIENT_KEY);
    const wire = rekey(input.subarray(1), referenceReader(), c.writer!);
    await c.writeSplit(wire, input[0] ?? 0);
    return await settle(node, c);
  } finally {
    c.destroy();
  }
}

function frameSeeds(): Seed[] {
  const TEN_MIB = 10 * 1024 * 1024;
  /** Byte 0: the write split; then the frames the reference writer makes of `build`. */
  const seed = (split: number, build: (w: FrameWriter) => Uint8Array[]): Uint8Array =>
    concatBytes(Uint8Array.of(split), ...build(referenceWriter()));
  const session = (w: FrameWriter): Uint8Array[] => [
    w.frame(helloFrame()),
    w.frame(snappyMsg(eth(EthMsg.Status), statusPayload())),
    w.frame(snappyMsg(eth(EthMsg.GetBlockHeaders), getHeaders(1n))),
    w.frame(snappyMsg(0x02, PING)),
  ];
  // Hello, Status, BlockHeaders, Pong; then the idle timeout (we send nothing more): Ping timeout.
  const served = [0x00, eth(EthMsg.Status), eth(EthMsg.BlockHeaders), 0x03];
  const flip = (b: Uint8Array, at: number): Uint8Array => {
    const c = b.slice();
    c[at]! ^= 0x01;
    return c;
  };
  return [
    { name: "Hello, Status, GetBlockHeaders, Ping", input: seed(0, session), reason: 0x0b, replies: served },
    { name: "the same in 1-byte writes", input: seed(1, session), reason: 0x0b, replies: served },
    { name: "the same in 13-byte writes", input: seed(13, session), reason: 0x0b, replies: served },
    {
      name: "a flipped ciphertext byte in Status (bad frame MAC)",
      input: seed(0, (w) => {
        const [h, s] = session(w);
        return [h!, flip(s!, 40)];
      }),
      reason: 0x02,
      replies: [0x00],
    },
    {
      name: "a flipped header MAC on Hello",
      input: seed(0, (w) => [flip(w.frame(helloFrame()), 20)]),
      reason: 0x02,
    },
    {
      name: "a header declaring 2^24-1 bytes before Hello",
      input: seed(0, (w) => [w.header(headerPlain(MAX_FRAME_SIZE))]),
      reason: 0x02,
    },
    {
      // Under the 16 MiB bound: the node buffers what comes and waits, until the idle timeout.
      name: "Hello, then a frame declaring 10 MiB + 1 with 4 KiB of it sent",
      input: seed(0, (w) => [
        w.frame(helloFrame()),
        w.header(headerPlain(TEN_MIB + 1)),
        w.stream(new Uint8Array(4096)),
      ]),
      reason: 0x0b,
      replies: [0x00],
    },
    {
      name: "Hello, then half a Status frame",
      input: seed(0, (w) => {
        const [h, s] = session(w);
        return [h!, s!.subarray(0, 50)];
      }),
      reason: 0x0b,
      replies: [0x00],
    },
    {
      name: "Hello, then 100 bytes of garbage (bad header MAC)",
      input: seed(0, (w) => [w.frame(helloFrame()), new Uint8Array(100).fill(0xa5)]),
      reason: 0x02,
      replies: [0x00],
    },
  ];
}

// (b) Frame payloads, properly framed and encrypted.

/**
 * Input: records `kind (1) ‖ length (3, BE) ‖ data`, the last one cut at the end of the input. A kind
 * below 0x80 is a message id whose payload `data` is sent snappy-compressed; 0x80 and up send `data`
 * as the frame-data itself (id included: Hello, uncompressed or bomb payloads, bad ids).
 */
function recordFrames(input: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let p = 0; p < input.length; ) {
    const kind = input[p]!;
    const len = ((input[p + 1] ?? 0) << 16) | ((input[p + 2] ?? 0) << 8) | (input[p + 3] ?? 0);
    const data = input.subarray(p + 4, p + 4 + len);
    p += 4 + len;
    const fd = kind >= 0x80 ? data : snappyMsg(kind, data);
    out.push(fd.subarray(0, MAX_FRAME_SIZE));
  }
  return out;
}

const record = (kind: number, data: Uint8Array): Uint8Array =>
  concatBytes(Uint8Array.of(kind, data.length >>> 16, (data.length >>> 8) & 0xff, data.length & 0xff), data);
const RAW = 0x80;

async function payloadsCase(node: Node, input: Uint8Array): Promise<Outcome> {
  const c = await Client.connect(node.port);
  try {
    await c.handshake(CLIENT_KEY);
    const w = c.writer!;
    c.write(concatBytes(...recordFrames(input).map((f) => w.frame(f))));
    return await settle(node, c);
  } finally {
    c.destroy();
  }
}

function payloadSeeds(): Seed[] {
  const c = chain();
  const block1 = c.store.canonicalHash(1)!;
  const HELLO = record(RAW, helloFrame());
  const STATUS = record(eth(EthMsg.Status), statusPayload());
  const seed = (...records: Uint8Array[]): Uint8Array => concatBytes(...records);
  const SUB = DisconnectReason.SubprotocolError;
  const PROTO = DisconnectReason.ProtocolError;
  const zeros = new Uint8Array(10 * 1024 * 1024 + 1);
  return [
    {
      name: "Hello, Status, every request, tx gossip, a range update, Ping",
      input: seed(
        HELLO,
        STATUS,
        record(eth(EthMsg.GetBlockHeaders), getHeaders(1n, 0n, 16n)),
        record(eth(EthMsg.GetBlockBodies), encodeHashesRequest(2n, [block1, new Uint8Array(32)])),
        record(eth(EthMsg.GetReceipts), encodeHashesRequest(3n, [block1])),
        record(eth(EthMsg.GetPooledTransactions), encodeHashesRequest(4n, [new Uint8Array(32).fill(9)])),
        record(eth(EthMsg.Transactions), encodeTransactions([someTx()])),
        record(
          eth(EthMsg.NewPooledTransactionHashes),
          encodeNewPooledTransactionHashes(Uint8Array.of(2), [120], [new Uint8Array(32).fill(7)]),
        ),
        record(
          eth(EthMsg.BlockRangeUpdate),
          encodeBlockRangeUpdate({ earliest: 0, latest: 20, latestHash: new Uint8Array(32).fill(3) }),
        ),
        record(0x02, PING),
      ),
      // The requests are answered in order; then nothing more comes: the idle timeout.
      reason: DisconnectReason.PingTimeout,
      replies: [
        0x00,
        eth(EthMsg.Status),
        eth(EthMsg.BlockHeaders),
        eth(EthMsg.BlockBodies),
        eth(EthMsg.Receipts),
        eth(EthMsg.PooledTransactions),
        0x03,
      ],
    },
    {
      // geth: forkid.ErrLocalIncompatibleOrStale from readStatus, a protocol error → DiscSubprotocolError.
      name: "Status with another fork id",
      input: seed(
        HELLO,
        record(eth(EthMsg.Status), statusPayload({ forkId: { hash: Uint8Array.of(0xde, 0xad, 0xbe, 0xef), next: 0 } })),
      ),
      reason: SUB,
      replies: [0x00],
    },
    {
      name: "Status with another genesis",
      input: seed(HELLO, record(eth(EthMsg.Status), statusPayload({ genesis: new Uint8Array(32).fill(1) }))),
      reason: SUB,
    },
    {
      name: "Status of garbage RLP",
      input: seed(HELLO, record(eth(EthMsg.Status), Uint8Array.of(0xc5, 0x01, 0x02))),
      reason: SUB,
    },
    {
      name: "GetBlockHeaders before Status",
      input: seed(HELLO, record(eth(EthMsg.GetBlockHeaders), getHeaders(1n))),
      reason: SUB,
    },
    { name: "a second Status", input: seed(HELLO, STATUS, STATUS), reason: SUB, replies: [0x00, eth(EthMsg.Status)] },
    {
      name: "GetBlockHeaders of garbage RLP",
      input: seed(HELLO, STATUS, record(eth(EthMsg.GetBlockHeaders), Uint8Array.of(0xc3, 0xc1, 0xc0, 0x80))),
      reason: SUB,
    },
    {
      name: "NewBlockHashes (not in eth/69)",
      input: seed(HELLO, STATUS, record(eth(EthMsg.NewBlockHashes), Uint8Array.of(0xc0))),
      reason: SUB,
    },
    {
      name: "message id 0x30, outside the negotiated capabilities",
      input: seed(HELLO, STATUS, record(0x30, Uint8Array.of(0xc0))),
      reason: PROTO,
    },
    {
      name: "a snappy length bomb: 100 MiB declared in 8 bytes",
      input: seed(HELLO, record(RAW, Uint8Array.of(eth(EthMsg.Status), 0x80, 0x80, 0x80, 0x32, 0, 0, 0))),
      reason: PROTO,
    },
    {
      // Under RLPx's 16 MiB, over eth's 10 MiB (geth errMsgTooLarge → DiscSubprotocolError).
      name: "GetBlockHeaders of 10 MiB + 1 (zeros, 490 KiB compressed)",
      input: seed(HELLO, STATUS, record(RAW, snappyMsg(eth(EthMsg.GetBlockHeaders), zeros))),
      reason: SUB,
    },
    {
      name: "Status not snappy-compressed",
      input: seed(HELLO, record(RAW, concatBytes(msgId(eth(EthMsg.Status)), statusPayload()))),
      reason: PROTO,
    },
    {
      name: "an empty frame",
      input: seed(HELLO, record(RAW, new Uint8Array(0))),
      reason: PROTO,
    },
    {
      // The peer leaves: the node closes without a Disconnect of its own.
      name: "Disconnect (too many peers) from the peer",
      input: seed(HELLO, STATUS, record(0x01, encodeDisconnect(DisconnectReason.TooManyPeers))),
      reason: null,
    },
    {
      name: "Hello without a shared capability",
      input: seed(record(RAW, concatBytes(msgId(0), hello(CLIENT_ID, [{ name: "snap", version: 1 }])))),
      reason: DisconnectReason.UselessPeer,
    },
    {
      name: "Hello with another node's id",
      input: seed(record(RAW, concatBytes(msgId(0), hello(publicKeyOf(fixedKey(0x02)).subarray(1))))),
      reason: DisconnectReason.UnexpectedIdentity,
    },
    {
      name: "Hello of garbage RLP",
      input: seed(record(RAW, Uint8Array.of(0x80, 0xc3, 0x01, 0x02, 0x03))),
      reason: PROTO,
    },
  ];
}

/** The session targets, appended to FUZZ_TARGETS. */
export const SESSION_FUZZ_TARGETS: readonly FuzzTarget[] = [
  sessionTarget({ name: "devp2p RLPx session: auth bytes", seeds: authSeeds, run: authCase, maxLength: 1024 }),
  sessionTarget({
    name: "devp2p RLPx session: raw frame bytes after the handshake",
    seeds: frameSeeds,
    run: framesCase,
    maxLength: 2048,
  }),
  sessionTarget({
    name: "devp2p RLPx session: encrypted frame payloads after the handshake",
    seeds: payloadSeeds,
    run: payloadsCase,
    maxLength: 1024,
  }),
];
