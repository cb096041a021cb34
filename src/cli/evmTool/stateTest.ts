/**
 * `opal-evm statetest`: runs GeneralStateTests-format fixtures (ethereum/tests, EEST). Each case is
 * one (fork, post entry): the pre-state is built fresh, the tx (its `txbytes`) validated and
 * executed, and the state root and logs hash compared with the fixture. Nothing a fixture holds can
 * crash the runner: a malformed file or an exception inside a case becomes a failed case.
 */

import { readFileSync } from "node:fs";
import { blobBaseFee } from "../../block/blobGas.js";
import { encodeLog } from "../../block/log.js";
import { keccak256 } from "../../crypto/keccak.js";
import type { BlockContext } from "../../evm/context.js";
import { Evm } from "../../evm/evm.js";
import type { Tracer } from "../../evm/tracer.js";
import { executeTx } from "../../executor/executeTx.js";
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { encodeRlpListOfEncoded } from "../../rlp/encode.js";
import { DEFAULT_CANCUN_BLOB_PARAMS, DEFAULT_PRAGUE_BLOB_PARAMS } from "../../spec/chainConfig.js";
import { Fork, forkFromFixtureName, l1Rules } from "../../spec/forks.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../state/worldState.js";
import { computeStateRoot } from "../../trie/stateRoot.js";
import { decodeTx } from "../../tx/envelope.js";
import { recoverSender } from "../../tx/signer.js";
import { validateTx } from "../../tx/validateTx.js";
import { buildPreState, type FixtureAccount, fixtureBigint } from "./preState.js";

export interface CaseResult {
  name: string;
  fork: string;
  pass: boolean;
  stateRoot: string;
  error: string | null;
}

export interface RunOptions {
  /** Only this fork (fixture spelling). */
  fork?: string;
  /** Only tests whose name matches. */
  run?: RegExp;
  /** EIP-3155 tracer factory, one per case. */
  tracer?: () => Tracer;
}

interface PostEntry {
  hash: string;
  logs: string;
  txbytes?: string;
  expectException?: string;
  indexes: { data: number; gas: number; value: number };
}

interface StateTestJson {
  env: Record<string, string>;
  pre: Record<string, FixtureAccount>;
  transaction: Record<string, unknown>;
  post: Record<string, PostEntry[]>;
  config?: { chainid?: string };
}

/** The BLOCKHASH convention of state tests (geth tests/state_test_util.go): keccak256 of the decimal number. */
function stateTestBlockHash(n: bigint): bigint {
  const h = keccak256(new TextEncoder().encode(n.toString()));
  return bytesToBigint(h);
}

export function runStateTestFile(path: string, opts: RunOptions = {}): CaseResult[] {
  let doc: Record<string, StateTestJson>;
  try {
    doc = JSON.parse(readFileSync(path, "utf8")) as Record<string, StateTestJson>;
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new Error("not a JSON object of tests");
  } catch (e) {
    return [
      { name: path, fork: "", pass: false, stateRoot: "", error: `cannot read test file: ${(e as Error).message}` },
    ];
  }
  const out: CaseResult[] = [];
  for (const [name, test] of Object.entries(doc)) {
    if (opts.run !== undefined && !opts.run.test(name)) continue;
    if (typeof test !== "object" || test === null || typeof test.post !== "object") {
      out.push({ name, fork: "", pass: false, stateRoot: "", error: "malformed test: no post section" });
      continue;
    }
    for (const [forkName, entries] of Object.entries(test.post)) {
      if (opts.fork !== undefined && opts.fork !== forkName) continue;
      for (let i = 0; i < entries.length; i++) {
        const caseName = entries.length > 1 ? `${name}[${i}]` : name;
        try {
          out.push(runCase(caseName, forkName, test, entries[i], opts));
        } catch (e) {
          out.push({
            name: caseName,
            fork: forkName,
            pass: false,
            stateRoot: "",
            error: `runner exception: ${(e as Error).stack ?? e}`,
          });
        }
      }
    }
  }
  return out;
}

