/**
 * An OP chain (every fork through Jovian at genesis) built here for the debug_* state methods: blocks
 * of known txs whose storage effects the tests compute on their own. Each block opens with the
 * L1-attributes deposit; the user txs come from one funded key:
 *   1: WRITER stores slots 0..39 = 7·(i+1); a copy of WRITER is deployed (CREATE); a contract is
 *      created that writes a slot and self-destructs in the same tx (Cancun: it is deleted).
 *   2: WRITER sets slots 0..9 = 1000+i and clears 10..14; then stores 100..109 = 5; a transfer.
 *   3: WRITER clears 0..9, 15..39 and 100..104 (tries collapse); HASHER stores BLOCKHASH(0).
 *   4: HASHER stores BLOCKHASH(1); the WRITER copy stores slot 1 = 1.
 *   5: HASHER stores BLOCKHASH(2).
 * WRITER takes calldata as (slot, value) word pairs and SSTOREs each; HASHER stores
 * BLOCKHASH(NUMBER-3) at slot NUMBER.
 */
import { type BlockBody, encodeBlock } from "../../../../src/block/block.js";
import type { Header } from "../../../../src/block/header.js";
import { encodeJovianExtraData } from "../../../../src/block/opExtraData.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../../src/primitives/u256.js";
import { encodeRlp, uintToRlpBytes } from "../../../../src/rlp/encode.js";
import type { KvStore } from "../../../../src/storage/kv.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { encodeL1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { OP_CHAIN_ID, opGenesis } from "../../../utils/genesis.js";

export const KEY = hexToBytes(`0x${"42".repeat(32)}`);
export const SENDER = privateKeyToAddress(KEY);
export const WRITER = hexToBytes("0x00000000000000000000000000000000c0de0001");
export const HASHER = hexToBytes("0x00000000000000000000000000000000c0de0002");
const L1_BLOCK = hexToBytes("0x4200000000000000000000000000000000000015");
const DEPOSITOR = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
const FRESH = hexToBytes("0x00000000000000000000000000000000000f4e54");

/** i = 0; while (i < CALLDATASIZE) { SSTORE(cd[i], cd[i+32]); i += 64 } */
export const WRITER_CODE = hexToBytes("0x60005b803611600a57005b8060200135813555604001600256");
/** SSTORE(NUMBER, BLOCKHASH(NUMBER - 3)) */
const HASHER_CODE = hexToBytes("0x6003430340435500");

/** Init code returning WRITER_CODE (CODECOPY of the bytes after it, then RETURN). */
function deployCode(runtime: Uint8Array): Uint8Array {
  const n = runtime.length;
  const init = Uint8Array.of(0x60, n, 0x60, 12, 0x60, 0, 0x39, 0x60, n, 0x60, 0, 0xf3);
  const out = new Uint8Array(init.length + runtime.length);
  out.set(init);
  out.set(runtime, init.length);
  return out;
}

/** Init code: SSTORE(0, 1); SELFDESTRUCT(CALLER). */
const SELF_DESTRUCTING = hexToBytes("0x600160005533ff");

/** Writer calldata for (slot, value) pairs. */
export function writes(pairs: readonly (readonly [bigint, bigint])[]): Uint8Array {
  const out = new Uint8Array(64 * pairs.length);
  pairs.forEach(([s, v], i) => {
    out.set(bigintToBytes32(s), 64 * i);
    out.set(bigintToBytes32(v), 64 * i + 32);
  });
  return out;
}

function range(from: number, to: number): bigint[] {
  const out: bigint[] = [];
  for (let i = from; i <= to; i++) out.push(BigInt(i));
  return out;
}

/** The CREATE address of SENDER's tx with `nonce`: keccak(rlp([sender, nonce]))[12:]. */
export function createAddress(nonce: number): Uint8Array {
  return keccak256(encodeRlp([SENDER, uintToRlpBytes(BigInt(nonce))])).subarray(12);
}

export function opDebugGenesis(): unknown {
  return opGenesis(
    new Map([
      [SENDER, { balance: 1000n * 10n ** 18n }],
      [WRITER, { balance: 0n, code: WRITER_CODE }],
      [HASHER, { balance: 0n, code: HASHER_CODE }],
    ]),
  );
}

export function chainOn(kv: KvStore = new MemoryKv()): Blockchain {
  const json = opDebugGenesis() as { config: unknown };
  return Blockchain.init(kv, parseGenesis(json), json.config);
}

