/**
 * Ethereum Node Records (EIP-778, devp2p enr.md) with the "v4" identity scheme: the record is
 * `[signature, seq, k, v, …]`, keys sorted and unique, at most 300 bytes; the signature is the
 * 64-byte r ‖ s of keccak256(rlp([seq, k, v, …])) by the key whose compressed form is `secp256k1`;
 * the node id is keccak256 of the uncompressed key. Values are kept as their raw RLP so list-valued
 * entries (`eth`) and unknown keys survive a round trip byte for byte. Text form: `enr:` + base64url.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { recoverPublicKey, SECP256K1_HALF_N, sign, signatureBytes } from "../../crypto/secp256k1.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { decodeHeader, decodeRlp, expectSafeInt, type RlpItem } from "../../rlp/decode.js";
import { encodeRlp, encodeRlpListOfEncoded, type RlpInput, uintToRlpBytes } from "../../rlp/encode.js";
import { ipFromBytes } from "./ip.js";
import { compressPublicKey, decompressPublicKey, type NodeKey, nodeIdOf } from "./nodeKey.js";

/** SPEC: EIP-778 "the maximum encoded size of a node record is 300 bytes". */
export const MAX_ENR_SIZE = 300;

export class EnrError extends Error {
  override readonly name = "EnrError";
}

const TEXT = new TextDecoder("latin1");
const UTF8 = new TextEncoder();

/** A verified node record. */
export class Enr {
  private constructor(
    /** The whole encoded record. */
    readonly raw: Uint8Array,
    readonly seq: bigint,
    /** Key → the value's raw RLP encoding. */
    private readonly pairs: ReadonlyMap<string, Uint8Array>,
    /** 64-byte x ‖ y of the signer. */
    readonly publicKey: Uint8Array,
    /** keccak256(publicKey). */
    readonly id: Uint8Array,
  ) {}

  /** Decodes and verifies a record; throws EnrError. Keeps a copy of `bytes`. */
  static decode(bytes: Uint8Array): Enr {
    if (bytes.length > MAX_ENR_SIZE) throw new EnrError(`record of ${bytes.length} bytes exceeds ${MAX_ENR_SIZE}`);
    const raw = bytes.slice();
    let h: ReturnType<typeof decodeHeader>;
    try {
      h = decodeHeader(raw, 0);
    } catch (e) {
      throw new EnrError(`malformed record: ${(e as Error).message}`);
    }
    if (!h.list) throw new EnrError("record is not a list");
    if (h.start + h.length !== raw.length) throw new EnrError("trailing bytes after the record");
    const items: Uint8Array[] = [];
    try {
      for (let p = h.start; p < h.start + h.length; ) {
        const ih = decodeHeader(raw, p, h.start + h.length);
        const end = ih.start + ih.length;
        items.push(raw.subarray(p, end));
        p = end;
      }
    } catch (e) {
      throw new EnrError(`malformed record: ${(e as Error).message}`);
    }
    if (items.length < 2 || items.length % 2 !== 0) throw new EnrError("record must hold signature, seq and pairs");
    const sig = payloadOf(items[0]!, "signature");
    let seq: bigint;
    try {
      const s = payloadOf(items[1]!, "seq");
      if (s.length > 8 || (s.length > 0 && s[0] === 0)) throw new EnrError("seq is not a canonical uint64");
      seq = bytesToBigint(s);
    } catch (e) {
      throw e instanceof EnrError ? e : new EnrError(`seq: ${(e as Error).message}`);
    }
    const pairs = new Map<string, Uint8Array>();
    let prev: Uint8Array | null = null;
    for (let i = 2; i < items.length; i += 2) {
      const k = payloadOf(items[i]!, "key");
      if (prev !== null && compareKeys(prev, k) >= 0) throw new EnrError("keys are not sorted and unique");
      prev = k;
      pairs.set(TEXT.decode(k), items[i + 1]!);
    }
    const idScheme = pairs.get("id");
    if (idScheme === undefined || TEXT.decode(payloadOf(idScheme, "id")) !== "v4") {
      throw new EnrError("identity scheme is not v4");
    }
    const pk = pairs.get("secp256k1");
    const pub = pk === undefined ? null : decompressPublicKey(payloadOf(pk, "secp256k1"));
    if (pub === null) throw new EnrError("secp256k1 entry is not a compressed public key");
    if (!verifyV4(keccak256(encodeRlpListOfEncoded(items.slice(1))), sig, pub)) {
      throw new EnrError("signature does not verify");
    }
    return new Enr(raw, seq, pairs, pub, nodeIdOf(pub));
  }

