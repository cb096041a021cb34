/**
 * One call frame: code, pc, gas, the bigint stack and byte memory. Frames are pooled by depth in
 * the Evm (one object per depth, reused across calls, its stack array and memory buffer kept), so
 * a call allocates nothing once the pool is warm.
 */
import type { Account } from "../state/account.js";

export const STACK_LIMIT = 1024;
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
   * PUSH2..PUSH32 values of `code` met so far, by the position of the immediate (the untraced loop
   * fills it as it runs them): a PUSH in a loop makes its bigint once. Shared by the frames running
   * the same code.
   */
  pushes: (bigint | undefined)[] = [];
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
