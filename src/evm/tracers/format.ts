/**
 * JSON helpers shared by the tracers: addresses, 32-byte words and quantities as geth prints them,
 * opcode names, and the revert-reason decoding of geth's `abi.UnpackRevert` (Error(string) and
 * Panic(uint256)).
 */
import { bytesToHex } from "../../primitives/hex.js";
import { OP_NAMES } from "../opcodes/names.js";

/** 0x-prefixed 20-byte address. */
export function addrHex(a: bigint): string {
  return `0x${a.toString(16).padStart(40, "0")}`;
}

/** 0x-prefixed 32-byte word (common.Hash). */
export function wordHex(v: bigint): string {
  return `0x${v.toString(16).padStart(64, "0")}`;
}

/** hexutil quantity. */
export function qtyHex(v: number | bigint): string {
  return `0x${v.toString(16)}`;
}

/** geth's OpCode.String(). */
export function opName(op: number): string {
  return OP_NAMES[op] ?? `opcode 0x${op.toString(16)} not defined`;
}

export { bytesToHex };

const PANIC_REASONS: Record<number, string> = {
  0: "generic panic",
  1: "assert(false)",
  17: "arithmetic underflow or overflow",
  18: "division or modulo by zero",
  33: "enum overflow",
  34: "invalid encoded storage byte array accessed",
  49: "out-of-bounds array access; popping on an empty array",
  50: "out-of-bounds access of an array or bytesN",
  65: "out of memory",
  81: "uninitialized function",
};

function readWordAt(b: Uint8Array, pos: number): bigint | null {
  if (pos + 32 > b.length) return null;
  let v = 0n;
  for (let i = 0; i < 32; i++) v = (v << 8n) | BigInt(b[pos + i]);
  return v;
}

/**
 * geth `abi.UnpackRevert` (accounts/abi/abi.go): the reason of revert data, or null where geth
 * errs — shorter than a selector, another selector, or an Error(string) whose offset or length
 * runs past the data (`lengthPrefixPointsTo`). Panic(uint256) codes read as Solidity names them,
 * others as "unknown panic code: 0x…". The one decoder: the callTracer's `revertReason` and
 * rpc/eth's "execution reverted: …" errors both use it.
 */
export function unpackRevert(out: Uint8Array): string | null {
  if (out.length < 4) return null;
  const sel = ((out[0] << 24) | (out[1] << 16) | (out[2] << 8) | out[3]) >>> 0;
  if (sel === 0x08c379a0) {
    const off = readWordAt(out, 4);
    if (off === null || off > BigInt(out.length)) return null;
    const start = 4 + Number(off);
    const len = readWordAt(out, start);
    if (len === null || BigInt(start + 32) + len > BigInt(out.length)) return null;
    return new TextDecoder().decode(out.subarray(start + 32, start + 32 + Number(len)));
  }
  if (sel === 0x4e487b71) {
    const code = readWordAt(out, 4);
    if (code === null) return null;
    const r = code < 256n ? PANIC_REASONS[Number(code)] : undefined;
    return r ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  return null;
}
