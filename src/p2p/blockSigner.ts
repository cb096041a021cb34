/**
 * Who signs the blocks a sequencer gossips (spec part 4B "External signer", part 5.3 and 5.5; op-node
 * p2p/signer.go, op-service/signer): a local key (`--p2p.sequencer.key`) or an external op-signer
 * (`--signer.endpoint`, `--signer.address`) called over HTTPS with TLS client authentication
 * (`--signer.tls.*`, on by default) and extra headers (`--signer.header`).
 *
 * The remote call is JSON-RPC `opsigner_signBlockPayload` with op-service's `BlockPayloadArgs` as
 * Go's encoding/json writes it: `domain` a 32-number array, `chainId` a JSON number, `payloadHash`
 * base64, `senderAddress` hex. The answer is the 65-byte signature as hex; when `--signer.address`
 * is set it must recover to that address. Certificates are read again for every new connection, so
 * rotated files take effect without a restart (op-service watches the files for the same reason).
 */
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import { privateKeyToAddress, recoverAddress } from "../crypto/secp256k1.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { BLOCK_SIGNING_DOMAIN, blockSigningHash, signBlockPayloadHash } from "./signingHash.js";

export class BlockSignerError extends Error {
  override readonly name = "BlockSignerError";
}

export interface BlockSigner {
  /** The address the signatures recover to, when known. */
  readonly address: Uint8Array | null;
  /** 65 bytes r ‖ s ‖ v (v ∈ {0, 1}) over blockSigningHash(chainId, payloadHash). */
  sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

function recover65(digest: Uint8Array, sig: Uint8Array): Uint8Array | null {
  if (sig.length !== 65 || sig[64]! > 1) return null;
  return recoverAddress(digest, sig.subarray(0, 64), sig[64]!);
}

export class LocalBlockSigner implements BlockSigner {
  readonly address: Uint8Array;
  private readonly key: Uint8Array;

  constructor(key: Uint8Array | string) {
    let k: Uint8Array;
    if (typeof key === "string") {
      const t = key.trim().replace(/^0x/, "");
      if (!/^[0-9a-fA-F]{64}$/.test(t)) throw new BlockSignerError("--p2p.sequencer.key: not a 32-byte hex key");
      k = hexToBytes(`0x${t}`);
    } else {
      k = key;
    }
    try {
      this.address = privateKeyToAddress(k);
    } catch {
      throw new BlockSignerError("--p2p.sequencer.key: not a valid secp256k1 private key");
    }
    this.key = k;
  }

  async sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> {
    return signBlockPayloadHash(chainId, payloadHash, this.key);
  }

  async close(): Promise<void> {}
}

export interface RemoteSignerOptions {
  readonly endpoint: string;
  readonly address?: string | undefined;
  readonly headers?: readonly string[] | undefined;
  readonly tls: { readonly enabled: boolean; readonly ca: string; readonly cert: string; readonly key: string };
  readonly timeoutMs?: number;
}

function readPem(option: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new BlockSignerError(`--signer.tls.${option}: cannot read ${path}: ${(e as Error).message}`);
  }
}

export class RemoteBlockSigner implements BlockSigner {
  readonly address: Uint8Array | null;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private id = 0;

  constructor(private readonly opts: RemoteSignerOptions) {
    try {
      this.url = new URL(opts.endpoint);
    } catch {
      throw new BlockSignerError(`--signer.endpoint: not a URL: ${opts.endpoint}`);
    }
    if (opts.tls.enabled && this.url.protocol !== "https:") {
      throw new BlockSignerError(`--signer.endpoint: TLS is enabled but ${opts.endpoint} is not https`);
    }
    if (this.url.protocol !== "https:" && this.url.protocol !== "http:") {
      throw new BlockSignerError(`--signer.endpoint: want http(s), got ${opts.endpoint}`);
    }
    if (opts.address !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(opts.address)) {
      throw new BlockSignerError(`--signer.address: not an address: ${opts.address}`);
    }
    this.address = opts.address === undefined ? null : hexToBytes(opts.address);
    this.headers = {};
    for (const h of opts.headers ?? []) {
      const i = h.indexOf("=");
      if (i <= 0) throw new BlockSignerError(`--signer.header: want key=value, got ${h}`);
      this.headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
    }
    // Fail at startup, not at the first block, when the certificate files are missing.
    if (opts.tls.enabled) this.tlsMaterial();
  }

  private tlsMaterial(): { ca: Buffer; cert: Buffer; key: Buffer } {
    const t = this.opts.tls;
    return { ca: readPem("ca", t.ca), cert: readPem("cert", t.cert), key: readPem("key", t.key) };
  }

