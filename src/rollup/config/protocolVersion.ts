/**
 * Superchain protocol versions (SPEC: protocol/superchain-upgrades.md#protocol-version; geth
 * params.ProtocolVersion) and `--rollup.halt`: a 32-byte value — type byte 0, then build (8 bytes at
 * [8..16)), major, minor, patch and pre-release (u32 big-endian at [16..32)) — signalled by the
 * ProtocolVersions contract on L1. A node that opted in halts when the *required* version is newer
 * than what it supports at the chosen granularity (op-node node/superchain.go `haltMaybe`).
 */
import { equalBytes, readUint32BE } from "../../primitives/bytes.js";

export interface ProtocolVersion {
  readonly build: Uint8Array;
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly preRelease: number;
}

export type HaltLevel = "major" | "minor" | "patch" | "none";

export type VersionComparison =
  | "matching"
  | "ahead-major"
  | "ahead-minor"
  | "ahead-patch"
  | "ahead-prerelease"
  | "outdated-major"
  | "outdated-minor"
  | "outdated-patch"
  | "outdated-prerelease"
  | "diff-build"
  | "invalid";

/** The protocol version Opal's rollup node supports: op-node v1.10's 9.0.0 (Holocene and later rules). */
export const OPAL_PROTOCOL_SUPPORT: Uint8Array = encodeProtocolVersion({
  build: new Uint8Array(8),
  major: 9,
  minor: 0,
  patch: 0,
  preRelease: 0,
});

export function encodeProtocolVersion(v: ProtocolVersion): Uint8Array {
  const out = new Uint8Array(32);
  out.set(v.build, 8);
  const d = new DataView(out.buffer);
  d.setUint32(16, v.major);
  d.setUint32(20, v.minor);
  d.setUint32(24, v.patch);
  d.setUint32(28, v.preRelease);
  return out;
}

/** null when the version type (byte 0) is not 0. */
export function decodeProtocolVersion(word: Uint8Array): ProtocolVersion | null {
  if (word.length !== 32 || word[0] !== 0) return null;
  return {
    build: word.slice(8, 16),
    major: readUint32BE(word, 16),
    minor: readUint32BE(word, 20),
    patch: readUint32BE(word, 24),
    preRelease: readUint32BE(word, 28),
  };
}

/** How `local` compares to `other` (geth `ProtocolVersion.Compare`). */
export function compareProtocolVersions(local: Uint8Array, other: Uint8Array): VersionComparison {
  const a = decodeProtocolVersion(local);
  const b = decodeProtocolVersion(other);
  if (a === null || b === null) return "invalid";
  if (!equalBytes(a.build, b.build)) return "diff-build";
  const cmp = (x: number, y: number, level: "major" | "minor" | "patch" | "prerelease"): VersionComparison | null => {
    if (x === y) return null;
    return x > y ? `ahead-${level}` : `outdated-${level}`;
  };
  const r = cmp(a.major, b.major, "major") ?? cmp(a.minor, b.minor, "minor") ?? cmp(a.patch, b.patch, "patch");
  if (r !== null) return r;
  if (a.preRelease === b.preRelease) return "matching";
  if (a.preRelease === 0) return "ahead-prerelease";
  if (b.preRelease === 0) return "outdated-prerelease";
  return cmp(a.preRelease, b.preRelease, "prerelease") ?? "matching";
}

/** Does `--rollup.halt=<level>` stop the node for this comparison of our version with the required one? */
export function shouldHalt(level: HaltLevel | undefined, c: VersionComparison): boolean {
  const need = level === "major" ? 3 : level === "minor" ? 2 : level === "patch" ? 1 : 0;
  if (need === 0) return false;
  const have = c === "outdated-major" ? 3 : c === "outdated-minor" ? 2 : c === "outdated-patch" ? 1 : 0;
  return have >= need;
}

/** The version as op-node prints it: v<major>.<minor>.<patch>[-<pre>]. */
export function formatProtocolVersion(word: Uint8Array): string {
  const v = decodeProtocolVersion(word);
  if (v === null) return `unknown(${Array.from(word.subarray(0, 1))})`;
  return `v${v.major}.${v.minor}.${v.patch}${v.preRelease === 0 ? "" : `-${v.preRelease}`}`;
}
