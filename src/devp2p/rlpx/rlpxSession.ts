/**
 * One RLPx connection over a socket (SPEC: devp2p rlpx.md): the encryption handshake, Hello,
 * snappy after Hello when both sides speak p2p v5, Ping/Pong, Disconnect, and the capability
 * messages of the negotiated protocols, emitted as (capability, code, payload) with the code
 * relative to the capability. Bytes from the peer are parsed synchronously as they arrive; every
 * malformed input ends the session with a Disconnect reason (when keys exist) and a destroyed
 * socket, never an exception out of the data handler.
 */
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { SnappyError, snappyCompress, snappyUncompress, snappyUncompressedLength } from "../../primitives/snappy.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import { publicKeyOf } from "./ecies.js";
import { FRAME_HEADER_LENGTH, FrameCodec, FrameStatus, frameBodyLength, MAX_FRAME_SIZE } from "./frameCodec.js";
import { InitiatorHandshake, respondToAuth } from "./handshake.js";
import {
  BASE_PROTOCOL_MAX_MSG_SIZE,
  BASE_PROTOCOL_VERSION,
  type Capability,
  DisconnectReason,
  decodeDisconnect,
  decodeHello,
  EMPTY_LIST_PAYLOAD,
  encodeDisconnect,
  encodeHello,
  type Hello,
  negotiateCapabilities,
  P2pMessage,
  type SharedCapability,
} from "./p2pMessages.js";

/**
 * Largest decompressed message: 16 MiB, the bound geth applies after snappy (p2p/rlpx/rlpx.go
 * `maxUint24`, errPlainMessageTooLarge) and rlpx.md's "larger than 16 MiB should be rejected".
 */
export const DEFAULT_MAX_MESSAGE_SIZE = 0xffffff;
/** Encryption handshake and Hello together (geth p2p/transport.go `handshakeTimeout`, 5 s). */
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 5_000;
/** Ping period (geth p2p/peer.go `pingInterval`, 15 s). */
export const DEFAULT_PING_INTERVAL_MS = 15_000;
/** No frame for this long ends the session (geth p2p/transport.go `frameReadTimeout`, 30 s). */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/** After sending Disconnect, how long the socket may take to flush (geth `discWriteTimeout`, 1 s). */
const DISCONNECT_FLUSH_MS = 1_000;
/**
 * Unsent bytes above which the session stops reading the peer until its socket drains. geth writes
 * synchronously: a handler blocked writing to a peer that does not read stops reading that peer (and
 * `frameWriteTimeout` drops it; here the idle timeout does). Without the mark, a peer that sends
 * small requests and never reads the answers grows our write buffer without bound.
 */
export const WRITE_HIGH_WATER = 4 * 1024 * 1024;

export interface RlpxSessionOptions {
  /** This node's 32-byte secp256k1 key. */
  privateKey: Uint8Array;
  /** The 64-byte id of the node dialled; null for an inbound connection. */
  remoteId: Uint8Array | null;
  clientId: string;
  capabilities: readonly Capability[];
  /** Advertised in Hello (legacy; 0 when not listening). */
  listenPort: number;
  maxMessageSize?: number;
  handshakeTimeoutMs?: number;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
}

export interface RlpxCloseInfo {
  /** The Disconnect reason sent or received, or null when the socket ended without one. */
  reason: number | null;
  /** True when the peer sent the Disconnect. */
  remote: boolean;
  /** What went wrong locally (decode error, timeout, socket error), or null. */
  error: string | null;
}

export interface RlpxSessionEvents {
  /** Hello exchanged: `remoteHello` and `capabilities` are set. */
  ready: [];
  /** A capability message: `code` is relative to the capability (0 = its first message). */
  message: [cap: string, code: number, payload: Uint8Array];
  close: [info: RlpxCloseInfo];
}

const State = { Auth: 0, Ack: 1, Hello: 2, Active: 3, Closed: 4 } as const;
type State = (typeof State)[keyof typeof State];

/** Snappy's worst-case output for `n` input bytes (32 + n + n/6, the reference bound). */
function snappyMaxCompressed(n: number): number {
  return 32 + n + Math.ceil(n / 6);
}

