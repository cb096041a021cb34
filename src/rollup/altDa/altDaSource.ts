/**
 * Alt-DA in the data source (op-node derive/altda_data_source.go): every L1 block first advances
 * the DA manager (challenge events, expiries), then each batcher payload with version byte 0x01 is a
 * commitment resolved to its input through the DA server. A malformed commitment, a commitment of
 * the wrong type, an expired challenge or an oversized input is skipped with a warning; an input
 * still pending a challenge stops derivation with a temporary error until L1 moves on.
 */
import { bytesToHex } from "../../primitives/hex.js";
import type { AltDaResolver } from "../derive/dataSource.js";
import { temporaryError } from "../derive/errors.js";
import type { L1BlockRef } from "../refs.js";
import { AltDaCommitmentError, decodeCommitmentTxData } from "./commitment.js";
import type { AltDaManager } from "./daState.js";

export class AltDaSource implements AltDaResolver {
  constructor(
    private readonly manager: AltDaManager,
    private readonly warn: (msg: string, ctx?: Record<string, unknown>) => void = () => undefined,
  ) {}

  advance(l1: L1BlockRef): Promise<void> {
    return this.manager.advanceL1Origin(l1);
  }

  async resolve(l1: L1BlockRef, payload: Uint8Array): Promise<Uint8Array | null> {
    let commitment: ReturnType<typeof decodeCommitmentTxData>;
    try {
      commitment = decodeCommitmentTxData(payload);
    } catch (e) {
      if (!(e instanceof AltDaCommitmentError)) throw e;
      this.warn("ignoring malformed altDA commitment", { l1: l1.number, err: e.message });
      return null;
    }
    const r = await this.manager.getInput(commitment, l1);
    if (r.kind === "data") return r.data;
    if (r.kind === "skip") {
      this.warn("skipping altDA input", { l1: l1.number, reason: r.reason, commitment: bytesToHex(commitment.data) });
      return null;
    }
    throw temporaryError(`altDA input at L1 block ${l1.number} is pending a challenge`);
  }
}
