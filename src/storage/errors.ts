/**
 * Typed errors of the storage engines. Codes are stable strings so callers (node lifecycle, CLI
 * `db` commands) can react without parsing messages; the engine's own message rides along in
 * `message` and, for binding failures, the original error in `cause`.
 */
export type StorageErrorCode =
  /** The store was closed (or a shared-handle view was detached); no further calls are allowed. */
  | "CLOSED"
  /** A table name that is not in TABLES. */
  | "UNKNOWN_TABLE"
  /** A write through a read-only view (a worker's shared-handle instance). */
  | "READ_ONLY"
  /** The owner was asked to close while worker threads still hold its native handle. */
  | "HANDLE_SHARED"
  /** An invalid engine option (for example a block cache of 4 GiB or more). */
  | "BAD_OPTION"
  /** The engine could not open the database (lock held, unknown column family, corruption, I/O). */
  | "OPEN_FAILED"
  /** A read returned neither a value nor "not found" (aborted or timed out inside the engine). */
  | "READ_FAILED"
  /** The engine rejected a write batch; nothing of it was applied. */
  | "WRITE_FAILED"
  /** A stored record (undo batch, chain data) does not decode. */
  | "CORRUPT";

export class StorageError extends Error {
  override readonly name = "StorageError";
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
