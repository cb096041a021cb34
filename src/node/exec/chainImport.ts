/**
 * `opal-exec import`: block files (geth's `export` format, gzip accepted; blockFile.ts) fed through
 * the node's normal block import (`Blockchain.insertBlock`: validation, execution, state root) and
 * made canonical in batches, as geth's ImportChain (cmd/utils/cmd.go: `importBatchSize` 2500).
 * Streaming: one block in memory at a time. Resumable: blocks already stored are skipped (KNOWN),
 * so a run stopped midway picks up where it ended. A block that does not link to a stored parent,
 * an invalid block, or a file that does not parse stops the run; every block before it stays
 * imported and canonical.
 */
import { blockHeaderRlp, decodeBlock } from "../../block/block.js";
import { decodeHeader } from "../../block/header.js";
import type { Blockchain } from "../../chain/blockchain.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { type SenderSource, startSharedRecovery } from "../../tx/sharedRecovery.js";
import type { Logger } from "../../util/log.js";
import type { TaskPool } from "../../util/taskPool.js";
import { BlockFileError, readBlockFile } from "./blockFile.js";

/** geth cmd/utils/cmd.go importBatchSize: blocks made canonical (and reported) together. */
export const IMPORT_BATCH = 2500;

export class ImportError extends Error {
  override readonly name = "ImportError";
}

export interface ImportResult {
  /** Blocks executed and stored by this run. */
  readonly imported: number;
  /** Blocks found already stored and skipped. */
  readonly skipped: number;
  readonly headNumber: number;
  readonly headHash: Uint8Array;
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

/**
 * The block's senders, recovered by `pool` from the txs' raw bytes while it executes (the importing
 * thread takes any it reaches first, and decodes the txs once, in insertBlock); null when the block
 * does not decode, so insertBlock reports why, or when it was
 * executed already (a resumed run), so it is KNOWN with nothing to recover.
 */
function sendersAlongside(chain: Blockchain, rlp: Uint8Array, pool: TaskPool): SenderSource | null {
  try {
    if (chain.isExecuted(keccak256(blockHeaderRlp(rlp)))) return null;
    const raw = decodeBlock(rlp).body.transactions; // envelopes as views: the workers read them as bytes
    return raw.length === 0 ? null : startSharedRecovery(raw, pool);
  } catch {
    return null;
  }
}

/** Imports every block of `files` in order; throws ImportError naming the file and block that stopped it. */
export async function importChain(
  chain: Blockchain,
  files: readonly string[],
  log: Logger,
  opts: {
    readonly batch?: number;
    readonly now?: () => number;
    /** Recovers each block's senders alongside its execution (tx/sharedRecovery.ts); null: inline. */
    readonly recoveryPool?: TaskPool | null;
  } = {},
): Promise<ImportResult> {
  const batchSize = opts.batch ?? IMPORT_BATCH;
  const now = opts.now ?? Date.now;
  const started = now();
  let imported = 0;
  let skipped = 0;
  // The batch not yet made canonical: its last block, and whether it executed any block.
  let last: Uint8Array | null = null;
  let lastNumber = -1;
  let pendingValid = false;
  let inBatch = 0;
  let batchTxs = 0;
  let batchGas = 0;
  let batchStart = started;

  const commit = (): void => {
    if (last !== null && !equalBytes(last, chain.headBlockHash) && (pendingValid || lastNumber > chain.head.number)) {
      chain.setHead(last);
    }
    // Each committed batch survives power loss (a re-run resumes after it).
    chain.persist();
    if (inBatch > 0) {
      const t = now();
      const ms = Math.max(t - batchStart, 1);
      log.info("Imported new chain segment", {
        number: lastNumber,
        hash: last === null ? "" : bytesToHex(last),
        blocks: inBatch,
        txs: batchTxs,
        mgas: (batchGas / 1e6).toFixed(3),
        "blocks/s": ((inBatch * 1000) / ms).toFixed(1),
        elapsed: `${t - started}ms`,
        imported,
        skipped,
      });
      batchStart = t;
    }
    pendingValid = false;
    inBatch = 0;
    batchTxs = 0;
    batchGas = 0;
  };

  try {
    for (const file of files) {
      log.info("Importing blockchain", { file });
      let fileBlocks = 0;
      try {
        for await (const { rlp, index } of readBlockFile(file)) {
          fileBlocks++;
          const senders = opts.recoveryPool ? sendersAlongside(chain, rlp, opts.recoveryPool) : null;
          const r = chain.insertBlock(rlp, senders === null ? {} : { senders });
          if (r.status === "VALID" || r.status === "KNOWN") {
            last = r.hash;
            lastNumber = r.header?.number ?? lastNumber;
            if (r.status === "VALID") {
              imported++;
              pendingValid = true;
              batchGas += r.header?.gasUsed ?? 0;
              batchTxs += r.receipts?.length ?? 0;
            } else {
              skipped++;
            }
            if (++inBatch >= batchSize) commit();
            continue;
          }
          commit(); // the blocks before it become canonical first, so the message names the real head
          throw new ImportError(`${file}: ${describeFailure(chain, rlp, index, r)}`);
        }
      } catch (e) {
        if (e instanceof BlockFileError) throw new ImportError(`${file}: ${e.message}`);
        if (e instanceof ImportError) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "ENOENT") throw new ImportError(`${file}: no such file or directory`);
        if (code === "EISDIR") throw new ImportError(`${file}: is a directory`);
        if (code === "Z_DATA_ERROR" || code === "Z_BUF_ERROR")
          throw new ImportError(`${file}: bad gzip data after ${fileBlocks} blocks: ${oneLine((e as Error).message)}`);
        throw e;
      }
    }
  } finally {
    // Whatever stopped the run, the blocks imported before it become canonical.
    commit();
  }
  log.info("Import done", {
    imported,
    skipped,
    number: chain.head.number,
    hash: bytesToHex(chain.headBlockHash),
    elapsed: `${now() - started}ms`,
  });
  return { imported, skipped, headNumber: chain.head.number, headHash: chain.headBlockHash };
}

function describeFailure(
  chain: Blockchain,
  rlp: Uint8Array,
  index: number,
  r: { status: string; hash: Uint8Array; error: string | null },
): string {
  let number = "?";
  let parent: Uint8Array | null = null;
  try {
    const h = decodeHeader(blockHeaderRlp(rlp));
    number = String(h.number);
    parent = h.parentHash;
  } catch {
    // undecodable: the error says why
  }
  const at = `block ${index} (number ${number}, hash ${bytesToHex(r.hash)})`;
  if (r.status === "UNKNOWN_PARENT") {
    const head = chain.head;
    return `${at}: does not link to the chain: parent ${parent === null ? "?" : bytesToHex(parent)} is not in the database (head is #${head.number} ${bytesToHex(chain.headBlockHash)})`;
  }
  return `${at}: ${oneLine(r.error ?? "invalid block")}`;
}