function runCase(name: string, forkName: string, test: StateTestJson, post: PostEntry, opts: RunOptions): CaseResult {
  const fork = forkFromFixtureName(forkName);
  const result = (pass: boolean, root: Uint8Array | null, error: string | null): CaseResult => ({
    name,
    fork: forkName,
    pass,
    stateRoot: root === null ? "" : bytesToHex(root),
    error,
  });
  if (fork === undefined) return result(false, null, `unknown fork ${forkName}`);
  const rules = l1Rules(fork);
  const env = test.env;
  const { kv, root: preRoot } = buildPreState(test.pre);
  const chainId = fixtureBigint(test.config?.chainid ?? "0x01");
  const excess = env.currentExcessBlobGas === undefined ? 0 : Number(fixtureBigint(env.currentExcessBlobGas));
  const block: BlockContext = {
    coinbase: fixtureBigint(env.currentCoinbase),
    number: fixtureBigint(env.currentNumber),
    timestamp: fixtureBigint(env.currentTimestamp),
    gasLimit: fixtureBigint(env.currentGasLimit),
    difficulty: fixtureBigint(env.currentDifficulty),
    prevRandao: fixtureBigint(env.currentRandom),
    baseFee: fixtureBigint(env.currentBaseFee),
    blobBaseFee:
      fork >= Fork.Cancun
        ? blobBaseFee(
            excess,
            (fork >= Fork.Prague ? DEFAULT_PRAGUE_BLOB_PARAMS : DEFAULT_CANCUN_BLOB_PARAMS).baseFeeUpdateFraction,
          )
        : 0n,
    chainId,
    blockHash: stateTestBlockHash,
  };
  const state = new WorldState(new KvStateReader(kv), kv);
  const evm = new Evm(rules, block, state);
  const tracer = opts.tracer?.() ?? null;
  evm.tracer = tracer;
  const expectFail = post.expectException !== undefined;

  let rejection: string | null = null;
  let logsHash = keccak256(encodeRlpListOfEncoded([]));
  if (post.txbytes === undefined) return result(false, null, "post entry has no txbytes");
  try {
    const tx = decodeTx(hexToBytes(post.txbytes));
    rejection = validateTx(tx, { rules, chainId });
    if (rejection === null) {
      const sender = recoverSender(tx);
      if (sender === null) {
        rejection = "SENDER_RECOVERY_FAILED";
      } else {
        const gasLimit = block.gasLimit;
        const r = executeTx(evm, tx, { sender, blockGasLeft: gasLimit, blobGasLeft: blobGasLimit(fork) });
        if (typeof r === "string") {
          rejection = r;
        } else {
          logsHash = keccak256(encodeRlpListOfEncoded(r.logs.map(encodeLog)));
          tracer?.summary(r.output, r.gasUsed, r.error);
        }
      }
    }
  } catch (e) {
    rejection = `tx decode: ${(e as Error).message}`;
  }

  // geth's state test runner credits the coinbase with 0 after the tx: it exists pre-EIP-161 even when
  // the tx was rejected, and is removed when empty after it.
  const cb = state.account(block.coinbase);
  state.addBalance(cb, 0n);
  state.finalizeTx(fork >= Fork.SpuriousDragon);
  void addressToBigint;

  const commit = state.commitBlock();
  kv.write(commit.batch);
  const rootRes = computeStateRoot(kv);
  const root = rootRes.root;
  const wantRoot = hexToBytes(post.hash);
  if (rejection !== null) {
    if (!expectFail) return result(false, root, `tx rejected: ${rejection}`);
    const same = equalBytes(root, wantRoot) || equalBytes(preRoot, wantRoot);
    return result(same, root, same ? null : `tx rejected (${rejection}) as expected but root differs`);
  }
  if (expectFail) return result(false, root, `tx executed, expected exception ${post.expectException}`);
  if (!equalBytes(root, wantRoot)) return result(false, root, `state root mismatch: want ${post.hash}`);
  if (!equalBytes(logsHash, hexToBytes(post.logs))) return result(false, root, `logs hash mismatch: want ${post.logs}`);
  return result(true, root, null);
}

/** Blob gas room of a state-test block: the fork's maximum. */
function blobGasLimit(fork: Fork): number {
  return (fork >= Fork.Prague ? 9 : 6) * 131072;
}