/** Reads an RLP-encoded message id at the start of `b`: [id, bytes] or null. */
function readMsgId(b: Uint8Array): [number, number] | null {
  if (b.length === 0) return null;
  const first = b[0]!;
  if (first < 0x80) return [first, 1];
  if (first === 0x80) return [0, 1];
  const n = first - 0x80;
  if (n > 6 || b.length < 1 + n || b[1] === 0) return null;
  if (n === 1 && b[1]! < 0x80) return null;
  let v = 0;
  for (let i = 1; i <= n; i++) v = v * 256 + b[i]!;
  return [v, 1 + n];
}

export class RlpxSession extends EventEmitter<RlpxSessionEvents> {
  /** The remote Hello, once received. */
  remoteHello: Hello | null = null;
  /** Negotiated capabilities, once Hello is exchanged. */
  capabilities: readonly SharedCapability[] = [];
  /** The remote node id: known up front when dialling, from the auth when accepting. */
  remoteId: Uint8Array | null;
  readonly localId: Uint8Array;
  private state: State;
  private codec: FrameCodec | null = null;
  private initiator: InitiatorHandshake | null = null;
  private snappy = false;
  private buf = new Uint8Array(4096);
  private rpos = 0;
  private wpos = 0;
  private pendingSize = -1;
  /** Set between `ready` and the next macrotask: see handleHello. */
  private paused = false;
  /** Set while more than WRITE_HIGH_WATER waits to be sent: the peer is not read until it drains. */
  private draining = false;
  /**
   * Bytes the auth or ack needs before it is read again: each read may cost an ECIES decrypt (~2 ms),
   * so a peer dribbling its packet a byte at a time gets a few reads, not one per byte.
   */
  private handshakeNeed = 0;
  /** Times the auth or ack was parsed (each may be an ECIES decrypt): for tests and metrics. */
  handshakeReads = 0;
  private closeInfo: RlpxCloseInfo | null = null;
  private handshakeTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private lastRecv = Date.now();
  private lastPing = 0;
  private readonly maxMessageSize: number;
  private readonly log: Logger;

  constructor(
    readonly socket: Socket,
    private readonly opts: RlpxSessionOptions,
    deps: { log?: Logger } = {},
  ) {
    super();
    this.log = deps.log ?? SILENT_LOGGER;
    this.remoteId = opts.remoteId;
    this.localId = publicKeyOf(opts.privateKey).subarray(1);
    this.maxMessageSize = Math.min(opts.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_MAX_MESSAGE_SIZE);
    this.state = opts.remoteId === null ? State.Auth : State.Ack;
  }

  /** Attaches to the socket and starts the handshake (sends auth when dialling). */
  start(): void {
    const s = this.socket;
    s.setNoDelay(true);
    s.on("data", (chunk: Buffer) => this.onData(chunk));
    s.on("error", (err) => this.noteError(`socket: ${err.message}`));
    s.on("close", () => this.onClose());
    this.handshakeTimer = setTimeout(
      () => this.fail(null, "handshake timeout"),
      this.opts.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
    );
    if (this.state === State.Ack) {
      try {
        this.initiator = new InitiatorHandshake(this.opts.privateKey, this.opts.remoteId!);
      } catch (e) {
        this.fail(null, (e as Error).message);
        return;
      }
      this.write(this.initiator.authPacket);
    }
  }

  get isReady(): boolean {
    return this.state === State.Active;
  }

  get closed(): boolean {
    return this.state === State.Closed;
  }

  /**
   * Sends a capability message (`code` relative to the capability). False when the session is not
   * active; a RangeError for an unknown capability, a code outside it, or an oversized payload.
   */
  send(cap: string, code: number, payload: Uint8Array): boolean {
    if (this.state !== State.Active) return false;
    const c = this.capabilities.find((x) => x.name === cap);
    if (c === undefined) throw new RangeError(`rlpx: capability ${cap} not negotiated`);
    if (!Number.isInteger(code) || code < 0 || code >= c.length) {
      throw new RangeError(`rlpx: code ${code} outside ${cap}/${c.version}`);
    }
    if (payload.length > this.maxMessageSize) throw new RangeError(`rlpx: message of ${payload.length} bytes`);
    this.sendMessage(c.offset + code, payload);
    return true;
  }

