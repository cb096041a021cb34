/**
 * One call frame: code, pc, gas, the bigint stack and byte memory. Frames are pooled by depth in
 * the Evm (one object per depth, reused across calls, its stack array and memory buffer kept), so
 * a call allocates nothing once the pool is warm.
 */
import type { Account } from "../state/account.js";

export const STACK_LIMIT = 1024;

/**
 * Frame.pushes holds code positions in chunks of 2^PUSH_CHUNK_BITS, each made when a PUSH in it
 * first runs. PERF: one array as long as the code would cost a large-object allocation for big
 * contracts (a 24,576-slot array: ~220 µs here, against ~0.6 µs for a 1,024-slot chunk), paid again
 * by every one-shot Evm (eth_call).
 */
export const PUSH_CHUNK_BITS = 10;
export const PUSH_CHUNK_MASK = (1 << PUSH_CHUNK_BITS) - 1;
export type PushChunk = (bigint | undefined)[];
const EMPTY = new Uint8Array(0);

export enum FrameKind {
  Call,
  CallCode,
  DelegateCall,
  StaticCall,
  Create,
}

export class Frame {
  code: Uint8Array = EMPTY;
  /** Bitmap of valid JUMPDEST positions (one byte per code byte), computed once per code. */
  jumpdests: Uint8Array = EMPTY;
  /**
   * PUSH2..PUSH32 values of `code` met so far (the untraced loop fills it as it runs them), so a
   * PUSH in a loop makes its bigint once: the value for the immediate at position p is
   * pushes[p >>> PUSH_CHUNK_BITS]?.[p & PUSH_CHUNK_MASK]. Shared by the frames running the same code.
   */
  pushes: PushChunk[] = [];
  /**
   * Per code position, how many times the native core entered there ran too few opcodes to be
   * worth its entry (Evm.runNative); empty until the frame first enters it. Shared like `pushes`.
   */
  nativeTries: Uint8Array = EMPTY;
  pc = 0;
  gas = 0;
  readonly stack: bigint[] = new Array<bigint>(STACK_LIMIT).fill(0n);
  sp = 0;
  mem: Uint8Array = new Uint8Array(1024);
  /** A view of `mem` (replaced with it when memory grows). */
  memView: DataView = new DataView(this.mem.buffer);
  /** A view of `code` for PUSH immediates. */
  codeView: DataView = new DataView(new ArrayBuffer(0));
  /** Active memory size in bytes (a multiple of 32). */
  memSize = 0;
  /** Output of the last child call (RETURNDATASIZE/RETURNDATACOPY). */
  returnData: Uint8Array = EMPTY;
  /** RETURN / REVERT payload of this frame. */
  output: Uint8Array = EMPTY;
  kind: FrameKind = FrameKind.Call;
  /** Context address (ADDRESS, storage owner). */
  address = 0n;
  account: Account | null = null;
  caller = 0n;
  value = 0n;
  input: Uint8Array = EMPTY;
  isStatic = false;
  /** 0 for the tx-level frame. */
  depth = 0;
  /** State checkpoint taken when the frame began. */
  checkpoint = 0;
  /** Where the parent wants this frame's output (calls). */
  retOffset = 0;
  retSize = 0;
  constructor(readonly index: number) {}

  reset(): void {
    this.pc = 0;
    this.sp = 0;
    this.memSize = 0;
    this.returnData = EMPTY;
    this.output = EMPTY;
  }
}
