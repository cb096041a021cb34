/**
 * The synthetic states of `npm run bench -- scale`, written straight into a RocksDB datadir with the
 * node's own writers (no transactions): the flat rows through init-state's `StateRowWriter`, the
 * tries by `buildFreshStateRoot` (the full computation), and block 0 recorded by `recordBaseBlock`,
 * so `opal-exec` opens the datadir as any chain.
 *
 * The chain is geth `--dev`'s L1 (every fork through Prague at genesis, its system contracts and
 * precompile accounts), plus:
 * - `accounts` plain accounts (1 ETH each) at addresses derived by hashing their index, with no
 *   key: transfers and token transfers go *to* them, at random, so their reads are cold;
 * - `senders` funded accounts with keys (the txs' senders, each holding tokens);
 * - BenchToken (the shared workloads' ERC-20, `../shared/bench/BenchToken.sol`: balanceOf at slot
 *   0, totalSupply at slot 2) at TOKEN, whose first `holders` plain accounts hold a balance — a
 *   contract with that many storage slots.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { genesisHeader, parseGenesis } from "../../src/chain/genesis.js";
import { keccak256 } from "../../src/crypto/keccak.js";
import { privateKeyToAddress } from "../../src/crypto/secp256k1.js";
import { l1DevGenesis } from "../../src/node/exec/devGenesis.js";
import { recordBaseBlock, StateRowWriter } from "../../src/node/exec/initState.js";
import { hexToBytes } from "../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../src/primitives/u256.js";
import { openStore } from "../../src/storage/engine.js";
import { buildFreshStateRoot } from "../../src/trie/freshStateRoot.js";
import { SHARED_BENCH } from "../lib.js";

export const TOKEN = hexToBytes("0x1000000000000000000000000000000000000001");
const ETHER = 10n ** 18n;
/** Each holder's token balance, and each sender's. */
export const HOLDER_TOKENS = 1_000n * ETHER;
const SENDER_TOKENS = 1_000_000n * ETHER;
/** The dev chain's gas limit here: 60M, so a block of the stream fits. */
export const SCALE_GAS_LIMIT = 60_000_000n;

export interface ScaleSpec {
  readonly accounts: number;
  readonly holders: number;
  readonly senders: number;
}

export interface ScaleState {
  readonly spec: ScaleSpec;
  readonly root: Uint8Array;
  readonly hash: Uint8Array;
  readonly writeMs: number;
  readonly rootMs: number;
}

/** A deterministic generator (xorshift32): the same seed gives the same stream and the same reads. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** The address of plain account `i` (no key). */
export function accountAddress(i: number): Uint8Array {
  const seed = new Uint8Array(8);
  new DataView(seed.buffer).setUint32(0, 0x5ca1e000);
  new DataView(seed.buffer).setUint32(4, i);
  return keccak256(seed).subarray(12);
}

/** The private key of sender `j`. */
export function senderKey(j: number): Uint8Array {
  return keccak256(new TextEncoder().encode(`opal-bench-scale:sender:${j}`));
}

/** keccak(slot key) of `balanceOf[holder]` (mapping at slot 0), the flat-state key of that slot. */
export function balanceSlotHash(holder: Uint8Array): Uint8Array {
  const pre = new Uint8Array(64);
  pre.set(holder, 12);
  return keccak256(keccak256(pre));
}

function minimal(v: bigint): Uint8Array {
  const w = bigintToBytes32(v);
  let z = 0;
  while (z < 32 && w[z] === 0) z++;
  return w.subarray(z);
}

function tokenCode(): Uint8Array {
  const c = JSON.parse(readFileSync(join(SHARED_BENCH, "contracts.json"), "utf8")) as {
    contracts: { BenchToken: { deployedBytecode: string } };
  };
  const hex = c.contracts.BenchToken.deployedBytecode;
  return hexToBytes(hex.startsWith("0x") ? hex : `0x${hex}`);
}

/** The genesis JSON of the scale chains (its alloc is written by `buildScaleState`, not from here). */
export function scaleGenesisJson(): Record<string, unknown> {
  return l1DevGenesis(SCALE_GAS_LIMIT, [], { osakaTime: null });
}

/** Writes the state of `spec` into `<datadir>/chaindata` (which must be empty) and records block 0. */
export async function buildScaleState(datadir: string, spec: ScaleSpec, log: (l: string) => void): Promise<ScaleState> {
  const g = scaleGenesisJson();
  const opened = await openStore(join(datadir, "chaindata"), "rocksdb");
  const kv = opened.kv;
  try {
    const t0 = performance.now();
    const rows = new StateRowWriter(kv);
    const empty = new Uint8Array(0);
    // geth --dev's alloc: the system contracts and the precompiles' 1-wei accounts.
    for (const [a, v] of Object.entries(
      g.alloc as Record<string, { balance: string; nonce?: string; code?: string }>,
    )) {
      rows.add({
        hashedAddress: keccak256(hexToBytes(a)),
        nonce: BigInt(v.nonce ?? "0x0"),
        balance: BigInt(v.balance),
        code: v.code === undefined ? empty : hexToBytes(v.code),
        storage: [],
      });
    }
    for (let i = 0; i < spec.accounts; i++) {
      rows.add({ hashedAddress: keccak256(accountAddress(i)), nonce: 0n, balance: ETHER, code: empty, storage: [] });
      if (i > 0 && i % 5_000_000 === 0) log(`  ${i.toLocaleString("en-US")} accounts written`);
    }
    const tokenSlots: [Uint8Array, Uint8Array][] = [];
    for (let j = 0; j < spec.senders; j++) {
      const a = privateKeyToAddress(senderKey(j));
      rows.add({ hashedAddress: keccak256(a), nonce: 0n, balance: 1_000n * ETHER, code: empty, storage: [] });
      tokenSlots.push([balanceSlotHash(a), minimal(SENDER_TOKENS)]);
    }
    const supply = BigInt(spec.holders) * HOLDER_TOKENS + BigInt(spec.senders) * SENDER_TOKENS;
    const tokenHash = keccak256(TOKEN);
    rows.add({
      hashedAddress: tokenHash,
      nonce: 1n,
      balance: 0n,
      code: tokenCode(),
      storage: [...tokenSlots, [keccak256(bigintToBytes32(2n)), minimal(supply)]],
    });
    // The holders' slots, in chunks (a million slots are not built as one list).
    const value = minimal(HOLDER_TOKENS);
    for (let h = 0; h < spec.holders; ) {
      const chunk: [Uint8Array, Uint8Array][] = [];
      for (const end = Math.min(spec.holders, h + 50_000); h < end; h++)
        chunk.push([balanceSlotHash(accountAddress(h)), value]);
      rows.addSlots(tokenHash, chunk);
    }
    rows.finish();
    const t1 = performance.now();
    const r = buildFreshStateRoot(kv);
    const t2 = performance.now();
    const header = genesisHeader(parseGenesis(g), r.root);
    const hash = recordBaseBlock(kv, header, g.config);
    return { spec, root: r.root, hash, writeMs: t1 - t0, rootMs: t2 - t1 };
  } finally {
    await opened.close();
  }
}
