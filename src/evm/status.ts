/**
 * How a frame step or a frame ends (code-models §10.2: codes, not throws). 0 means "keep going";
 * Stop/Return are success, Revert returns the remaining gas, every other halt consumes all of it.
 * `Call` is not an end: an opcode asks the driver to run a child frame.
 */
export enum Halt {
  Continue = 0,
  Stop = 1,
  Return = 2,
  Revert = 3,
  /** Not an end: the frame waits for the child frame prepared in Evm.child. */
  Call = 4,
  OutOfGas = 5,
  StackUnderflow = 6,
  StackOverflow = 7,
  BadJump = 8,
  InvalidOpcode = 9,
  StaticWrite = 10,
  ReturnDataOutOfBounds = 11,
  /** CREATE target already has code, nonce or storage. */
  CreateCollision = 12,
  /** New code over the EIP-170 limit. */
  CodeTooLarge = 13,
  /** New code starting with 0xEF (EIP-3541). */
  InvalidCodePrefix = 14,
  /** Initcode over the EIP-3860 limit. */
  InitcodeTooLarge = 15,
  /** A precompile rejected its input. */
  PrecompileFailure = 16,
  /** Nonce would pass 2^64-1 (EIP-2681). */
  NonceOverflow = 17,
  /** Call depth over 1024 or value over balance (only at tx level; opcodes push 0 instead). */
  DepthOrBalance = 18,
}

/** Names for errors and traces. */
export const HALT_NAMES: readonly string[] = [
  "continue",
  "stop",
  "return",
  "execution reverted",
  "call",
  "out of gas",
  "stack underflow",
  "stack overflow",
  "invalid jump destination",
  "invalid opcode",
  "write protection",
  "return data out of bounds",
  "contract address collision",
  "max code size exceeded",
  "invalid code: must not begin with 0xef",
  "max initcode size exceeded",
  "precompile failed",
  "nonce uint64 overflow",
  "insufficient balance or depth",
];

export function isSuccess(h: Halt): boolean {
  return h === Halt.Stop || h === Halt.Return;
}
