/**
 * eth_getBlockReceipts as a sliced job (issue 26): a block's receipts grow with its gas (a 60 M-gas
 * block of LOG0s holds ~160k logs, ~55 MB of JSON), so the reply is measured before it is built and
 * built in units that yield, as eth_getLogs' (filters.ts).
 */
import type { SliceJob } from "../../util/slicer.js";
import { RpcError } from "../errors.js";
import { type LogPlace, logJson, logJsonLength, receiptJson } from "../format.js";
import { JsonText } from "../methodTable.js";
import type { ChainReader, DecodedBlock, ReceiptEntry } from "./chainReader.js";

/** Logs serialized per unit before the job yields (as a log query's unit). */
const LOGS_PER_UNIT = 256;
/** Logs measured per unit (measuring builds nothing: eight times a building unit). */
const MEASURED_PER_UNIT = LOGS_PER_UNIT * 8;

/** Where log `i` of a receipt is. */
function logPlace(e: ReceiptEntry, i: number): LogPlace {
  const p = e.place;
  return {
    blockHash: p.blockHash,
    blockNumber: p.blockNumber,
    blockTimestamp: p.blockTimestamp,
    txHash: e.extras.hash,
    txIndex: p.index,
    logIndex: p.firstLogIndex + i,
  };
}

/** The text `"logs":[]` takes in a receipt's JSON; its logs are put between the brackets. */
const EMPTY_LOGS = '"logs":[]';

/**
 * The JSON array of `b`'s receipts (null when the block has none stored). With a reply cap
 * (`sizeLimit` > 0) their logs are first measured exactly without being built (`logJsonLength`):
 * when the logs alone are past the cap, so is the reply, and the job stops with geth's -32003
 * "response too large" having built nothing. Then each receipt is built with its logs left out and
 * its logs put in as text, `LOGS_PER_UNIT` at a time, yielding between units and receipts. The
 * reply's exact length is held to the cap by the dispatcher as for any method.
 */
export function* blockReceiptsJson(reader: ChainReader, b: DecodedBlock, sizeLimit: number): SliceJob<JsonText | null> {
  if (b.receipts === null) return null;
  if (sizeLimit > 0) {
    let size = 0;
    let unit = 0;
    for (const e of reader.receiptEntries(b)) {
      const logs = e.receipt.logs;
      for (let i = 0; i < logs.length; i++) {
        size += logJsonLength(logs[i]!, logPlace(e, i)) + 1;
        if (size > sizeLimit) throw RpcError.responseTooLarge();
        if (++unit === MEASURED_PER_UNIT) {
          unit = 0;
          yield;
        }
      }
    }
  }
  const chunks: string[] = ["["];
  let first = true;
  for (const e of reader.receiptEntries(b)) {
    const logs = e.receipt.logs;
    const text = JSON.stringify(receiptJson({ ...e.receipt, logs: [] }, e.tx, e.extras, e.place));
    // The first `"logs":[]`: the fields before it are hex strings and null, which cannot hold it.
    const at = text.indexOf(EMPTY_LOGS) + EMPTY_LOGS.length - 1;
    chunks.push(first ? text.slice(0, at) : `,${text.slice(0, at)}`);
    first = false;
    for (let i = 0; i < logs.length; i += LOGS_PER_UNIT) {
      const unit: string[] = [];
      const end = Math.min(logs.length, i + LOGS_PER_UNIT);
      for (let j = i; j < end; j++) unit.push(JSON.stringify(logJson(logs[j]!, logPlace(e, j))));
      chunks.push(i === 0 ? unit.join(",") : `,${unit.join(",")}`);
      yield;
    }
    chunks.push(text.slice(at));
    yield;
  }
  chunks.push("]");
  return new JsonText(chunks);
}