  /** Sends Disconnect (when keys exist) and closes the socket. Idempotent. */
  disconnect(reason: number = DisconnectReason.Requested): void {
    this.end(reason, null);
  }

  // --- ingress ---

  private onData(chunk: Uint8Array): void {
    if (this.state === State.Closed) return;
    this.lastRecv = Date.now();
    this.append(chunk);
    if (!this.paused && !this.draining) this.process();
  }

  private append(chunk: Uint8Array): void {
    if (this.wpos + chunk.length > this.buf.length) {
      const live = this.wpos - this.rpos;
      if (live + chunk.length <= this.buf.length && this.rpos > 0) {
        this.buf.copyWithin(0, this.rpos, this.wpos);
      } else {
        const grown = new Uint8Array(Math.max(this.buf.length * 2, live + chunk.length));
        grown.set(this.buf.subarray(this.rpos, this.wpos));
        this.buf = grown;
      }
      this.rpos = 0;
      this.wpos = live;
    }
    this.buf.set(chunk, this.wpos);
    this.wpos += chunk.length;
  }

  private process(): void {
    while (this.state !== State.Closed && !this.paused && !this.draining) {
      if (this.socket.writableLength > WRITE_HIGH_WATER) {
        this.awaitDrain();
        return;
      }
      const avail = this.buf.subarray(this.rpos, this.wpos);
      if (this.state === State.Auth || this.state === State.Ack) {
        if (avail.length < this.handshakeNeed) return;
        this.handshakeReads++;
        const auth = this.state === State.Auth;
        const r = auth ? respondToAuth(this.opts.privateKey, avail) : this.initiator!.readAck(avail);
        if (r.kind === "need") {
          this.handshakeNeed = r.bytes;
          return;
        }
        if (r.kind === "invalid") {
          this.fail(null, r.reason);
          return;
        }
        this.rpos += r.consumed;
        if ("ackPacket" in r && r.ackPacket instanceof Uint8Array) {
          // Recipient: the initiator's id comes with its auth; the ack answers it.
          this.remoteId = r.secrets.remoteId;
          this.write(r.ackPacket);
        }
        this.initiator = null;
        this.codec = new FrameCodec(r.secrets);
        this.state = State.Hello;
        this.sendHello();
        continue;
      }
      // Frames.
      if (this.pendingSize < 0) {
        if (avail.length < FRAME_HEADER_LENGTH) return;
        const size = this.codec!.decodeHeader(avail.subarray(0, FRAME_HEADER_LENGTH));
        if (size === FrameStatus.BadHeaderMac) {
          this.fail(DisconnectReason.ProtocolError, "bad header MAC");
          return;
        }
        if (size > this.maxFrameSize()) {
          this.fail(DisconnectReason.ProtocolError, `frame of ${size} bytes exceeds the limit`);
          return;
        }
        this.rpos += FRAME_HEADER_LENGTH;
        this.pendingSize = size;
        continue;
      }
      const need = frameBodyLength(this.pendingSize);
      if (avail.length < need) return;
      const data = this.codec!.decodeBody(avail.subarray(0, need), this.pendingSize);
      if (data === FrameStatus.BadFrameMac) {
        this.fail(DisconnectReason.ProtocolError, "bad frame MAC");
        return;
      }
      this.rpos += need;
      this.pendingSize = -1;
      this.handleFrame(data as Uint8Array);
    }
  }

  /** Frame-size bound: Hello is small (geth: 2 KiB); later frames carry at most a max message, maybe compressed. */
  private maxFrameSize(): number {
    if (this.state === State.Hello) return BASE_PROTOCOL_MAX_MSG_SIZE + 9;
    const body = this.snappy ? snappyMaxCompressed(this.maxMessageSize) : this.maxMessageSize;
    return Math.min(MAX_FRAME_SIZE, body + 9);
  }

