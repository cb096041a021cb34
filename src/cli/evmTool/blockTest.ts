/**
 * `opal-evm blocktest`: runs BlockchainTests-format fixtures (ethereum/tests, EEST) through the
 * same import path as the node (chain/importBlock.ts): genesis from `pre` (its root must match the
 * genesis header), each block imported onto its parent (a side branch is reached by rewinding and
 * replaying the stored write batches), blocks marked `expectException` must be rejected, and at the
 * end the head must be `lastblockhash` and the state must equal `postState` / `postStateHash`.
 */
import { readFileSync } from "node:fs";
import { decodeBlock } from "../../block/block.js";
import { type Header, headerHash } from "../../block/header.js";
import { importBlock, isImportFailure, rewind } from "../../chain/importBlock.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { parseChainConfig } from "../../spec/chainConfig.js";
import type { KvStore, WriteBatch } from "../../storage/kv.js";
import { fixtureNetworkConfig } from "./networks.js";
import { buildPreState, type FixtureAccount } from "./preState.js";
import type { CaseResult, RunOptions } from "./stateTest.js";

interface BlockJson {
  rlp: string;
  expectException?: string;
  blockHeader?: Record<string, string>;
}

interface BlockTestJson {
  network: string;
  pre: Record<string, FixtureAccount>;
  genesisRLP: string;
  blocks: BlockJson[];
  lastblockhash: string;
  postState?: Record<string, FixtureAccount>;
  postStateHash?: string;
  config?: { chainid?: string; blobSchedule?: Record<string, Record<string, string>> };
}

interface Known {
  header: Header;
  parent: string | null;
  forward: WriteBatch[];
  undo: WriteBatch[];
  /** Total difficulty (pre-merge fork choice). */
  td: bigint;
}

export function runBlockTestFile(path: string, opts: Omit<RunOptions, "tracer"> = {}): CaseResult[] {
  let doc: Record<string, BlockTestJson>;
  try {
    doc = JSON.parse(readFileSync(path, "utf8")) as Record<string, BlockTestJson>;
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new Error("not a JSON object of tests");
  } catch (e) {
    return [
      { name: path, fork: "", pass: false, stateRoot: "", error: `cannot read test file: ${(e as Error).message}` },
    ];
  }
  const out: CaseResult[] = [];
  for (const [name, test] of Object.entries(doc)) {
    if (opts.run !== undefined && !opts.run.test(name)) continue;
    const network = typeof test?.network === "string" ? test.network : "";
    if (opts.fork !== undefined && opts.fork !== network) continue;
    try {
      out.push(runCase(name, test));
    } catch (e) {
      out.push({
        name,
        fork: network,
        pass: false,
        stateRoot: "",
        error: `runner exception: ${(e as Error).stack ?? e}`,
      });
    }
  }
  return out;
}

function runCase(name: string, test: BlockTestJson): CaseResult {
  const fork = test.network;
  const fail = (error: string, root = ""): CaseResult => ({ name, fork, pass: false, stateRoot: root, error });
  const raw = fixtureNetworkConfig(test.network, test.config?.blobSchedule);
  if (test.config?.chainid !== undefined) raw.chainId = Number(BigInt(test.config.chainid));
  const cfg = parseChainConfig(raw);
  const genesis = decodeBlock(hexToBytes(test.genesisRLP)).header;
  const { kv, root } = buildPreState(test.pre);
  if (!equalBytes(root, genesis.stateRoot))
    return fail(`genesis state root ${bytesToHex(root)} differs from the header's`);
  const genesisHash = bytesToHex(headerHash(genesis));

  const known = new Map<string, Known>();
  known.set(genesisHash, { header: genesis, parent: null, forward: [], undo: [], td: genesis.difficulty });
  let head = genesisHash;

  for (let i = 0; i < test.blocks.length; i++) {
    const b = test.blocks[i];
    const expectFail = b.expectException !== undefined;
    let rlp: Uint8Array;
    try {
      rlp = hexToBytes(b.rlp);
    } catch {
      if (expectFail) continue;
      return fail(`block ${i}: rlp is not hex`);
    }
    const parentHash = parentHashOf(rlp);
    const parent = parentHash === null ? undefined : known.get(parentHash);
    if (parent === undefined) {
      if (expectFail) continue;
      return fail(`block ${i}: unknown parent`);
    }
    const from = head;
    moveTo(kv, known, head, parentHash as string);
    const res = importBlock({ kv, cfg, blockHash: canonicalHashes(known, parentHash as string) }, parent.header, rlp);
    if (isImportFailure(res)) {
      moveTo(kv, known, parentHash as string, from);
      if (expectFail) continue;
      return fail(`block ${i}: rejected: ${res.error}`);
    }
    if (expectFail) {
      rewind(kv, res.undo);
      moveTo(kv, known, parentHash as string, from);
      return fail(`block ${i}: imported, expected ${b.expectException}`);
    }
    const hash = bytesToHex(res.hash);
    const td = parent.td + res.header.difficulty;
    known.set(hash, { header: res.header, parent: parentHash, forward: res.forward, undo: res.undo, td });
    // Fork choice: total difficulty before the merge (ties keep the current head), the newest block after.
    const cur = known.get(from) as Known;
    if (res.header.difficulty === 0n || td > cur.td) {
      head = hash;
    } else {
      moveTo(kv, known, hash, from);
    }
  }

  const headRoot = bytesToHex((known.get(head) as Known).header.stateRoot);
  if (head !== test.lastblockhash.toLowerCase()) return fail(`head ${head}, want ${test.lastblockhash}`, headRoot);
  if (test.postState !== undefined) {
    const want = buildPreState(test.postState).root;
    if (bytesToHex(want) !== headRoot)
      return fail(`post state root ${headRoot}, postState gives ${bytesToHex(want)}`, headRoot);
  } else if (test.postStateHash !== undefined && test.postStateHash.toLowerCase() !== headRoot) {
    return fail(`post state root ${headRoot}, want ${test.postStateHash}`, headRoot);
  }
  return { name, fork, pass: true, stateRoot: headRoot, error: null };
}

/** The parentHash of an encoded block, read without a full decode; null when the RLP is not a block. */
function parentHashOf(rlp: Uint8Array): string | null {
  try {
    return bytesToHex(decodeBlock(rlp).header.parentHash);
  } catch {
    return null;
  }
}

/** Rewinds and replays stored batches so that the store holds the state after block `to`. */
function moveTo(kv: KvStore, known: Map<string, Known>, from: string, to: string): void {
  if (from === to) return;
  const ancestors = (h: string): string[] => {
    const path: string[] = [];
    for (let c: string | null = h; c !== null; c = (known.get(c) as Known).parent) path.push(c);
    return path;
  };
  const a = ancestors(from);
  const b = ancestors(to);
  const inB = new Set(b);
  let i = 0;
  while (!inB.has(a[i])) {
    rewind(kv, (known.get(a[i]) as Known).undo);
    i++;
  }
  const common = a[i];
  const replay = b.slice(0, b.indexOf(common)).reverse();
  for (const h of replay) for (const batch of (known.get(h) as Known).forward) kv.write(batch);
}

/** BLOCKHASH over the chain ending at `tip`. */
function canonicalHashes(known: Map<string, Known>, tip: string): (n: bigint) => bigint {
  const byNumber = new Map<number, bigint>();
  for (let c: string | null = tip; c !== null; c = (known.get(c) as Known).parent) {
    byNumber.set((known.get(c) as Known).header.number, BigInt(c));
  }
  return (n: bigint) => byNumber.get(Number(n)) ?? 0n;
}
