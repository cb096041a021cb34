/**
 * Fixtures of the sync tests: a source chain of N L1 Cancun blocks (a transfer or two each, built by
 * Blockchain.buildBlock and made canonical), and in-process SyncPeers that serve it — honest, or
 * lying about headers (the first header of every answer altered, so it does not link) or bodies
 * (each body swapped with the next block's), or never answering.
 */
import { decodeHeader, encodeHeader } from "../../../../src/block/header.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import { PeerFault, type SyncPeer } from "../../../../src/devp2p/sync/syncPeer.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import type { KvStore } from "../../../../src/storage/kv.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { buildForced } from "../../../utils/blocks.js";
import { l1Genesis } from "../../../utils/genesis.js";

const KEY = hexToBytes(`0x${"42".repeat(32)}`);
const SENDER = privateKeyToAddress(KEY);

export const GENESIS = l1Genesis(new Map([[SENDER, { balance: 1000n * 10n ** 18n }]]));

/** A chain holding only the genesis of the fixtures, on `kv`. */
export function freshChain(kv: KvStore = new MemoryKv()): Blockchain {
  return Blockchain.init(kv, parseGenesis(GENESIS), (GENESIS as { config: unknown }).config);
}

/** A signed transfer from the funded key: value 1000 + nonce, to address 0x1000 + `to`. */
export function transfer(nonce: number, to: number): Uint8Array {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: 1337n,
    nonce: BigInt(nonce),
    maxPriorityFeePerGas: 2n,
    maxFeePerGas: 10n ** 10n,
    gasLimit: 21_000n,
    to: hexToBytes(`0x${(0x1000 + to).toString(16).padStart(40, "0")}`),
    value: 1000n + BigInt(nonce),
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return encodeTx(signTx(tx, KEY));
}

/** Extends `chain` by `n` blocks (1–2 transfers each), each made the head. */
export function extendChain(chain: Blockchain, n: number): void {
  let nonce = 0;
  for (let i = 0; i < chain.head.number; i++) nonce += 1 + (i % 2);
  for (let i = 0; i < n; i++) {
    const number = chain.head.number + 1;
    const forced: Uint8Array[] = [];
    for (let k = 0; k < 1 + ((number - 1) % 2); k++) forced.push(transfer(nonce++, number % 7));
    const built = buildForced(chain, forced, {
      timestamp: chain.head.timestamp + 2,
      feeRecipient: hexToBytes("0x00000000000000000000000000000000000000fe"),
      prevRandao: new Uint8Array(32).fill(number & 0xff),
    });
    chain.setHead(built.hash);
  }
}

export function sourceChain(n: number): Blockchain {
  const c = freshChain();
  extendChain(c, n);
  return c;
}

export type PeerMode = "honest" | "badHeaders" | "badBodies" | "silent";

/** A SyncPeer answering from `source`'s canonical chain. */
export class FakePeer implements SyncPeer {
  readonly faults: { fault: PeerFault; reason: string }[] = [];
  headerRequests = 0;
  bodyRequests = 0;
  /** Block numbers whose bodies were asked. */
  readonly bodiesAsked: number[] = [];
  /** Lowest header number asked (by number). */
  lowestHeaderAsked = Number.POSITIVE_INFINITY;

  constructor(
    readonly id: string,
    private readonly source: Blockchain,
    private readonly mode: PeerMode = "honest",
  ) {}

  get head(): { hash: Uint8Array; number: number | null } {
    return { hash: this.source.headBlockHash, number: this.source.head.number };
  }

  get dropped(): boolean {
    return this.faults.some((f) => f.fault === PeerFault.Useless);
  }

  async headers(origin: Uint8Array | number, count: number, skip: number, reverse: boolean): Promise<Uint8Array[]> {
    this.headerRequests++;
    if (this.mode === "silent") return new Promise(() => undefined);
    await Promise.resolve();
    const store = this.source.store;
    let n: number;
    if (typeof origin === "number") {
      n = origin;
      this.lowestHeaderAsked = Math.min(this.lowestHeaderAsked, origin - (reverse ? count - 1 : 0));
    } else {
      const h = store.header(origin);
      if (h === null) return [];
      n = h.number;
    }
    const out: Uint8Array[] = [];
    for (let i = 0; i < count && n >= 0 && n <= this.source.head.number; i++) {
      const hash = store.canonicalHash(n);
      if (hash === null) break;
      out.push(store.headerRlp(hash) as Uint8Array);
      n += reverse ? -(skip + 1) : skip + 1;
    }
    if (this.mode === "badHeaders" && out.length > 0 && typeof origin === "number") {
      const h = decodeHeader(out[0].slice());
      h.extraData = Uint8Array.of(0xba, 0xd0);
      out[0] = encodeHeader(h);
    }
    return out;
  }

  async bodies(hashes: readonly Uint8Array[]): Promise<Uint8Array[]> {
    this.bodyRequests++;
    if (this.mode === "silent") return new Promise(() => undefined);
    await Promise.resolve();
    const store = this.source.store;
    const out: Uint8Array[] = [];
    for (const h of hashes) {
      const header = store.header(h);
      if (header === null) break;
      this.bodiesAsked.push(header.number);
      let from = h;
      if (this.mode === "badBodies") from = store.canonicalHash(header.number + 1) ?? store.canonicalHash(1) ?? h;
      const body = store.bodyRlp(from);
      if (body === undefined) break;
      out.push(body);
    }
    return out;
  }

  penalize(fault: PeerFault, reason: string): void {
    this.faults.push({ fault, reason });
  }
}