  /** Stops reading the peer until what we owe it is sent (WRITE_HIGH_WATER); then goes on parsing. */
  private awaitDrain(): void {
    this.draining = true;
    this.socket.pause();
    this.socket.once("drain", () => {
      this.draining = false;
      if (this.state === State.Closed) return;
      this.socket.resume();
      if (!this.paused) this.process();
    });
  }

  private handleFrame(frame: Uint8Array): void {
    const id = readMsgId(frame);
    if (id === null) {
      this.fail(DisconnectReason.ProtocolError, "bad message id");
      return;
    }
    const [code, idLen] = id;
    let payload = frame.subarray(idLen);
    if (this.snappy) {
      const raw = payload;
      const declared = snappyUncompressedLength(raw);
      const limit = code < 16 ? BASE_PROTOCOL_MAX_MSG_SIZE : this.maxMessageSize;
      if (declared instanceof SnappyError) {
        if (code !== P2pMessage.Disconnect) {
          this.fail(DisconnectReason.ProtocolError, declared.message);
          return;
        }
      } else if (declared > limit) {
        this.fail(DisconnectReason.ProtocolError, `message of ${declared} bytes exceeds the limit`);
        return;
      } else {
        const d = snappyUncompress(raw, limit);
        if (d instanceof SnappyError) {
          // Disconnect may arrive uncompressed (ethereumjs sends it raw); every other message must decode.
          if (code !== P2pMessage.Disconnect) {
            this.fail(DisconnectReason.ProtocolError, d.message);
            return;
          }
        } else payload = d;
      }
    } else if (code < 16 && payload.length > BASE_PROTOCOL_MAX_MSG_SIZE) {
      this.fail(DisconnectReason.ProtocolError, "p2p message too large");
      return;
    }

    if (this.state === State.Hello) {
      if (code === P2pMessage.Disconnect) {
        this.remoteDisconnect(payload);
        return;
      }
      if (code !== P2pMessage.Hello) {
        this.fail(DisconnectReason.ProtocolError, `message ${code} before Hello`);
        return;
      }
      this.handleHello(payload);
      return;
    }
    switch (code) {
      case P2pMessage.Disconnect: {
        this.remoteDisconnect(payload);
        return;
      }
      case P2pMessage.Ping:
        this.sendMessage(P2pMessage.Pong, EMPTY_LIST_PAYLOAD);
        return;
      case P2pMessage.Pong:
        return;
    }
    // SPEC: other "p2p" ids (a second Hello, reserved 0x04–0x0f) are ignored, as geth's peer.go does.
    if (code < 16) return;
    for (const c of this.capabilities) {
      if (code >= c.offset && code < c.offset + c.length) {
        this.emit("message", c.name, code - c.offset, payload);
        return;
      }
    }
    this.fail(DisconnectReason.ProtocolError, `message id ${code} outside the negotiated capabilities`);
  }

  private handleHello(payload: Uint8Array): void {
    const h = decodeHello(payload);
    if (h === null) {
      this.fail(DisconnectReason.ProtocolError, "malformed Hello");
      return;
    }
    if (h.nodeId.every((b) => b === 0)) {
      this.fail(DisconnectReason.NullIdentity, "null node id in Hello");
      return;
    }
    if (equal(h.nodeId, this.localId)) {
      this.fail(DisconnectReason.SelfConnection, "connected to self");
      return;
    }
    if (!equal(h.nodeId, this.remoteId!)) {
      this.fail(DisconnectReason.UnexpectedIdentity, "Hello node id differs from the handshake key");
      return;
    }
    const shared = negotiateCapabilities(this.opts.capabilities, h.capabilities);
    if (shared.length === 0 && this.opts.capabilities.length > 0) {
      this.fail(DisconnectReason.UselessPeer, "no shared capability");
      return;
    }
    this.remoteHello = h;
    this.capabilities = shared;
    this.snappy = h.protocolVersion >= 5;
    this.state = State.Active;
    if (this.handshakeTimer !== null) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = null;
    const ping = this.opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    const idle = this.opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.lastPing = Date.now();
    this.pingTimer = setInterval(() => this.tick(ping, idle), Math.max(10, Math.min(ping, idle) / 2));
    this.log.debug("RLPx session ready", { client: h.clientId, caps: shared.map((c) => `${c.name}/${c.version}`) });
    // Frames that arrived with the Hello wait one macrotask: whoever awaits `ready` (dialRlpx's
    // promise) attaches its message handlers in a microtask, before the buffer is parsed further.
    this.paused = true;
    setImmediate(() => {
      this.paused = false;
      this.process();
    });
    this.emit("ready");
  }

