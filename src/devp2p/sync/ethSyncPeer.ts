/**
 * The downloader's view of an eth/68–69 peer: `SyncPeer` over an `EthPeer`. Requests map one to
 * one onto GetBlockHeaders / GetBlockBodies / GetReceipts; the answers' items are handed on as the
 * RLP the peer sent (the downloader decodes and hashes them itself). A Useless fault drops the peer
 * with geth's subprotocol-error reason; a Slow one is only counted here (the downloader rests the
 * peer itself), and after SLOW_FAULTS_DROP of them the peer is let go politely, as geth's downloader
 * drops peers that keep timing out.
 */
import type { EthPeer } from "../eth/ethPeer.js";
import { PeerFault, type SyncPeer } from "./syncPeer.js";

/** Slow answers (timeouts, empty answers) after which a peer is disconnected. */
export const SLOW_FAULTS_DROP = 8;

export class EthSyncPeer implements SyncPeer {
  readonly id: string;
  private slow = 0;

  constructor(private readonly peer: EthPeer) {
    this.id = peer.id;
  }

  /** eth/69: the served range's latest block (kept current by BlockRangeUpdate); eth/68: the Status head hash. */
  get head(): { readonly hash: Uint8Array; readonly number: number | null } {
    const range = this.peer.range;
    if (range !== null) return { hash: range.latestHash, number: range.latest };
    const s = this.peer.remoteStatus;
    if (s !== null && s.form === 68) return { hash: s.head, number: null };
    return { hash: new Uint8Array(32), number: null };
  }

  async headers(origin: Uint8Array | number, count: number, skip: number, reverse: boolean): Promise<Uint8Array[]> {
    const r = await this.peer.requestHeaders({ origin, amount: count, skip, reverse });
    return [...r.rlp];
  }

  async bodies(hashes: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const r = await this.peer.requestBodies(hashes);
    return [...r.rlp];
  }

  penalize(fault: PeerFault, reason: string): void {
    if (fault === PeerFault.Useless) {
      this.peer.misbehaved(reason);
      return;
    }
    if (++this.slow >= SLOW_FAULTS_DROP) this.peer.close();
  }
}
