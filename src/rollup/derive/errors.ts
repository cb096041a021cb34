/**
 * Derivation errors by severity (op-node rollup/derive/error.go; kona PipelineErrorKind): a
 * temporary error is retried as is, a reset error means the pipeline's view of L1 or L2 no longer
 * holds (a reorg) and the pipeline restarts from a new base, a critical error stops derivation.
 * Two ordinary outcomes are not errors: `EOF` (this stage needs new L1 data) and `NOT_ENOUGH_DATA`
 * (call again, the stage made progress). Stages return those sentinels; DeriveError crosses stage
 * boundaries only when something is wrong.
 */

export type DeriveSeverity = "temporary" | "reset" | "critical";

export class DeriveError extends Error {
  override readonly name = "DeriveError";
  constructor(
    readonly severity: DeriveSeverity,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function temporaryError(message: string, cause?: unknown): DeriveError {
  return new DeriveError("temporary", message, cause === undefined ? undefined : { cause });
}

export function resetError(message: string, cause?: unknown): DeriveError {
  return new DeriveError("reset", message, cause === undefined ? undefined : { cause });
}

export function criticalError(message: string, cause?: unknown): DeriveError {
  return new DeriveError("critical", message, cause === undefined ? undefined : { cause });
}

/** The stage has nothing more from its current L1 origin: advance L1. */
export const EOF: unique symbol = Symbol("EOF");
/** The stage made progress but has no output yet: call again. */
export const NOT_ENOUGH_DATA: unique symbol = Symbol("NOT_ENOUGH_DATA");
export type StageSignal = typeof EOF | typeof NOT_ENOUGH_DATA;