  private tick(ping: number, idle: number): void {
    const now = Date.now();
    if (now - this.lastRecv >= idle) {
      this.fail(DisconnectReason.PingTimeout, "idle timeout");
      return;
    }
    if (now - this.lastPing >= ping) {
      this.lastPing = now;
      this.sendMessage(P2pMessage.Ping, EMPTY_LIST_PAYLOAD);
    }
  }

  private remoteDisconnect(payload: Uint8Array): void {
    const reason = decodeDisconnect(payload);
    this.closeInfo ??= { reason: reason ?? DisconnectReason.ProtocolError, remote: true, error: null };
    this.shutdown(false);
  }

  // --- egress ---

  private sendHello(): void {
    const payload = encodeHello({
      protocolVersion: BASE_PROTOCOL_VERSION,
      clientId: this.opts.clientId,
      capabilities: this.opts.capabilities.map((c) => ({ name: c.name, version: c.version })),
      listenPort: this.opts.listenPort,
      nodeId: this.localId,
    });
    this.sendMessage(P2pMessage.Hello, payload);
  }

  /** Frames `rlp(code) ‖ payload`, compressing the payload after Hello when snappy is on. */
  private sendMessage(code: number, payload: Uint8Array): void {
    if (this.codec === null || this.socket.destroyed || this.socket.writableEnded) return;
    const body = this.snappy ? snappyCompress(payload) : payload;
    const idLen = code === 0 ? 1 : code < 0x80 ? 1 : code < 0x100 ? 2 : code < 0x10000 ? 3 : 4;
    const frame = new Uint8Array(idLen + body.length);
    if (code === 0) frame[0] = 0x80;
    else if (code < 0x80) frame[0] = code;
    else {
      frame[0] = 0x80 + idLen - 1;
      for (let i = idLen - 1, v = code; i >= 1; i--, v >>>= 8) frame[i] = v & 0xff;
    }
    frame.set(body, idLen);
    this.write(this.codec.encode(frame));
  }

  private write(bytes: Uint8Array): void {
    if (!this.socket.destroyed && !this.socket.writableEnded) this.socket.write(bytes);
  }

  // --- teardown ---

  private noteError(msg: string): void {
    if (this.closeInfo === null) this.closeInfo = { reason: null, remote: false, error: msg };
  }

  private fail(reason: number | null, error: string): void {
    this.log.debug("RLPx session failed", { error, reason });
    this.end(reason, error);
  }

  private end(reason: number | null, error: string | null): void {
    if (this.state === State.Closed) return;
    this.closeInfo ??= { reason, remote: false, error };
    // SPEC: Disconnect is framed, so it needs keys; before them the socket just closes.
    if (reason !== null && this.codec !== null) {
      this.sendMessage(P2pMessage.Disconnect, encodeDisconnect(reason));
      this.shutdown(true);
    } else this.shutdown(false);
  }

  /** Stops everything; `flush` lets the Disconnect frame drain before the socket is destroyed. */
  private shutdown(flush: boolean): void {
    this.state = State.Closed;
    this.clearTimers();
    this.buf = new Uint8Array(0);
    this.rpos = this.wpos = 0;
    if (flush && !this.socket.destroyed) {
      this.socket.end();
      this.flushTimer = setTimeout(() => this.socket.destroy(), DISCONNECT_FLUSH_MS);
    } else this.socket.destroy();
  }

  private clearTimers(): void {
    if (this.handshakeTimer !== null) clearTimeout(this.handshakeTimer);
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.handshakeTimer = this.pingTimer = null;
  }

  private onClose(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.state !== State.Closed) {
      this.state = State.Closed;
      this.clearTimers();
    }
    const info = this.closeInfo ?? { reason: null, remote: false, error: "socket closed" };
    this.emit("close", info);
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
