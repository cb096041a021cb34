/**
 * What the `eth` protocol needs from an RLPx session for one negotiated capability: send a message,
 * receive messages, disconnect with a reason, learn of the close. Codes are relative to the
 * capability's offset; payloads are the decompressed RLP. The RLPx layer adapts to this interface.
 * Disconnect reasons: SPEC devp2p rlpx.md#disconnect-0x01.
 */

// Disconnect reasons: one table for the whole devp2p stack, RLPx's (rlpx/p2pMessages.ts).
import type { DisconnectReason } from "../rlpx/p2pMessages.js";

export interface EthSession {
  /** Stable peer id (the node id in hex) for logs, known-tx sets and the fetcher. */
  readonly id: string;
  send(code: number, payload: Uint8Array): void;
  /** Registers the one message handler; messages arrive in order. */
  onMessage(handler: (code: number, payload: Uint8Array) => void): void;
  /** Registers the close handler (either side, any cause); `reason` as sent on the wire (a peer may send any code). */
  onClose(handler: (reason: number | null) => void): void;
  /** Sends Disconnect with `reason` and closes; `detail` is for logs (geth's error text). */
  disconnect(reason: DisconnectReason, detail: string): void;
}

/** Timers the peer arms (injectable so tests drive time). */
export interface EthTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const NODE_TIMERS: EthTimers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};
