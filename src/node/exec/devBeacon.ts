/**
 * The beacon API of a dev L1, as much as a rollup node reads (op-service sources/l1_beacon_client.go):
 * `/eth/v1/node/version`, `/eth/v1/beacon/genesis`, `/eth/v1/config/spec`,
 * `/eth/v1/beacon/blob_sidecars/{block_id}` with `indices` (each sidecar's blob KZG proof, which a
 * beacon node computes itself from Fulu on when the tx carried cell proofs), and the post-Fulu
 * `/eth/v1/beacon/blobs/{block_id}` with `versioned_hashes` (beacon-APIs #546, which deprecated
 * blob_sidecars; op-node asks it first and falls back to blob_sidecars). Slots are seconds since the
 * L1 genesis (SECONDS_PER_SLOT = 1), so every dev block, whose timestamp is unique, is the block of
 * slot `timestamp − genesis_time`, exactly what the rollup node computes; `block_id` may also be
 * `head` or a 0x block root. Unknown slots answer 404 with the beacon API's JSON error.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Blockchain } from "../../chain/blockchain.js";
import { META_FINALIZED } from "../../chain/chainStore.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { kzgToVersionedHash } from "../../tx/blobNetwork.js";
import type { BlobSidecarStore } from "../../txpool/blobSidecars.js";
import { listenError } from "../../util/httpServe.js";

export const DEV_SECONDS_PER_SLOT = 1;

export class DevBeaconServer {
  private readonly server: Server;

  constructor(
    private readonly chain: Blockchain,
    private readonly sidecars: BlobSidecarStore,
    private readonly version: string,
  ) {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  async listen(addr: string, port: number): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", (e) => reject(new Error(listenError("beacon API", addr, port, e))));
      this.server.listen(port, addr, () => resolve());
    });
    return this.server.address() as AddressInfo;
  }

  address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  private genesisTime(): number {
    const h = this.chain.store.header(this.chain.store.canonicalHash(0)!);
    return h?.timestamp ?? 0;
  }

  private reply(status: number, body: unknown): { status: number; body: unknown } {
    return { status, body };
  }

  private missing(message: string): { status: number; body: unknown } {
    return { status: 404, body: { code: 404, message } };
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const answer = this.answer(req);
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
  }

  /** The status and JSON body for one request. */
  private answer(req: IncomingMessage): { status: number; body: unknown } {
    const url = new URL(req.url ?? "/", "http://dev");
    const path = url.pathname;
    if (req.method !== "GET") return this.reply(405, { code: 405, message: "method not allowed" });
    if (path === "/eth/v1/node/version") return this.reply(200, { data: { version: this.version } });
    if (path === "/eth/v1/beacon/genesis") {
      return this.reply(200, {
        data: {
          genesis_time: String(this.genesisTime()),
          genesis_validators_root: `0x${"00".repeat(32)}`,
          genesis_fork_version: "0x00000000",
        },
      });
    }
    if (path === "/eth/v1/config/spec") {
      return this.reply(200, { data: { SECONDS_PER_SLOT: String(DEV_SECONDS_PER_SLOT) } });
    }
    const blobs = /^\/eth\/v1\/beacon\/blobs\/([^/]+)$/.exec(path);
    if (blobs !== null) return this.blobs(decodeURIComponent(blobs[1]!), url.searchParams.getAll("versioned_hashes"));
    const m = /^\/eth\/v1\/beacon\/blob_sidecars\/([^/]+)$/.exec(path);
    if (m === null) return this.missing(`no route ${path}`);
    const block = this.blockOf(decodeURIComponent(m[1]!));
    if (block === null) return this.missing(`block not found: ${m[1]}`);
    const all = this.sidecars.atBlock(block.number, block.hash);
    if (all === null) return this.missing(`no blob sidecars for block ${block.number}`);
    const wanted = new Set<number>();
    for (const v of url.searchParams.getAll("indices")) {
      for (const part of v.split(",")) if (part.trim() !== "") wanted.add(Number(part));
    }
    const slot = block.timestamp - this.genesisTime();
    const data = all
      .filter((s) => wanted.size === 0 || wanted.has(s.index))
      .map((s) => ({
        index: String(s.index),
        blob: bytesToHex(s.blob),
        kzg_commitment: bytesToHex(s.commitment),
        kzg_proof: bytesToHex(s.proof),
        signed_block_header: {
          message: {
            slot: String(slot),
            proposer_index: "0",
            parent_root: bytesToHex(block.parentHash),
            state_root: `0x${"00".repeat(32)}`,
            body_root: bytesToHex(block.hash),
          },
          signature: `0x${"00".repeat(96)}`,
        },
      }));
    return this.reply(200, { data });
  }

  /**
   * getBlobs (beacon-APIs apis/beacon/blobs/blobs.yaml): the block's blobs in block order, only those
   * whose versioned hash is asked for when `versioned_hashes` is given (repeated or comma-separated).
   */
  private blobs(id: string, hashParams: readonly string[]): { status: number; body: unknown } {
    const block = this.blockOf(id);
    if (block === null) return this.missing("Block not found");
    const all = this.sidecars.atBlock(block.number, block.hash);
    if (all === null) return this.missing(`no blobs for block ${block.number}`);
    const wanted = new Set<string>();
    for (const v of hashParams) {
      for (const part of v.split(",")) if (part.trim() !== "") wanted.add(part.trim().toLowerCase());
    }
    const data = all
      .filter((s) => wanted.size === 0 || wanted.has(bytesToHex(kzgToVersionedHash(s.commitment))))
      .map((s) => bytesToHex(s.blob));
    const fin = this.chain.store.meta(META_FINALIZED);
    const finalizedNumber = fin === null ? -1 : (this.chain.store.header(fin)?.number ?? -1);
    return this.reply(200, { execution_optimistic: false, finalized: block.number <= finalizedNumber, data });
  }

  /** The canonical block of a slot, `head`, or a 0x block hash. */
  private blockOf(id: string): { number: number; hash: Uint8Array; timestamp: number; parentHash: Uint8Array } | null {
    const store = this.chain.store;
    if (id === "head") {
      const h = this.chain.head;
      return { number: h.number, hash: this.chain.headBlockHash, timestamp: h.timestamp, parentHash: h.parentHash };
    }
    if (/^0x[0-9a-fA-F]{64}$/.test(id)) {
      const hash = hexToBytes(id);
      const h = store.header(hash);
      return h === null ? null : { number: h.number, hash, timestamp: h.timestamp, parentHash: h.parentHash };
    }
    if (!/^[0-9]+$/.test(id)) return null;
    const ts = this.genesisTime() + Number(id) * DEV_SECONDS_PER_SLOT;
    // Dev timestamps rise by at least one second per block: search down from the head.
    for (let n = this.chain.head.number; n >= 0; n--) {
      const hash = store.canonicalHash(n);
      if (hash === null) return null;
      const h = store.header(hash);
      if (h === null) return null;
      if (h.timestamp === ts) return { number: n, hash, timestamp: h.timestamp, parentHash: h.parentHash };
      if (h.timestamp < ts) return null;
    }
    return null;
  }
}
