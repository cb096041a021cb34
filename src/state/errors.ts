/** Typed state errors: a stored row that does not decode, or a misuse of the journal. */
export type StateErrorCode =
  /** A hashedAccounts row is not rlp([nonce, balance, storageRoot32, codeHash32]). */
  | "BAD_ACCOUNT"
  /** revert/commit with a checkpoint id that is not the innermost open one. */
  | "BAD_CHECKPOINT";

export class StateError extends Error {
  override readonly name = "StateError";
  constructor(
    readonly code: StateErrorCode,
    message: string,
  ) {
    super(message);
  }
}
