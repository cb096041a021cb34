/**
 * Piscina entry: batched sender recovery. Thin by rule (code-models §10.9): the logic is
 * src/tx/recoverPacked.ts, tested on the main thread. In: 32-byte signing hashes and 65-byte
 * signatures (r ‖ s ‖ recid), packed. Out: 21 bytes per tx (ok flag ‖ address), moved back.
 * "recoverShared": the same over shared buffers, item by item alongside the executing thread
 * (src/tx/sharedRecovery.ts); returns how many items this worker recovered.
 */
import { Piscina } from "piscina";
import { recoverSendersPacked } from "../src/tx/recoverPacked.js";
import { recoverShared, type SharedRecoveryBuffers } from "../src/tx/sharedRecovery.js";

export type SigRecoverTask =
  | { kind: "ping" }
  | { kind: "recover"; hashes: Uint8Array; sigs: Uint8Array }
  | { kind: "recoverShared"; buffers: SharedRecoveryBuffers };

export default function sigRecover(task: SigRecoverTask): unknown {
  if (task.kind === "ping") return 0;
  if (task.kind === "recoverShared") return recoverShared(task.buffers);
  const out = recoverSendersPacked(task.hashes, task.sigs);
  return Piscina.move(out);
}
