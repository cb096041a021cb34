/**
 * `opal-exec export`: canonical blocks first..last written as geth's `export` writes them
 * (cmd/utils/cmd.go ExportChain → core.BlockChain.ExportN): each block's RLP, concatenated, gzip for
 * a `.gz` name. Streams block by block from the store (headers and bodies as stored, no decode), with
 * geth's progress line every 8 seconds.
 */
import type { ChainStore } from "../../chain/chainStore.js";
import { decodeHeader as rlpHeader } from "../../rlp/decode.js";
import { headerLength, writeHeader } from "../../rlp/encode.js";
import type { Logger } from "../../util/log.js";
import { BlockFileWriter } from "./blockFile.js";

/** geth core/blockchain.go ExportN: `statsReportLimit` between progress lines. */
export const EXPORT_REPORT_MS = 8_000;

export class ExportError extends Error {
  override readonly name = "ExportError";
}

export interface ExportResult {
  readonly first: number;
  readonly last: number;
  readonly blocks: number;
  /** Bytes of RLP written (before compression). */
  readonly bytes: number;
}

/**
 * The block's RLP from its stored header and body RLP: list(header, ...body fields), the bytes
 * `encodeBlock` would give, without decoding either part.
 */
export function storedBlockRlp(headerRlp: Uint8Array, bodyRlp: Uint8Array): Uint8Array {
  const h = rlpHeader(bodyRlp, 0);
  if (!h.list) throw new ExportError("stored body is not an RLP list");
  const bodyPayload = bodyRlp.subarray(h.start, h.start + h.length);
  const payload = headerRlp.length + bodyPayload.length;
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  out.set(headerRlp, pos);
  pos += headerRlp.length;
  out.set(bodyPayload, pos);
  return out;
}

/**
 * The lowest canonical block: 0 for a chain from genesis, the base block for a state imported with
 * `init-state`. The canonical index is contiguous from there to the head, so a binary search finds it.
 */
export function lowestCanonical(store: ChainStore, head: number): number {
  if (store.canonicalHash(0) !== null) return 0;
  let lo = 0;
  let hi = head;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (store.canonicalHash(mid) === null) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Writes canonical blocks `first..last` (inclusive) to `path`. */
export async function exportChain(
  store: ChainStore,
  path: string,
  first: number,
  last: number,
  log: Logger,
  now: () => number = Date.now,
): Promise<ExportResult> {
  if (first > last) throw new ExportError(`first (${first}) is greater than last (${last})`);
  log.info("Exporting batch of blocks", { count: last - first + 1 });
  const started = now();
  let reported = started;
  const out = new BlockFileWriter(path);
  let blocks = 0;
  try {
    for (let n = first; n <= last; n++) {
      const hash = store.canonicalHash(n);
      const header = hash === null ? undefined : store.headerRlp(hash);
      const body = hash === null ? undefined : store.bodyRlp(hash);
      if (hash === null || header === undefined || body === undefined)
        throw new ExportError(`export failed on #${n}: not found`);
      await out.write(storedBlockRlp(header, body));
      blocks++;
      const t = now();
      if (t - reported >= EXPORT_REPORT_MS) {
        log.info("Exporting blocks", { exported: blocks, number: n, elapsed: `${t - started}ms` });
        reported = t;
      }
    }
    await out.close();
  } catch (e) {
    out.destroy();
    throw e;
  }
  log.info("Exported blockchain", { file: path, blocks, first, last, elapsed: `${now() - started}ms` });
  return { first, last, blocks, bytes: out.bytes };
}
