/**
 * Piscina entry: batched sender recovery. Thin by rule (code-models §10.9): the logic is
 * src/tx/recoverPacked.ts, tested on the main thread. In: 32-byte signing hashes and 65-byte
 * signatures (r ‖ s ‖ recid), packed. Out: 21 bytes per tx (ok flag ‖ address), moved back.
 */
import { Piscina } from "piscina";
import { recoverSendersPacked } from "../src/tx/recoverPacked.js";

export type SigRecoverTask = { kind: "ping" } | { kind: "recover"; hashes: Uint8Array; sigs: Uint8Array };

export default function sigRecover(task: SigRecoverTask): unknown {
  if (task.kind === "ping") return 0;
  const out = recoverSendersPacked(task.hashes, task.sigs);
  return Piscina.move(out);
}