  static decodeTxt(s: string): Enr {
    if (!s.startsWith("enr:")) throw new EnrError("text record must start with enr:");
    const b64 = s.slice(4);
    if (!/^[A-Za-z0-9_-]*$/.test(b64)) throw new EnrError("text record is not base64url");
    return Enr.decode(new Uint8Array(Buffer.from(b64, "base64url")));
  }

  /**
   * Signs a record over `entries` (values as RLP inputs: bytes, or lists such as the `eth` entry),
   * adding `id` = "v4" and `secp256k1`. Throws EnrError when the record exceeds 300 bytes.
   */
  static sign(key: NodeKey, seq: bigint, entries: ReadonlyMap<string, RlpInput>): Enr {
    const all = new Map<string, Uint8Array>();
    for (const [k, v] of entries) all.set(k, encodeRlp(v));
    all.set("id", encodeRlp(UTF8.encode("v4")));
    all.set("secp256k1", encodeRlp(compressPublicKey(key.publicKey)));
    const keys = [...all.keys()].sort((a, b) => compareKeys(UTF8.encode(a), UTF8.encode(b)));
    const content: Uint8Array[] = [encodeRlp(uintToRlpBytes(seq))];
    for (const k of keys) content.push(encodeRlp(UTF8.encode(k)), all.get(k)!);
    const s = sign(keccak256(encodeRlpListOfEncoded(content)), key.privateKey);
    const raw = encodeRlpListOfEncoded([encodeRlp(signatureBytes(s.r, s.s)!), ...content]);
    if (raw.length > MAX_ENR_SIZE) throw new EnrError(`record of ${raw.length} bytes exceeds ${MAX_ENR_SIZE}`);
    return Enr.decode(raw);
  }

  encodeTxt(): string {
    return `enr:${Buffer.from(this.raw).toString("base64url")}`;
  }

  has(key: string): boolean {
    return this.pairs.has(key);
  }

  /** The raw RLP of an entry's value, or undefined. */
  getRaw(key: string): Uint8Array | undefined {
    return this.pairs.get(key);
  }

  /** An entry decoded as RLP, or undefined when absent or malformed. */
  get(key: string): RlpItem | undefined {
    const v = this.pairs.get(key);
    if (v === undefined) return undefined;
    try {
      return decodeRlp(v);
    } catch {
      return undefined;
    }
  }

  keys(): string[] {
    return [...this.pairs.keys()];
  }

  /** `ip` as text, when present and 4 bytes. */
  get ip(): string | undefined {
    return this.address("ip", 4);
  }

  get ip6(): string | undefined {
    return this.address("ip6", 16);
  }

  get tcp(): number | undefined {
    return this.port("tcp");
  }

  get udp(): number | undefined {
    return this.port("udp");
  }

  get tcp6(): number | undefined {
    return this.port("tcp6");
  }

  get udp6(): number | undefined {
    return this.port("udp6");
  }

  private address(key: string, size: number): string | undefined {
    const v = this.get(key);
    if (!(v instanceof Uint8Array) || v.length !== size) return undefined;
    return ipFromBytes(v) ?? undefined;
  }

  private port(key: string): number | undefined {
    const v = this.get(key);
    if (v === undefined) return undefined;
    try {
      const p = expectSafeInt(v, key, 2);
      return p;
    } catch {
      return undefined;
    }
  }
}

function payloadOf(item: Uint8Array, what: string): Uint8Array {
  const h = decodeHeader(item, 0);
  if (h.list) throw new EnrError(`${what} must be a byte string`);
  return item.subarray(h.start, h.start + h.length);
}

function compareKeys(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/**
 * "v4" signature check: 64-byte r ‖ s, low s (libsecp256k1 `ecdsa_verify`, which geth's
 * crypto.VerifySignature calls, refuses high s), recovered with either parity and compared to `pub`.
 */
export function verifyV4(hash: Uint8Array, sig: Uint8Array, pub: Uint8Array): boolean {
  if (sig.length !== 64) return false;
  const s = bytesToBigint(sig.subarray(32));
  if (s === 0n || s > SECP256K1_HALF_N) return false;
  for (let recid = 0; recid < 2; recid++) {
    const r = recoverPublicKey(hash, sig, recid);
    if (r !== null && equalBytes(r.subarray(1), pub)) return true;
  }
  return false;
}
