/**
 * The L1 as derivation reads it (op-node confdepth.go over sources.L1Client): block references by
 * number behind a confirmation depth (`--verifier.l1-confs`, `--sequencer.l1-confs`: a block is
 * visible once `depth` blocks sit on top of it), headers as `L1Info`, transactions and receipts —
 * each verified against its header by the L1 client unless `--l1.trustrpc`.
 */
import type { Receipt } from "../../block/receipt.js";
import type { Tx } from "../../tx/tx.js";
import type { L1Info } from "../derive/attributes.js";
import type { L1BlockRef } from "../refs.js";
import type { L1BlockInfo } from "../transport/ethJson.js";
import { type L1Client, L1NotFoundError } from "./l1Client.js";

export function l1InfoOf(b: L1BlockInfo): L1Info {
  const h = b.header;
  return {
    hash: b.hash,
    number: h.number,
    parentHash: h.parentHash,
    timestamp: h.timestamp,
    baseFee: h.baseFeePerGas ?? 0n,
    mixHash: h.mixHash,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
  };
}

export class L1Source {
  constructor(
    readonly client: L1Client,
    private readonly confDepth: number,
    /** The newest L1 head the node has seen; null before the first poll. */
    private readonly head: () => L1BlockRef | null,
  ) {}

  /** The canonical block at `n`, or null when it is not visible yet (beyond the head or the depth). */
  async l1BlockRefByNumber(n: number): Promise<L1BlockRef | null> {
    if (this.confDepth > 0 && n > 0) {
      const head = this.head();
      if (head === null || n + this.confDepth > head.number) return null;
    }
    try {
      return await this.client.l1BlockRefByNumber(n);
    } catch (e) {
      if (e instanceof L1NotFoundError) return null;
      throw e;
    }
  }

  l1BlockRefByHash(hash: Uint8Array): Promise<L1BlockRef> {
    return this.client.l1BlockRefByHash(hash);
  }

  async receiptsByHash(hash: Uint8Array): Promise<readonly Receipt[]> {
    return (await this.client.fetchReceipts(hash)).receipts;
  }

  async txsByHash(hash: Uint8Array): Promise<readonly Tx[]> {
    return (await this.client.infoAndTxsByHash(hash)).txs;
  }

  async infoByHash(hash: Uint8Array): Promise<L1Info> {
    return l1InfoOf(await this.client.infoByHash(hash));
  }

  async fetchReceipts(hash: Uint8Array): Promise<{ info: L1Info; receipts: readonly Receipt[] }> {
    const r = await this.client.fetchReceipts(hash);
    return { info: l1InfoOf(r.info), receipts: r.receipts };
  }
}
