/**
 * Fixtures for the eth protocol tests: an OP chain (every fork through Jovian at genesis) with blocks
 * of an L1-info deposit plus transfers, an in-memory session pair, and timers the test drives.
 */
import { encodeBlock } from "../../../../src/block/block.js";
import { encodeJovianExtraData } from "../../../../src/block/opExtraData.js";
import { Blockchain, type TxSource } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import type { EthSession, EthTimers } from "../../../../src/devp2p/eth/session.js";
import type { DisconnectReason } from "../../../../src/devp2p/rlpx/p2pMessages.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { encodeL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, type Tx, TxType } from "../../../../src/tx/tx.js";
import { opGenesis } from "../../../utils/genesis.js";
import { jovianL1Info, l1InfoDeposit } from "../../txpool/fixtures.js";

export const KEY = hexToBytes(`0x${"42".repeat(32)}`);
export const SENDER = privateKeyToAddress(KEY);
const TO = hexToBytes("0x00000000000000000000000000000000000000aa");

export const GENESIS = opGenesis(new Map([[SENDER, { balance: 1000n * 10n ** 18n }]]));

export function newChain(json: unknown = GENESIS): Blockchain {
  return Blockchain.init(new MemoryKv(), parseGenesis(json), (json as { config: unknown }).config);
}

export function transfer(nonce: number, data: Uint8Array = new Uint8Array(0)): Tx {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: 901n,
    nonce: BigInt(nonce),
    maxPriorityFeePerGas: 2n,
    maxFeePerGas: 10n ** 10n,
    gasLimit: 200_000n,
    to: TO,
    value: 1000n,
    data,
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return signTx(tx, KEY);
}

function l1InfoDepositAt(n: number): Uint8Array {
  const info = jovianL1Info({ number: BigInt(7 + n), baseFee: 10n ** 9n, blobBaseFee: 1n });
  return l1InfoDeposit(encodeL1BlockInfo(info), n + 1);
}

/** Extends `chain` by `n` blocks of [L1-info deposit, `txsPerBlock` transfers], each made head. */
export function extend(chain: Blockchain, n: number, txsPerBlock = 2): void {
  let nonce = Number(chain.head.number) * txsPerBlock;
  for (let i = 0; i < n; i++) {
    const txs: Tx[] = [];
    for (let k = 0; k < txsPerBlock; k++) txs.push(transfer(nonce++));
    let j = 0;
    const pool: TxSource = {
      next: () => (j < txs.length ? { tx: txs[j++], sender: SENDER } : null),
      reject: () => {
        j = txs.length;
      },
    };
    const built = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp: chain.head.timestamp + 2,
      feeRecipient: hexToBytes("0x4200000000000000000000000000000000000011"),
      prevRandao: new Uint8Array(32).fill(3),
      gasLimit: 30_000_000n,
      extraData: encodeJovianExtraData(250, 6, 0n),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
      forced: [l1InfoDepositAt(chain.head.number + 1)],
      pool,
    });
    if ("error" in built) throw new Error(built.error);
    chain.setHead(built.hash);
  }
}

/** The RLP of canonical block `n` (for importing into a second chain). */
export function blockRlp(chain: Blockchain, n: number): Uint8Array {
  const hash = chain.store.canonicalHash(n);
  if (hash === null) throw new Error(`no block ${n}`);
  const header = chain.store.header(hash);
  const body = chain.store.body(hash);
  if (header === null || body === null) throw new Error(`block ${n} incomplete`);
  return encodeBlock({ header, body });
}

/** One end of an in-memory session; messages cross on the microtask queue, like a socket would. */
export class MemSession implements EthSession {
  other!: MemSession;
  handler: ((code: number, payload: Uint8Array) => void) | null = null;
  private readonly closeHandlers: ((r: DisconnectReason | null) => void)[] = [];
  closed = false;
  /** Our disconnect, if we sent one. */
  disconnected: { reason: DisconnectReason; detail: string } | null = null;
  /** Every message this end sent. */
  readonly sent: { code: number; payload: Uint8Array }[] = [];

  constructor(readonly id: string) {}

  send(code: number, payload: Uint8Array): void {
    if (this.closed) return;
    this.sent.push({ code, payload });
    const to = this.other;
    queueMicrotask(() => {
      if (!to.closed) to.handler?.(code, payload);
    });
  }
  onMessage(h: (code: number, payload: Uint8Array) => void): void {
    this.handler = h;
  }
  onClose(h: (r: DisconnectReason | null) => void): void {
    this.closeHandlers.push(h);
  }
  disconnect(reason: DisconnectReason, detail: string): void {
    if (this.closed) return;
    this.disconnected = { reason, detail };
    this.close(null);
    this.other.close(reason);
  }
  close(reason: DisconnectReason | null): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.closeHandlers) h(reason);
  }
}

export function sessionPair(a = "peer-a", b = "peer-b"): [MemSession, MemSession] {
  const x = new MemSession(b); // x is A's view: it talks to peer b
  const y = new MemSession(a);
  x.other = y;
  y.other = x;
  return [x, y];
}

/** Timers that fire only when the test says so. */
export class ManualTimers implements EthTimers {
  private seq = 0;
  readonly armed = new Map<number, { fn: () => void; ms: number }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.armed.set(id, { fn, ms });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.armed.delete(h as number);
  }
  /** Fires every armed timer of at least `ms`. */
  fire(ms = 0): void {
    for (const [id, t] of [...this.armed]) {
      if (t.ms < ms) continue;
      this.armed.delete(id);
      t.fn();
    }
  }
}

/** Lets queued microtasks (message deliveries) run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