function l1Info(n: number): Uint8Array {
  const info = newL1BlockInfo({
    format: L1InfoFormat.Jovian,
    number: BigInt(100 + n),
    timestamp: 1n,
    baseFee: 1_000_000_000n,
    blobBaseFee: 1n,
    hash: new Uint8Array(32).fill(n),
    baseFeeScalar: 1368,
    blobBaseFeeScalar: 810_949,
    daFootprintGasScalar: 400,
  });
  return encodeTx({
    type: TxType.Deposit,
    sourceHash: new Uint8Array(32).fill(0xa0 + n),
    from: DEPOSITOR,
    to: L1_BLOCK,
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: false,
    data: encodeL1BlockInfo(info),
  });
}

function userTx(nonce: number, to: Uint8Array | null, data: Uint8Array, gas = 3_000_000n, value = 0n): Uint8Array {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: OP_CHAIN_ID,
    nonce: BigInt(nonce),
    maxPriorityFeePerGas: 1n,
    maxFeePerGas: 10_000_000_000n,
    gasLimit: gas,
    to,
    value,
    data,
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return encodeTx(signTx(tx, KEY));
}

/** The user txs of blocks 1..5 (after each block's deposit). */
function userTxs(): Uint8Array[][] {
  let nonce = 0;
  const next = (to: Uint8Array | null, data: Uint8Array, gas?: bigint, value?: bigint) =>
    userTx(nonce++, to, data, gas, value);
  const none = new Uint8Array(0);
  return [
    [
      next(WRITER, writes(range(0, 39).map((i) => [i, 7n * (i + 1n)]))),
      next(null, deployCode(WRITER_CODE)),
      next(null, SELF_DESTRUCTING),
    ],
    [
      next(
        WRITER,
        writes([...range(0, 9).map((i) => [i, 1000n + i] as const), ...range(10, 14).map((i) => [i, 0n] as const)]),
      ),
      next(WRITER, writes(range(100, 109).map((i) => [i, 5n]))),
      next(FRESH, none, 21_000n, 12345n),
    ],
    [
      next(WRITER, writes([...range(0, 9), ...range(15, 39), ...range(100, 104)].map((i) => [i, 0n]))),
      next(HASHER, none),
    ],
    [next(HASHER, none), next(createAddress(1), writes([[1n, 1n]]))],
    [next(HASHER, none)],
  ];
}

/** Header fields a block is built with: the rest follows from the parent and the txs. */
export function buildFields(h: Header) {
  return {
    parentHash: h.parentHash,
    timestamp: h.timestamp,
    feeRecipient: h.coinbase,
    prevRandao: h.mixHash,
    gasLimit: h.gasLimit,
    extraData: h.extraData,
    withdrawals: [],
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
  };
}

export interface OpDebugChain {
  readonly chain: Blockchain;
  /** RLP of blocks 1..5 (index 0 is block 1). */
  readonly blocks: Uint8Array[];
  readonly bodies: BlockBody[];
  readonly headers: Header[];
}

/** Builds blocks 1..`upTo` (default 5) on a fresh chain over `kv`, each made the head. */
export function buildOpDebugChain(kv: KvStore = new MemoryKv(), upTo = 5): OpDebugChain {
  const chain = chainOn(kv);
  const all = userTxs();
  const blocks: Uint8Array[] = [];
  const bodies: BlockBody[] = [];
  const headers: Header[] = [];
  for (let n = 1; n <= upTo; n++) {
    const parent = chain.head;
    const built = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp: parent.timestamp + 2,
      feeRecipient: hexToBytes("0x00000000000000000000000000000000000000fe"),
      prevRandao: new Uint8Array(32).fill(n),
      gasLimit: parent.gasLimit,
      extraData: encodeJovianExtraData(250, 6, 0n),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
      forced: [l1Info(n), ...all[n - 1]!],
      pool: null,
    });
    if ("error" in built) throw new Error(`block ${n}: ${built.error} (tx ${built.forcedIndex})`);
    if (built.body.transactions.length !== all[n - 1]!.length + 1) throw new Error(`block ${n} left txs out`);
    chain.setHead(built.hash);
    blocks.push(encodeBlock({ header: built.header, body: built.body }));
    bodies.push(built.body);
    headers.push(built.header);
  }
  return { chain, blocks, bodies, headers };
}

/** A second chain from the same genesis with `blocks` imported (each made the head). */
export function importInto(blocks: readonly Uint8Array[], kv: KvStore = new MemoryKv()): Blockchain {
  const chain = chainOn(kv);
  for (const rlp of blocks) {
    const r = chain.insertBlock(rlp);
    if (r.status !== "VALID") throw new Error(`import: ${r.status} ${r.error}`);
    chain.setHead(r.hash);
  }
  return chain;
}