  async sign(chainId: bigint, payloadHash: Uint8Array): Promise<Uint8Array> {
    const params = {
      domain: [...BLOCK_SIGNING_DOMAIN],
      chainId: Number(chainId) <= Number.MAX_SAFE_INTEGER ? Number(chainId) : chainId.toString(),
      payloadHash: Buffer.from(payloadHash).toString("base64"),
      ...(this.address === null ? {} : { senderAddress: bytesToHex(this.address) }),
    };
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: ++this.id,
      method: "opsigner_signBlockPayload",
      params: [params],
    });
    const text = await this.post(body);
    let reply: { result?: unknown; error?: { code: number; message: string } };
    try {
      reply = JSON.parse(text);
    } catch {
      throw new BlockSignerError(`signer ${this.opts.endpoint} answered with non-JSON: ${text.slice(0, 100)}`);
    }
    if (reply.error !== undefined) {
      throw new BlockSignerError(
        `signer ${this.opts.endpoint} returned error ${reply.error.code}: ${reply.error.message}`,
      );
    }
    const r = reply.result;
    if (typeof r !== "string" || !/^0x[0-9a-fA-F]{130}$/.test(r)) {
      throw new BlockSignerError(`signer ${this.opts.endpoint} returned no 65-byte signature`);
    }
    const sig = hexToBytes(r);
    // Some signers return v as 27/28; gossip wants 0/1.
    if (sig[64]! >= 27) sig[64] = sig[64]! - 27;
    if (this.address !== null) {
      const from = recover65(blockSigningHash(chainId, payloadHash), sig);
      if (from === null || bytesToHex(from) !== bytesToHex(this.address)) {
        throw new BlockSignerError(
          `signer signature is from ${from === null ? "nobody" : bytesToHex(from)}, not ${bytesToHex(this.address)}`,
        );
      }
    }
    return sig;
  }

  private post(body: string): Promise<string> {
    const https = this.url.protocol === "https:";
    const tls = https && this.opts.tls.enabled ? this.tlsMaterial() : null;
    const options = {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...this.headers },
      timeout: this.opts.timeoutMs ?? 10_000,
      ...(tls === null ? {} : { agent: new Agent({ ca: tls.ca, cert: tls.cert, key: tls.key, keepAlive: false }) }),
    };
    return new Promise((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)(this.url, options, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          if ((res.statusCode ?? 0) >= 400) {
            reject(
              new BlockSignerError(
                `signer ${this.opts.endpoint} answered HTTP ${res.statusCode}: ${text.slice(0, 100)}`,
              ),
            );
          } else {
            resolve(text);
          }
        });
        res.on("error", (e) => reject(new BlockSignerError(`signer ${this.opts.endpoint}: ${e.message}`)));
      });
      req.on("timeout", () => req.destroy(new Error("request timed out")));
      req.on("error", (e: NodeJS.ErrnoException) => {
        const tlsish = /certificate|handshake|ssl|tls|alert|socket hang up|ECONNRESET|EPROTO/i.test(
          `${e.code ?? ""} ${e.message}`,
        );
        reject(
          new BlockSignerError(
            tlsish
              ? `TLS handshake with signer ${this.opts.endpoint} failed (check --signer.tls.ca/cert/key): ${e.message}`
              : `signer ${this.opts.endpoint} unreachable: ${e.message}`,
          ),
        );
      });
      req.end(body);
    });
  }

  async close(): Promise<void> {}
}

/** The signer options of opal-node (spec part 4B). */
export interface BlockSignerConfig {
  readonly "p2p.sequencer.key"?: string | undefined;
  readonly "signer.endpoint"?: string | undefined;
  readonly "signer.address"?: string | undefined;
  readonly "signer.header"?: readonly string[] | undefined;
  readonly "signer.tls.enabled": boolean;
  readonly "signer.tls.ca": string;
  readonly "signer.tls.cert": string;
  readonly "signer.tls.key": string;
}

/** The configured signer: null without one; both a key and an endpoint is an error. */
export function blockSignerFromConfig(c: BlockSignerConfig): BlockSigner | null {
  const key = c["p2p.sequencer.key"];
  const endpoint = c["signer.endpoint"];
  if (key !== undefined && key !== "" && endpoint !== undefined && endpoint !== "") {
    throw new BlockSignerError("--p2p.sequencer.key and --signer.endpoint are both set: use one");
  }
  if (key !== undefined && key !== "") return new LocalBlockSigner(key);
  if (endpoint !== undefined && endpoint !== "") {
    if (c["signer.address"] === undefined) throw new BlockSignerError("--signer.endpoint needs --signer.address");
    return new RemoteBlockSigner({
      endpoint,
      address: c["signer.address"],
      headers: c["signer.header"],
      tls: {
        enabled: c["signer.tls.enabled"] ?? true,
        ca: c["signer.tls.ca"],
        cert: c["signer.tls.cert"],
        key: c["signer.tls.key"],
      },
    });
  }
  return null;
}
