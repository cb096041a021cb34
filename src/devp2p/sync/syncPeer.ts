/**
 * SyncPeer: what the execution-layer downloader (downloader.ts) needs from a peer, and nothing
 * more, so it runs over the eth/68–69 `EthPeer` (devp2p/eth) in the node and over in-process fakes
 * in tests. The requests are eth's GetBlockHeaders / GetBlockBodies / GetReceipts
 * (SPEC: devp2p caps/eth.md); answers are the response list's items, still RLP-encoded, because
 * the downloader decodes and hashes them itself (a header's hash is keccak of exactly those bytes).
 */

/** How bad a peer's answer was: the downloader's verdict, the peer set's to act on. */
export enum PeerFault {
  /** No answer in time, or an empty answer for data the peer should have: lower its score. */
  Slow = 0,
  /** The answer contradicts itself or the chain being synced (headers that do not link, bodies
   * that do not match their headers, undecodable items): disconnect (eth: subprotocol error). */
  Useless = 1,
}

/**
 * A remote peer as the downloader sees it. Requests may reject (peer gone, timeout inside the
 * peer); the downloader adds its own per-request deadline and treats a rejection like an empty
 * answer. An answer may be shorter than asked (eth's soft limits), never longer.
 */
export interface SyncPeer {
  /** Stable identifier for logs and bookkeeping (the node id as hex, for an EthPeer). */
  readonly id: string;
  /**
   * The newest block the peer has told of: eth/69 Status and BlockRangeUpdate carry its number;
   * eth/68 Status only its hash (number null). The downloader asks a peer for blocks above a known
   * head number only when no other peer can serve them.
   */
  readonly head: { readonly hash: Uint8Array; readonly number: number | null };
  /**
   * GetBlockHeaders: up to `count` headers from `origin` (a block hash or number), every
   * `skip + 1`-th block, descending when `reverse`. Resolves to the headers' RLP, in answer order.
   */
  headers(origin: Uint8Array | number, count: number, skip: number, reverse: boolean): Promise<Uint8Array[]>;
  /** GetBlockBodies: the bodies of `hashes`, each `rlp([txs, ommers, withdrawals?])`, a prefix of the list. */
  bodies(hashes: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /**
   * GetReceipts: each block's receipt list RLP. Optional: the executing downloader recomputes
   * receipts and does not ask; a stage that imports without executing would.
   */
  receipts?(hashes: readonly Uint8Array[]): Promise<Uint8Array[]>;
  /** Reports a bad answer; with PeerFault.Useless the peer is disconnected (and never asked again here). */
  penalize(fault: PeerFault, reason: string): void;
}
