/**
 * The memory a node holds for replies its clients have not taken yet (issue 26): each HTTP and
 * WebSocket connection counts the reply bytes written to its socket and not yet flushed to the OS;
 * one `ReplyBacklog` per node sums them. A write that would take a connection past `perConnection`,
 * or all of them past `total`, drops that connection instead (as the WebSocket write timeout drops
 * a peer that stops reading), so clients that ask and never read cannot grow the node's memory
 * past `total` however many they are.
 */

export interface ReplyBacklogOptions {
  /** Unflushed reply bytes one connection may hold. */
  readonly perConnection: number;
  /** Unflushed reply bytes all connections may hold together. */
  readonly total: number;
}

/**
 * 32 MiB a connection: one reply at the default reply cap (25,000,000 characters,
 * `--rpc.batch-response-max-size`) always fits. 128 MiB in all: five such replies, a fraction of
 * what a node's heap and caches take, so a crowd of non-reading clients costs at most that.
 */
export const DEFAULT_REPLY_BACKLOG: ReplyBacklogOptions = Object.freeze({
  perConnection: 32 * 1024 * 1024,
  total: 128 * 1024 * 1024,
});

export class ReplyBacklog {
  readonly opts: ReplyBacklogOptions;
  /** Bytes held now, over all connections. */
  held = 0;
  /** Connections dropped for going over a bound. */
  dropped = 0;

  constructor(opts: Partial<ReplyBacklogOptions> = {}) {
    this.opts = Object.freeze({ ...DEFAULT_REPLY_BACKLOG, ...opts });
  }

  /**
   * Takes `n` more bytes for a connection that holds `connHeld`; false (and the drop counted) when
   * that is over either bound: the caller then drops the connection without writing.
   */
  take(connHeld: number, n: number): boolean {
    if (connHeld + n > this.opts.perConnection || this.held + n > this.opts.total) {
      this.dropped++;
      return false;
    }
    this.held += n;
    return true;
  }

  /** Gives back `n` bytes (flushed, or their connection closed). */
  give(n: number): void {
    this.held -= n;
  }
}

/**
 * The bounds for servers whose replies are held to `replyMaxSize` characters (0 = unlimited): the
 * defaults, raised so that one reply at the cap (plus its envelope) always fits a connection.
 */
export function backlogBounds(replyMaxSize: number): ReplyBacklogOptions {
  const d = DEFAULT_REPLY_BACKLOG;
  const perConnection = replyMaxSize === 0 ? d.total : Math.max(d.perConnection, replyMaxSize + 1024 * 1024);
  return { perConnection, total: Math.max(d.total, perConnection) };
}
