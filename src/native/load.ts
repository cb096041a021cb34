/**
 * The one loader of native code. It finds Opal's addon (build/Release/opal_native.node) and the
 * third-party native packages Opal uses (secp256k1 → libsecp256k1), once, at first use.
 *
 * `OPAL_NATIVE=0` forces every pure-TS twin. The variable is read here and nowhere else; it is an
 * environment-only switch because it must be decided before any module hashes anything.
 * A missing or broken addon is not an error: the pure paths run and `nativeStatus()` says why.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { NativeBinding } from "./binding.js";

const require = createRequire(import.meta.url);

/** True unless OPAL_NATIVE is "0" or "false". */
export const NATIVE_ENABLED: boolean = !["0", "false"].includes((process.env.OPAL_NATIVE ?? "").toLowerCase());

export interface Secp256k1Native {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array;
  privateKeyVerify(privateKey: Uint8Array): boolean;
}

const reasons: Record<string, string> = {};

function packageRoot(): string {
  // src/native/load.ts and dist/src/native/load.js both sit below a folder holding package.json.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "binding.gyp"))) return dir;
    dir = dirname(dir);
  }
  return dirname(fileURLToPath(import.meta.url));
}

function loadAddon(): NativeBinding | null {
  if (!NATIVE_ENABLED) {
    reasons.opal = "disabled by OPAL_NATIVE=0";
    return null;
  }
  const root = packageRoot();
  for (const p of [join(root, "build/Release/opal_native.node"), join(root, "build/Debug/opal_native.node")]) {
    if (!existsSync(p)) continue;
    try {
      return require(p) as NativeBinding;
    } catch (e) {
      reasons.opal = `failed to load ${p}: ${(e as Error).message}`;
      return null;
    }
  }
  reasons.opal = "addon not built (run `npm run build:native`)";
  return null;
}

function loadSecp(): Secp256k1Native | null {
  if (!NATIVE_ENABLED) {
    reasons.secp256k1 = "disabled by OPAL_NATIVE=0";
    return null;
  }
  try {
    // secp256k1/bindings loads only the libsecp256k1 prebuild; the package root would silently fall
    // back to its own slow JS (elliptic) when the binary is missing, which we never want.
    return require("secp256k1/bindings") as Secp256k1Native;
  } catch (e) {
    reasons.secp256k1 = `libsecp256k1 binding unavailable: ${(e as Error).message}`;
    return null;
  }
}

/** Opal's own addon, or null when disabled or not built. */
export const native: NativeBinding | null = loadAddon();

/**
 * The cap put on glibc's malloc arenas (docs/design/native.md "Malloc arenas"): `OPAL_MALLOC_ARENAS`,
 * default the core count within [2, 8] (glibc's own is 8 per core); `0` leaves glibc's. A
 * `MALLOC_ARENA_MAX` in the environment was applied by glibc at start and is left alone. Made once,
 * at the loader's first import, before any pool starts a thread. Null when not applied (no addon,
 * another C library, or left to glibc).
 */
export const mallocArenas: number | null = limitArenas(native);

function limitArenas(addon: NativeBinding | null): number | null {
  if (addon === null || process.env.MALLOC_ARENA_MAX !== undefined) return null;
  const raw = process.env.OPAL_MALLOC_ARENAS;
  const max = raw === undefined || raw === "" ? Math.min(8, Math.max(2, availableParallelism())) : Number(raw);
  if (!Number.isSafeInteger(max) || max < 0) {
    reasons.mallocArenas = `OPAL_MALLOC_ARENAS=${raw} is not a count: malloc's arenas left to glibc`;
    return null;
  }
  if (max === 0) return null;
  return addon.limitMallocArenas(max) ? max : null;
}
/** libsecp256k1 through the `secp256k1` package, or null. */
export const secp256k1Native: Secp256k1Native | null = loadSecp();

/** Which backends are active and, for each inactive one, why (for logs and `--version`). */
export function nativeStatus(): {
  opal: boolean;
  secp256k1: boolean;
  mallocArenas: number | null;
  reasons: Record<string, string>;
} {
  return { opal: native !== null, secp256k1: secp256k1Native !== null, mallocArenas, reasons: { ...reasons } };
}
