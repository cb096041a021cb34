/**
 * Crash consistency (issue 10, point 3): the repo's binaries run as child processes under load and
 * are killed with SIGKILL at a random point, cycle after cycle. After every restart the harness
 * checks that the process opens (its RPC answers), that each of its heads is a block it fully
 * stored (header and body by hash, the canonical index at that number, the receipts, the state at
 * that block readable), that nothing it acknowledged before the kill is lost, and that it catches
 * up: its head passes the pre-kill head within a bound (the catch-up time is measured from the
 * restart's spawn).
 *
 * Kinds (one long-lived L1, and L2 engine where needed, per kind; only the process under test dies):
 * - exec-dev: `opal-exec --dev --dev.period 1` while transfers are sent. Acknowledged: every receipt
 *   returned and every block returned by eth_getBlockByNumber("latest").
 * - exec-engine: an L2 opal-exec driven by the harness over the Engine API (forkchoiceUpdated with
 *   attributes, getPayload, newPayload, forkchoiceUpdated; JWT from a secret file). Acknowledged:
 *   each forkchoiceUpdated that answered VALID (head, safe and finalized labels).
 * - exec-import: `opal-exec import chain.rlp` killed mid-import: the datadir opens on a block of the
 *   file, and a re-run of the import completes to the file's last block.
 * - node-sequencer: opal-node --sequencer.enabled over an L2 opal-exec and an `opal-exec --dev` L1,
 *   with a batcher; in some cycles the L2 opal-exec dies too. Acknowledged: the unsafe and safe heads
 *   optimism_syncStatus reported.
 * - node-derivation: a verifier opal-node deriving the sequencer's batches from L1 (P2P off), killed
 *   mid-derivation. Acknowledged: the safe head it reported.
 * - node-admin: the sequencer opal-node with --rpc.admin-state and --safedb.path; admin_stopSequencer
 *   / admin_startSequencer at random moments and optimism_safeHeadAtL1Block answers. Acknowledged:
 *   the last sequencer state a call returned for, and every safe-head answer.
 *
 * The kill delays come from a seeded PRNG (mulberry32): the same seed replays the same kill points
 * (up to the processes' own timing).
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Blockchain } from "../../src/chain/blockchain.js";
import { devnetConfig } from "../../src/node/devnet/devnetConfig.js";
import { type DevAccount, devAccounts, devL1Info } from "../../src/node/exec/devGenesis.js";
import { bytesToHex, hexToBytes } from "../../src/primitives/hex.js";
import { writeAdminState } from "../../src/rollup/sequencer/adminState.js";
import { openStore } from "../../src/storage/engine.js";
import { WriteBatch } from "../../src/storage/kv.js";
import { RocksKv } from "../../src/storage/rocksdb.js";
import { encodeTx } from "../../src/tx/envelope.js";
import { L1InfoFormat } from "../../src/tx/l1BlockInfo.js";
import { l1InfoDepositTx } from "../../src/tx/l1InfoDeposit.js";
import { signTx } from "../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../src/tx/tx.js";
import { call, callMany, freePorts, hexNum, numOf, Prng, Proc, RpcError, sleep } from "./crashProcs.js";

export const CRASH_KINDS = [
  "exec-dev",
  "exec-engine",
  "exec-import",
  "node-sequencer",
  "node-derivation",
  "node-admin",
] as const;
export type CrashKind = (typeof CRASH_KINDS)[number];

export interface CrashOptions {
  readonly cycles: number;
  readonly seed: number;
  /**
   * Loss injection (OPAL_CRASH_INJECT_LOSS=1): after each kill the harness itself drops the last
   * acknowledged item (a block, a VALID head, a committed import batch, a safe-head entry, the admin
   * state) before the restart, so a kind whose checks work must report lost items.
   */
  readonly injectLoss?: boolean;
  /** Progress lines. */
  readonly print: (line: string) => void;
}

export interface KindResult {
  readonly kind: CrashKind;
  readonly seed: number;
  readonly cycles: number;
  /** Cycles whose restart passed every check. */
  readonly passed: number;
  /** Acknowledged items (blocks, receipts, labels, admin states, safe-head answers) missing after a restart. */
  readonly lost: number;
  /** Acknowledged items checked after restarts, in all. */
  readonly checked: number;
  /** The longest restart → head-past-the-pre-kill-head time, ms. */
  readonly maxCatchUpMs: number;
  /** Kind-specific figure (e.g. how many import kills landed mid-import). */
  readonly note: string;
  readonly failures: readonly string[];
}

/** A check that did not hold: the cycle fails (a lost acknowledged item is counted, not thrown). */
export class CrashCheckError extends Error {
  override readonly name = "CrashCheckError";
}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new CrashCheckError(what);
}

// ---------------------------------------------------------------------------------------------
// Shared pieces: datadirs, EL flags, stored-block checks, L2 transfers, the Engine API driver.

/** Quiet-ish flags of every opal-exec the harness starts (loopback, one worker per pool). */
function execFlags(http: number, auth: number): string[] {
  return [
    "--http",
    "--http.addr=127.0.0.1",
    `--http.port=${http}`,
    "--http.vhosts=*",
    "--http.api=eth,net,web3,debug,txpool",
    "--authrpc.addr=127.0.0.1",
    `--authrpc.port=${auth}`,
    "--authrpc.vhosts=*",
    "--workers.sigrecover=1",
    "--workers.triehash=1",
    "--verbosity=3",
    // devp2p on any free port, no discovery: two ELs of one kind (or another run) would both take 30303.
    "--port=0",
    "--nodiscover",
  ];
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

interface BlockRef {
  readonly number: number;
  readonly hash: string;
}

interface RpcBlock {
  number: string;
  hash: string;
  transactions: unknown[];
}

const PROBE = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";

/**
 * `ref` is a block the EL fully stored: found by hash with its body, canonical at its number,
 * its receipts served (one per tx) and its state readable.
 */
export async function checkStored(el: string, ref: BlockRef, what: string): Promise<void> {
  const byHash = (await call(el, "eth_getBlockByHash", [ref.hash, false])) as RpcBlock | null;
  check(byHash !== null, `${what} ${ref.number} ${ref.hash}: no block by hash`);
  check(numOf(byHash.number) === ref.number, `${what} ${ref.hash}: number ${numOf(byHash.number)} ≠ ${ref.number}`);
  const canon = (await call(el, "eth_getBlockByNumber", [hexNum(ref.number), false])) as RpcBlock | null;
  check(canon?.hash === ref.hash, `${what} ${ref.number}: canonical hash ${canon?.hash} ≠ ${ref.hash}`);
  const receipts = (await call(el, "eth_getBlockReceipts", [ref.hash])) as unknown[] | null;
  check(
    Array.isArray(receipts) && receipts.length === byHash.transactions.length,
    `${what} ${ref.number}: ${receipts?.length ?? "no"} receipts for ${byHash.transactions.length} txs`,
  );
  const bal = await call(el, "eth_getBalance", [PROBE, { blockHash: ref.hash }]);
  check(typeof bal === "string", `${what} ${ref.number}: no state`);
}

/** The EL's latest/safe/finalized heads, each checked as fully stored; a label not set yet is skipped. */
async function checkElHeads(el: string): Promise<Record<string, BlockRef>> {
  const out: Record<string, BlockRef> = {};
  for (const tag of ["latest", "safe", "finalized"]) {
    let b: RpcBlock | null;
    try {
      b = (await call(el, "eth_getBlockByNumber", [tag, false])) as RpcBlock | null;
    } catch (e) {
      if (tag !== "latest" && e instanceof RpcError && /block not found/.test(e.message)) continue;
      throw e;
    }
    check(b !== null || tag !== "latest", "no latest block");
    if (b === null) continue;
    const ref = { number: numOf(b.number), hash: b.hash };
    await checkStored(el, ref, `EL ${tag}`);
    out[tag] = ref;
  }
  return out;
}

/** A signed EIP-1559 transfer of 1 wei on `chainId`. */
function transfer(chainId: bigint, from: DevAccount, nonce: bigint, to: Uint8Array): string {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId,
    nonce,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 50_000_000_000n,
    gasLimit: 21_000n,
    to,
    value: 1n,
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return bytesToHex(encodeTx(signTx(tx, from.privateKey)));
}

const ACCOUNTS = devAccounts(4);

function tempRoot(kind: string): string {
  return mkdtempSync(join(tmpdir(), `opal-crash-${kind}-`));
}

/**
 * Loss injection: moves a stopped opal-exec's canonical head back to block `number` (as debug_setHead
 * does: the blocks above leave the chain with their receipts and tx index), synced.
 */
async function rewindDatadir(datadir: string, number: number): Promise<void> {
  const store = await openStore(join(datadir, "chaindata"), "rocksdb");
  try {
    const chain = Blockchain.open(store.kv);
    chain.rewindHead(Math.max(0, number));
    chain.persist();
  } finally {
    await store.close();
  }
}

/**
 * Which of `acked` (block number → hash) are no longer canonical on `el` at or below `head`; those
 * are dropped from `acked` (reported once), the rest stay acknowledged for every later cycle.
 */
async function lostBlocks(el: string, acked: Map<number, string>, head: number, what: string): Promise<string[]> {
  const numbers = [...acked.keys()];
  const got = await callMany(
    el,
    "eth_getBlockByNumber",
    numbers.map((n) => [hexNum(n), false]),
  );
  const lost: string[] = [];
  numbers.forEach((n, i) => {
    const b = got[i] as RpcBlock | null | RpcError;
    if (b instanceof RpcError || b?.hash !== acked.get(n) || head < n) {
      lost.push(`${what} ${n} ${acked.get(n)}`);
      acked.delete(n);
    }
  });
  return lost;
}

/** Runs a launcher to its end; resolves with the exit code. */
async function runToEnd(name: string, bin: "opal-exec", args: string[], logFile: string): Promise<number | null> {
  const p = Proc.spawn(name, bin, args, logFile);
  return (await p.exited).code;
}

/**
 * Builds blocks on an L2 opal-exec over the Engine API, as a rollup node does: fcu with attributes,
 * getPayload, newPayload, fcu to the new block (safe and finalized a few blocks behind). Each fcu
 * that answers VALID is acknowledged.
 */
export class EngineDriver {
  acked: { head: BlockRef; safe: BlockRef; finalized: BlockRef } | null = null;
  /** Every head a forkchoiceUpdated answered VALID for, by number. */
  readonly ackedHeads = new Map<number, string>();
  private readonly recent: BlockRef[] = [];

  constructor(
    private readonly auth: string,
    private readonly http: string,
    private readonly jwt: Uint8Array,
    private readonly chainId: bigint,
    private readonly prng: Prng,
  ) {}

  private engine(method: string, params: unknown[]): Promise<unknown> {
    return call(this.auth, method, params, { jwt: this.jwt, timeoutMs: 20_000 });
  }

  /** Builds blocks of `txsPerBlock` transfers until `stop()` says so (or `count` blocks). */
  async run(txsPerBlock: number, stop: () => boolean, count = Number.POSITIVE_INFINITY, pauseMs = 10): Promise<void> {
    const latest = (await call(this.http, "eth_getBlockByNumber", ["latest", false])) as RpcBlock & {
      timestamp: string;
    };
    let head = { number: numOf(latest.number), hash: latest.hash };
    let time = numOf(latest.timestamp);
    let nonce = BigInt(
      numOf(await call(this.http, "eth_getTransactionCount", [bytesToHex(ACCOUNTS[0]!.address), "latest"])),
    );
    this.recent.length = 0;
    this.recent.push(head);
    for (let built = 0; built < count && !stop(); built++) {
      // Every L2 block opens with its L1-attributes deposit (a synthetic L1 origin per block).
      const info = devL1Info(L1InfoFormat.Jovian, BigInt(head.number + 1), BigInt(time + 1));
      const txs: string[] = [bytesToHex(encodeTx(l1InfoDepositTx(info, true)))];
      for (let i = 0; i < txsPerBlock; i++)
        txs.push(transfer(this.chainId, ACCOUNTS[0]!, nonce + BigInt(i), ACCOUNTS[1 + (i % 3)]!.address));
      const safe = this.recent[Math.max(0, this.recent.length - 3)]!;
      const finalized = this.recent[Math.max(0, this.recent.length - 5)]!;
      const fcs = { headBlockHash: head.hash, safeBlockHash: safe.hash, finalizedBlockHash: finalized.hash };
      const attrs = {
        timestamp: hexNum(time + 1),
        prevRandao: bytesToHex(this.prng.bytes(32)),
        suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
        withdrawals: [],
        parentBeaconBlockRoot: bytesToHex(this.prng.bytes(32)),
        transactions: txs,
        noTxPool: true,
        gasLimit: "0x1c9c380",
        eip1559Params: "0x0000000000000000",
        minBaseFee: "0x0",
      };
      const r1 = (await this.engine("engine_forkchoiceUpdatedV3", [fcs, attrs])) as {
        payloadStatus: { status: string };
        payloadId: string | null;
      };
      check(r1.payloadStatus.status === "VALID" && r1.payloadId !== null, `fcu with attributes: ${JSON.stringify(r1)}`);
      const env = (await this.engine("engine_getPayloadV4", [r1.payloadId])) as {
        executionPayload: { blockHash: string; blockNumber: string };
        parentBeaconBlockRoot: string;
        executionRequests: string[];
      };
      const p = env.executionPayload;
      const np = (await this.engine("engine_newPayloadV4", [
        p,
        [],
        env.parentBeaconBlockRoot,
        env.executionRequests,
      ])) as {
        status: string;
      };
      check(np.status === "VALID", `newPayload: ${JSON.stringify(np)}`);
      const next = { number: numOf(p.blockNumber), hash: p.blockHash };
      const fcs2 = { headBlockHash: next.hash, safeBlockHash: safe.hash, finalizedBlockHash: finalized.hash };
      const r2 = (await this.engine("engine_forkchoiceUpdatedV3", [fcs2, null])) as {
        payloadStatus: { status: string };
      };
      check(r2.payloadStatus.status === "VALID", `fcu: ${JSON.stringify(r2)}`);
      this.acked = { head: next, safe, finalized };
      this.ackedHeads.set(next.number, next.hash);
      head = next;
      time++;
      nonce += BigInt(txsPerBlock);
      this.recent.push(head);
      if (this.recent.length > 8) this.recent.shift();
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }
}

/** An L2 genesis (the devnet's: OP predeploys, every fork through Jovian) with its time in the past. */
export function l2GenesisFile(dir: string): { file: string; chainId: bigint } {
  const c = devnetConfig({ timestamp: Math.floor(Date.now() / 1000) - 200_000, blockTime: 1, upTo: "jovian" });
  const file = join(dir, "l2-genesis.json");
  writeFileSync(file, JSON.stringify(c.l2Genesis));
  return { file, chainId: BigInt((c.l2Genesis.config as { chainId: number }).chainId) };
}

// ---------------------------------------------------------------------------------------------
// The cycle loop shared by every kind that runs a server (all but exec-import).

interface Subject {
  /** Writes configuration and starts the long-lived processes. */
  setup(): Promise<void>;
  /** Starts whatever process under test is down; resolves once it answers RPC. */
  start(): Promise<void>;
  /** After a restart: checks the heads (throws) and the acknowledged items; returns [lost, checked]. */
  verify(): Promise<[string[], number]>;
  /** A kind-specific figure for the report. */
  note?(): string;
  /** Checks that hold only once the node has caught up (e.g. re-derived answers); [lost, checked]. */
  afterCatchUp?(): Promise<[string[], number]>;
  /** Load and acknowledgement recording while the process under test runs, until `stop()`. */
  load(stop: () => boolean): Promise<void>;
  /** The head that must pass its pre-kill value after a restart (null while it does not answer). */
  progress(): Promise<number | null>;
  /** SIGKILL the process(es) under test; says which. */
  kill(): Promise<string>;
  /** With the process under test down: drops its last acknowledged item(s); says what (empty: none yet). */
  injectLoss(): Promise<string>;
  /** The kill delay range after catch-up, ms. */
  readonly delayMs: readonly [number, number];
  readonly catchUpLimitMs: number;
  teardown(): Promise<void>;
  /** Log tails for a failure report. */
  tails(): string;
}

async function runCycles(kind: CrashKind, s: Subject, o: CrashOptions, root: string): Promise<KindResult> {
  const prng = new Prng(o.seed);
  const failures: string[] = [];
  let passed = 0;
  let lost = 0;
  let checked = 0;
  let maxCatchUp = 0;
  let injected = 0;
  const kills: Record<string, number> = {};
  o.print(
    `crash ${kind}: seed ${o.seed}, ${o.cycles} cycles, in ${root}${o.injectLoss === true ? ", injecting loss" : ""}`,
  );
  try {
    // Inside the try: processes a failed setup started are stopped by the teardown.
    await s.setup();
    await s.start();
    let preKill = -1;
    let restartAt = Date.now();
    let lastKill = "";
    for (let cycle = 0; cycle <= o.cycles; cycle++) {
      let stopLoad = false;
      let loading: Promise<void> | null = null;
      try {
        if (cycle > 0) {
          const [l, c] = await s.verify();
          lost += l.length;
          checked += c;
          check(l.length === 0, `${l.length} of ${c} acknowledged items lost: ${l.slice(0, 4).join("; ")}`);
        }
        loading = s.load(() => stopLoad);
        loading.catch(() => undefined);
        // Catch-up: the head passes the pre-kill head.
        const end = restartAt + s.catchUpLimitMs;
        for (;;) {
          const p = await s.progress().catch(() => null);
          if (p !== null && p > preKill) break;
          check(Date.now() < end, `head did not pass ${preKill} within ${s.catchUpLimitMs} ms (at ${p})`);
          await sleep(100);
        }
        const catchUp = Date.now() - restartAt;
        if (cycle > 0 && s.afterCatchUp !== undefined) {
          const [l, c] = await s.afterCatchUp();
          lost += l.length;
          checked += c;
          check(l.length === 0, `${l.length} of ${c} acknowledged items lost: ${l.slice(0, 4).join("; ")}`);
        }
        if (cycle > 0) {
          maxCatchUp = Math.max(maxCatchUp, catchUp);
          passed++;
          o.print(
            `  ${kind} cycle ${cycle}/${o.cycles}: ok (${lastKill} at head ${preKill}), caught up in ${catchUp} ms`,
          );
        }
        if (cycle === o.cycles) {
          stopLoad = true;
          await loading.catch(() => undefined);
          break;
        }
        await sleep(prng.int(s.delayMs[0], s.delayMs[1]));
        preKill = (await s.progress().catch(() => null)) ?? preKill;
        const what = await s.kill();
        lastKill = what;
        kills[what] = (kills[what] ?? 0) + 1;
        stopLoad = true;
        await loading.catch(() => undefined);
        if (o.injectLoss === true) {
          const dropped = await s.injectLoss();
          if (dropped !== "") {
            injected++;
            lastKill += `, then dropped ${dropped}`;
          }
        }
        restartAt = Date.now();
        await s.start();
      } catch (e) {
        stopLoad = true;
        await loading?.catch(() => undefined);
        const msg = `cycle ${cycle}: ${(e as Error).message}`;
        failures.push(msg);
        o.print(`  ${kind} FAIL ${msg}\n${s.tails()}`);
        if (cycle === o.cycles) break;
        // Start over from a clean kill, so one failure does not fail every later cycle.
        try {
          lastKill = `${await s.kill()} after the failure`;
          restartAt = Date.now();
          preKill = -1;
          await s.start();
        } catch (e2) {
          failures.push(`cannot restart after the failure: ${(e2 as Error).message}`);
          break;
        }
      }
    }
  } catch (e) {
    failures.push(`setup: ${(e as Error).message}`);
    o.print(`  ${kind} FAIL setup: ${(e as Error).message}\n${s.tails()}`);
  } finally {
    await s.teardown();
  }
  if (failures.length === 0) rmSync(root, { recursive: true, force: true });
  else o.print(`  ${kind}: logs and datadirs kept in ${root}`);
  const note = [
    `killed: ${Object.entries(kills)
      .map(([k, n]) => `${k} ×${n}`)
      .join(", ")}`,
    ...(s.note === undefined ? [] : [s.note()]),
    ...(o.injectLoss === true ? [`loss injected after ${injected} kills`] : []),
  ].join("; ");
  return { kind, seed: o.seed, cycles: o.cycles, passed, lost, checked, maxCatchUpMs: maxCatchUp, note, failures };
}

// ---------------------------------------------------------------------------------------------
// exec-dev

class ExecDev implements Subject {
  readonly delayMs = [300, 3000] as const;
  readonly catchUpLimitMs = 60_000;
  private proc: Proc | null = null;
  private ports: number[] = [];
  private receipts = new Map<string, string>();
  private blocks = new Map<number, string>();
  private readonly dir: string;

  constructor(private readonly root: string) {
    this.dir = join(root, "dev");
  }

  private get http(): string {
    return url(this.ports[0]!);
  }

  async setup(): Promise<void> {
    this.ports = await freePorts(2);
  }

  async start(): Promise<void> {
    if (this.proc?.alive) return;
    const args = ["--dev", "--dev.period=1", `--datadir=${this.dir}`, ...execFlags(this.ports[0]!, this.ports[1]!)];
    this.proc = Proc.spawn("exec-dev", "opal-exec", args, join(this.root, "exec-dev.log"));
    await waitUp(this.proc, this.http, "eth_blockNumber");
  }

  /** Every receipt and block acknowledged since the start, checked after every restart. */
  async verify(): Promise<[string[], number]> {
    const heads = await checkElHeads(this.http);
    const checked = this.receipts.size + this.blocks.size;
    const hashes = [...this.receipts.keys()];
    const got = await callMany(
      this.http,
      "eth_getTransactionReceipt",
      hashes.map((h) => [h]),
    );
    const lost: string[] = [];
    hashes.forEach((h, i) => {
      const r = got[i] as { blockHash: string } | null | RpcError;
      if (r instanceof RpcError || r?.blockHash !== this.receipts.get(h)) {
        lost.push(`receipt ${h}`);
        this.receipts.delete(h);
      }
    });
    lost.push(...(await lostBlocks(this.http, this.blocks, heads.latest!.number, "block")));
    return [lost, checked];
  }

  /** Drops the last acknowledged block (and with it its receipts). */
  async injectLoss(): Promise<string> {
    const last = Math.max(0, ...this.blocks.keys());
    if (last === 0) return "";
    await rewindDatadir(this.dir, last - 1);
    return `block ${last} (rewound to ${last - 1})`;
  }

  async load(stop: () => boolean): Promise<void> {
    const from = ACCOUNTS[0]!;
    let nonce = BigInt(numOf(await call(this.http, "eth_getTransactionCount", [bytesToHex(from.address), "pending"])));
    const pending: string[] = [];
    let lastPoll = 0;
    while (!stop()) {
      try {
        const h = (await call(this.http, "eth_sendRawTransaction", [
          transfer(1337n, from, nonce, ACCOUNTS[1]!.address),
        ])) as string;
        nonce++;
        pending.push(h);
      } catch (e) {
        if (stop()) return;
        // A nonce the pool already had (a tx sent just before the previous kill): start again from the pool.
        if (e instanceof RpcError && e.code !== null)
          nonce = BigInt(
            numOf(await call(this.http, "eth_getTransactionCount", [bytesToHex(from.address), "pending"])),
          );
        else throw e;
      }
      if (Date.now() - lastPoll > 200) {
        lastPoll = Date.now();
        const b = (await call(this.http, "eth_getBlockByNumber", ["latest", false])) as RpcBlock;
        this.blocks.set(numOf(b.number), b.hash);
        for (const h of pending.splice(0, 30)) {
          const r = (await call(this.http, "eth_getTransactionReceipt", [h])) as { blockHash: string } | null;
          if (r === null) pending.push(h);
          else this.receipts.set(h, r.blockHash);
        }
      }
      await sleep(30);
    }
  }

  async progress(): Promise<number | null> {
    return numOf(await call(this.http, "eth_blockNumber", [], { timeoutMs: 2000 }));
  }

  async kill(): Promise<string> {
    await this.proc?.kill9();
    return "opal-exec --dev";
  }

  async teardown(): Promise<void> {
    await this.proc?.kill9();
  }

  tails(): string {
    return this.proc?.tail() ?? "";
  }
}

/** Waits until `proc` answers `method`, or fails with its log tail. */
async function waitUp(proc: Proc, endpoint: string, method: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      await call(endpoint, method, [], { timeoutMs: 2000 });
      return;
    } catch (e) {
      if (e instanceof RpcError && e.code !== null) return;
    }
    if (!proc.alive)
      throw new CrashCheckError(`${proc.name} exited (${JSON.stringify(proc.exit)}) before answering:\n${proc.tail()}`);
    if (Date.now() > end) throw new CrashCheckError(`${proc.name} did not answer within ${ms} ms:\n${proc.tail()}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// exec-engine

class ExecEngine implements Subject {
  readonly delayMs = [300, 3000] as const;
  readonly catchUpLimitMs = 60_000;
  private proc: Proc | null = null;
  private ports: number[] = [];
  private jwt: Uint8Array = new Uint8Array(0);
  private chainId = 0n;
  private driver: EngineDriver | null = null;
  private readonly dir: string;

  constructor(
    private readonly root: string,
    private readonly prng: Prng,
  ) {
    this.dir = join(root, "el");
  }

  async setup(): Promise<void> {
    this.ports = await freePorts(2);
    const g = l2GenesisFile(this.root);
    this.chainId = g.chainId;
    const code = await runToEnd(
      "init",
      "opal-exec",
      ["init", g.file, `--datadir=${this.dir}`],
      join(this.root, "init.log"),
    );
    check(code === 0, `opal-exec init exited ${code}`);
    this.jwt = this.prng.bytes(32);
    writeFileSync(join(this.root, "jwt.hex"), bytesToHex(this.jwt));
    this.driver = new EngineDriver(url(this.ports[1]!), url(this.ports[0]!), this.jwt, this.chainId, this.prng);
  }

  async start(): Promise<void> {
    if (this.proc?.alive) return;
    const args = [
      `--datadir=${this.dir}`,
      `--authrpc.jwtsecret=${join(this.root, "jwt.hex")}`,
      ...execFlags(this.ports[0]!, this.ports[1]!),
    ];
    this.proc = Proc.spawn("exec-engine", "opal-exec", args, join(this.root, "exec-engine.log"));
    await waitUp(this.proc, url(this.ports[0]!), "eth_blockNumber");
  }

  async verify(): Promise<[string[], number]> {
    const el = url(this.ports[0]!);
    const heads = await checkElHeads(el);
    const a = this.driver!.acked;
    if (a === null) return [[], 0];
    // Every head answered VALID since the start, and the last safe and finalized labels.
    const checked = this.driver!.ackedHeads.size + 2;
    const lost = await lostBlocks(el, this.driver!.ackedHeads, heads.latest!.number, "VALID head");
    const at = async (r: BlockRef): Promise<string | undefined> =>
      ((await call(el, "eth_getBlockByNumber", [hexNum(r.number), false])) as RpcBlock | null)?.hash;
    if ((heads.safe?.number ?? -1) < a.safe.number || (await at(a.safe)) !== a.safe.hash)
      lost.push(`safe ${a.safe.number}`);
    if ((heads.finalized?.number ?? -1) < a.finalized.number || (await at(a.finalized)) !== a.finalized.hash)
      lost.push(`finalized ${a.finalized.number}`);
    return [lost, checked];
  }

  /** Drops the last head answered VALID. */
  async injectLoss(): Promise<string> {
    const last = this.driver!.acked?.head.number ?? 0;
    if (last === 0) return "";
    await rewindDatadir(this.dir, last - 1);
    return `VALID head ${last} (rewound to ${last - 1})`;
  }

  async load(stop: () => boolean): Promise<void> {
    await this.driver!.run(2, stop);
  }

  async progress(): Promise<number | null> {
    return numOf(await call(url(this.ports[0]!), "eth_blockNumber", [], { timeoutMs: 2000 }));
  }

  async kill(): Promise<string> {
    await this.proc?.kill9();
    return "opal-exec (Engine API)";
  }

  async teardown(): Promise<void> {
    await this.proc?.kill9();
  }

  tails(): string {
    return this.proc?.tail() ?? "";
  }
}

// ---------------------------------------------------------------------------------------------
// The rollup kinds: an L1, the sequencer's EL and opal-node, a batcher, and optionally a verifier.

interface SyncStatus {
  unsafe_l2: BlockRef;
  safe_l2: BlockRef;
  finalized_l2: BlockRef;
  current_l1: BlockRef;
}

class RollupNet {
  readonly procs = new Map<string, Proc>();
  ports: Record<string, number> = {};
  l2ChainId = 0n;

  constructor(
    private readonly root: string,
    private readonly withVerifier: boolean,
    private readonly adminState: boolean,
  ) {}

  private path(...p: string[]): string {
    return join(this.root, ...p);
  }

  get adminStatePath(): string {
    return this.path("admin-state.json");
  }

  safeDbPath(role: "sequencer" | "verifier"): string {
    return this.path(`${role}-safedb`);
  }

  async setup(): Promise<void> {
    const names = ["l1Http", "l1Auth", "seqHttp", "seqAuth", "seqNode", "verHttp", "verAuth", "verNode"];
    const ports = await freePorts(names.length);
    this.ports = Object.fromEntries(names.map((n, i) => [n, ports[i]!]));
    const c = devnetConfig({ timestamp: Math.floor(Date.now() / 1000), blockTime: 1, upTo: "jovian" });
    this.l2ChainId = BigInt((c.l2Genesis.config as { chainId: number }).chainId);
    const write = (name: string, v: unknown): void => writeFileSync(this.path(name), JSON.stringify(v, null, 2));
    write("l1-genesis.json", c.l1Genesis);
    write("l2-genesis.json", c.l2Genesis);
    write("rollup.json", c.rollup);
    for (const role of ["sequencer", "verifier"])
      writeFileSync(this.path(`jwt-${role}.hex`), bytesToHex(new Prng(role.length).bytes(32)));
    for (const [dir, genesis] of [
      ["l1", "l1-genesis.json"],
      ["sequencer-el", "l2-genesis.json"],
      ["verifier-el", "l2-genesis.json"],
    ] as const) {
      const code = await runToEnd(
        "init",
        "opal-exec",
        ["init", this.path(genesis), `--datadir=${this.path(dir)}`],
        this.path("init.log"),
      );
      check(code === 0, `opal-exec init ${dir} exited ${code}`);
    }
    await this.start("l1");
    await this.start("sequencer-el");
    await this.start("sequencer-node");
    await this.start("batcher");
    if (this.withVerifier) {
      await this.start("verifier-el");
      await this.start("verifier-node");
    }
  }

  url(name: "l1Http" | "seqHttp" | "seqNode" | "verHttp" | "verNode"): string {
    return url(this.ports[name]!);
  }

  alive(name: string): boolean {
    return this.procs.get(name)?.alive === true;
  }

  /** Starts process `name` unless it runs; resolves once it answers. */
  async start(name: string): Promise<void> {
    if (this.alive(name)) return;
    const P = this.ports;
    const log = this.path(`${name}.log`);
    let proc: Proc;
    switch (name) {
      case "l1":
        proc = Proc.spawn(
          name,
          "opal-exec",
          ["--dev", "--dev.period=1", `--datadir=${this.path("l1")}`, ...execFlags(P.l1Http!, P.l1Auth!)],
          log,
        );
        this.procs.set(name, proc);
        return waitUp(proc, url(P.l1Http!), "eth_chainId");
      case "sequencer-el":
      case "verifier-el": {
        const role = name === "sequencer-el" ? "sequencer" : "verifier";
        const [http, auth] = role === "sequencer" ? [P.seqHttp!, P.seqAuth!] : [P.verHttp!, P.verAuth!];
        proc = Proc.spawn(
          name,
          "opal-exec",
          [
            `--datadir=${this.path(name)}`,
            `--authrpc.jwtsecret=${this.path(`jwt-${role}.hex`)}`,
            ...execFlags(http, auth),
          ],
          log,
        );
        this.procs.set(name, proc);
        return waitUp(proc, url(http), "eth_chainId");
      }
      case "sequencer-node":
      case "verifier-node": {
        const role = name === "sequencer-node" ? "sequencer" : "verifier";
        const [auth, port] = role === "sequencer" ? [P.seqAuth!, P.seqNode!] : [P.verAuth!, P.verNode!];
        const args = [
          `--rollup.config=${this.path("rollup.json")}`,
          `--rollup.l1-chain-config=${this.path("l1-genesis.json")}`,
          `--l1=${url(P.l1Http!)}`,
          "--l1.beacon.ignore",
          "--l1.http-poll-interval=500ms",
          "--l1.epoch-poll-interval=2s",
          `--l2=${url(auth)}`,
          `--l2.jwt-secret=${this.path(`jwt-${role}.hex`)}`,
          "--rpc.addr=127.0.0.1",
          `--rpc.port=${port}`,
          "--rpc.enable-admin",
          `--safedb.path=${this.safeDbPath(role)}`,
          "--p2p.disable",
          "--log.level=info",
        ];
        if (role === "sequencer") {
          args.push("--sequencer.enabled", "--sequencer.l1-confs=2");
          if (this.adminState) args.push(`--rpc.admin-state=${this.adminStatePath}`);
        }
        proc = Proc.spawn(name, "opal-node", args, log);
        this.procs.set(name, proc);
        await waitUp(proc, url(port), "optimism_syncStatus");
        // The RPC answers before the node has read its heads from the engine (zero refs, as op-node);
        // an EL without a safe label (rewound below it) has the safe head only after the reset.
        const end = Date.now() + 60_000;
        for (;;) {
          const s = (await call(url(port), "optimism_syncStatus")) as SyncStatus;
          if (!/^0x0+$/.test(s.unsafe_l2.hash) && !/^0x0+$/.test(s.safe_l2.hash)) return;
          check(proc.alive, `${name} exited while loading its heads:\n${proc.tail()}`);
          check(Date.now() < end, `${name} did not load its heads within 60 s`);
          await sleep(100);
        }
      }
      case "batcher": {
        const c = devnetConfig({ timestamp: 0, blockTime: 1, upTo: "jovian" });
        proc = Proc.spawn(
          name,
          "opal-batcher",
          [
            `--l1-eth-rpc=${url(P.l1Http!)}`,
            `--l2-eth-rpc=${url(P.seqHttp!)}`,
            `--rollup-rpc=${url(P.seqNode!)}`,
            `--private-key=${bytesToHex(c.roles.batcher.privateKey)}`,
            "--poll-interval=1s",
            "--max-channel-duration=1",
            "--num-confirmations=1",
            "--batch-type=1",
            "--data-availability-type=calldata",
          ],
          log,
        );
        this.procs.set(name, proc);
        return;
      }
      default:
        throw new Error(`unknown process ${name}`);
    }
  }

  async syncStatus(node: "seqNode" | "verNode"): Promise<SyncStatus> {
    return (await call(this.url(node), "optimism_syncStatus", [], { timeoutMs: 3000 })) as SyncStatus;
  }

  /** The node's unsafe/safe/finalized heads, each fully stored on its EL; returns the status. */
  async checkNodeHeads(node: "seqNode" | "verNode"): Promise<SyncStatus> {
    const s = await this.syncStatus(node);
    const el = this.url(node === "seqNode" ? "seqHttp" : "verHttp");
    for (const k of ["unsafe_l2", "safe_l2", "finalized_l2"] as const) {
      await checkStored(el, { number: s[k].number, hash: s[k].hash }, `node ${k}`);
    }
    return s;
  }

  async kill(name: string): Promise<void> {
    await this.procs.get(name)?.kill9();
  }

  async teardown(): Promise<void> {
    for (const name of ["batcher", "verifier-node", "sequencer-node", "verifier-el", "sequencer-el", "l1"]) {
      await this.procs.get(name)?.term(10_000);
    }
  }

  tails(names: readonly string[]): string {
    return names.map((n) => `--- ${n}:\n${this.procs.get(n)?.tail(1500) ?? ""}`).join("\n");
  }
}

/**
 * The unsafe and safe heads a rollup node reported, every one since the start: each must stay
 * canonical on its EL (the node's unsafe head at or past it) after every later restart. The safe
 * head itself walks back on restart by design (op-node FindL2Heads: a sequencing window, so every
 * batch that could still change it is read again); what must hold is the block.
 */
class AckedHeads {
  readonly unsafe = new Map<number, string>();
  readonly safe = new Map<number, string>();
  last: SyncStatus | null = null;

  record(s: SyncStatus): void {
    this.last = s;
    this.unsafe.set(s.unsafe_l2.number, s.unsafe_l2.hash);
    this.safe.set(s.safe_l2.number, s.safe_l2.hash);
  }

  get size(): number {
    return this.unsafe.size + this.safe.size;
  }

  async lost(el: string, head: number): Promise<string[]> {
    return [...(await lostBlocks(el, this.unsafe, head, "unsafe")), ...(await lostBlocks(el, this.safe, head, "safe"))];
  }
}

/** Loss injection on a rollup node's EL: debug_setHead to `number` (the EL keeps running). */
async function rewindEl(el: string, number: number): Promise<void> {
  await call(el, "debug_setHead", [hexNum(Math.max(0, number))]);
}

class NodeSequencer implements Subject {
  readonly delayMs = [300, 4000] as const;
  readonly catchUpLimitMs = 90_000;
  private readonly acked = new AckedHeads();

  constructor(
    private readonly net: RollupNet,
    private readonly prng: Prng,
  ) {}

  setup(): Promise<void> {
    return this.net.setup();
  }

  async start(): Promise<void> {
    await this.net.start("sequencer-el");
    await this.net.start("sequencer-node");
  }

  async verify(): Promise<[string[], number]> {
    // Without the batcher, the sequencing window ends and derivation replaces the unsafe chain with
    // deposit-only blocks, as it must: that is not a loss of the node's, so say what happened.
    check(this.net.alive("batcher"), "the batcher exited (batcher.log), so unsafe blocks may be reorged out");
    const s = await this.net.checkNodeHeads("seqNode");
    const checked = this.acked.size;
    return [await this.acked.lost(this.net.url("seqHttp"), s.unsafe_l2.number), checked];
  }

  async load(stop: () => boolean): Promise<void> {
    while (!stop()) {
      try {
        this.acked.record(await this.net.syncStatus("seqNode"));
      } catch {
        if (stop()) return;
      }
      await sleep(200);
    }
  }

  /**
   * Drops the last acknowledged unsafe block: the EL goes back one block, and a transfer waits in its
   * pool, so the sequencer builds that height again as another block (an empty one would come out
   * the same).
   */
  async injectLoss(): Promise<string> {
    const last = this.acked.last?.unsafe_l2.number ?? 0;
    if (last === 0) return "";
    await this.net.start("sequencer-el");
    const el = this.net.url("seqHttp");
    await rewindEl(el, last - 1);
    const from = ACCOUNTS[3]!;
    const nonce = BigInt(numOf(await call(el, "eth_getTransactionCount", [bytesToHex(from.address), "pending"])));
    await call(el, "eth_sendRawTransaction", [transfer(this.net.l2ChainId, from, nonce, ACCOUNTS[2]!.address)]);
    return `unsafe ${last} (EL rewound to ${last - 1}, a transfer queued)`;
  }

  async progress(): Promise<number | null> {
    return (await this.net.syncStatus("seqNode")).unsafe_l2.number;
  }

  async kill(): Promise<string> {
    if (this.prng.chance(1 / 3)) {
      const elFirst = this.prng.chance(0.5);
      await this.net.kill(elFirst ? "sequencer-el" : "sequencer-node");
      await this.net.kill(elFirst ? "sequencer-node" : "sequencer-el");
      return "opal-node + L2 opal-exec";
    }
    await this.net.kill("sequencer-node");
    return "opal-node";
  }

  teardown(): Promise<void> {
    return this.net.teardown();
  }

  tails(): string {
    return this.net.tails(["sequencer-node", "sequencer-el"]);
  }
}

class NodeDerivation implements Subject {
  readonly delayMs = [300, 5000] as const;
  readonly catchUpLimitMs = 90_000;
  private readonly acked = new AckedHeads();

  constructor(private readonly net: RollupNet) {}

  setup(): Promise<void> {
    return this.net.setup();
  }

  async start(): Promise<void> {
    await this.net.start("verifier-node");
  }

  async verify(): Promise<[string[], number]> {
    const s = await this.net.checkNodeHeads("verNode");
    const checked = this.acked.size;
    return [await this.acked.lost(this.net.url("verHttp"), s.unsafe_l2.number), checked];
  }

  async load(stop: () => boolean): Promise<void> {
    while (!stop()) {
      try {
        this.acked.record(await this.net.syncStatus("verNode"));
      } catch {
        if (stop()) return;
      }
      await sleep(200);
    }
  }

  /**
   * Drops the acknowledged safe blocks: the verifier's EL goes back to genesis. (Derivation builds
   * the same blocks again, so a shallow rewind could be re-derived before the check looks.)
   */
  async injectLoss(): Promise<string> {
    const last = this.acked.last?.safe_l2.number ?? 0;
    if (last === 0) return "";
    await rewindEl(this.net.url("verHttp"), 0);
    return `safe blocks 1-${last} (EL rewound to genesis)`;
  }

  async progress(): Promise<number | null> {
    return (await this.net.syncStatus("verNode")).safe_l2.number;
  }

  async kill(): Promise<string> {
    await this.net.kill("verifier-node");
    return "verifier opal-node";
  }

  teardown(): Promise<void> {
    return this.net.teardown();
  }

  tails(): string {
    return this.net.tails(["verifier-node", "verifier-el"]);
  }
}

class NodeAdmin implements Subject {
  readonly delayMs = [300, 4000] as const;
  readonly catchUpLimitMs = 90_000;
  /** The sequencer state the last answered admin call set; `inFlight` the one asked for when the kill came. */
  private active = true;
  private inFlight: boolean | null = null;
  private readonly safeAnswers = new Map<number, string>();
  private unsafeAtKill = -1;
  private safeAtKill = -1;
  /**
   * `safeAtKill` as the kill found it: load() runs again from the restart on, concurrently with
   * afterCatchUp(), and overwrites `safeAtKill` with the post-reset safe head.
   */
  private safeBeforeKill = -1;
  private finalizedAtKill = -1;
  private finalizedBeforeKill = -1;

  constructor(
    private readonly net: RollupNet,
    private readonly prng: Prng,
  ) {}

  setup(): Promise<void> {
    return this.net.setup();
  }

  async start(): Promise<void> {
    await this.net.start("sequencer-node");
  }

  async verify(): Promise<[string[], number]> {
    const s = await this.net.checkNodeHeads("seqNode");
    const node = this.net.url("seqNode");
    const lost: string[] = [];
    let checked = 1;
    const active = (await call(node, "admin_sequencerActive")) as boolean;
    if (active !== this.active && active !== this.inFlight)
      lost.push(`sequencer active=${active}, acknowledged ${this.active}`);
    this.active = active;
    this.inFlight = null;
    if (this.unsafeAtKill >= 0) {
      checked++;
      if (s.unsafe_l2.number < this.unsafeAtKill) lost.push(`unsafe ${s.unsafe_l2.number} < ${this.unsafeAtKill}`);
    }
    return [lost, checked];
  }

  /**
   * The safe-head answers, once the safe head is back past its pre-kill value: a restart resets the
   * pipeline and with it the safe-head DB from the reset safe head on (op-node SafeHeadReset), and
   * re-derivation must write the same entries again.
   */
  async afterCatchUp(): Promise<[string[], number]> {
    const node = this.net.url("seqNode");
    const end = Date.now() + 90_000;
    // Entries whose safe head is below every reset safe head since the restart are kept as they
    // were; later ones may have been deleted or re-recorded by a reset (op-stack.md §1.6), and must
    // now be absent or name a canonical L2 block.
    const proc = this.net.procs.get("sequencer-node")!;
    const resetLines = (): RegExpExecArray[] => [...proc.ownLog().matchAll(/derivation pipeline reset .* safe=(\d+)/g)];
    let resets = resetLines();
    while (resets.length === 0) {
      check(Date.now() < end, "no pipeline reset logged after the restart");
      await sleep(100);
      resets = resetLines();
    }
    // Then the safe head back past its pre-kill value, so that the entries re-derivation must write
    // again can be checked (waiting on load()'s post-reset value left 86 of 120 unverifiable).
    for (;;) {
      const s = await this.net.syncStatus("seqNode");
      if (s.safe_l2.number >= this.safeBeforeKill) break;
      check(Date.now() < end, `safe head ${s.safe_l2.number} not back at ${this.safeBeforeKill} within 90 s`);
      await sleep(200);
    }
    resets = resetLines();
    const resetSafe = Math.min(...resets.map((m) => Number(m[1])));
    const lost: string[] = [];
    const entries = [...this.safeAnswers];
    const checked = entries.length;
    // The safe head before the answers: it only rises while they are read (opal-node writes a
    // safe-head entry in the same step as it moves the safe head), so an entry whose safe head it had
    // already reached must be found. Read after them, a safe head that rose in between made a "not
    // found" that was true when answered look lost (cycle 6 of a 50-cycle run).
    const status = await this.net.syncStatus("seqNode");
    const safeNow = status.safe_l2.number;
    // The latest entry's key, also before the answers: that entry is still overwritten while
    // re-derivation promotes more L2 blocks derived from its L1 block (a channel of blocks 13-19
    // answered "L1 14 → 16"), so, as in load(), only answers below it are final and kept to compare
    // exactly next time — keeping a partial one failed the next cycle (cycle 8 of a 50-cycle run).
    const top = (await call(node, "optimism_safeHeadAtL1Block", [hexNum(status.current_l1.number)]).catch(
      () => null,
    )) as { l1Block: { number: number } } | null;
    const finalBelow = top?.l1Block.number ?? 0;
    // Only final entries under their own key are kept to compare next time (see load()).
    const keep = (l1: number, now: unknown): void => {
      if ((now as { l1Block?: { number: number } }).l1Block?.number === l1 && l1 < finalBelow)
        this.safeAnswers.set(l1, JSON.stringify(now));
      else this.safeAnswers.delete(l1);
    };
    const answers = await callMany(
      node,
      "optimism_safeHeadAtL1Block",
      entries.map(([l1]) => [hexNum(l1)]),
    );
    for (const [i, [l1, answer]] of entries.entries()) {
      const got = answers[i];
      const now = got instanceof RpcError ? got.message : got;
      const was = JSON.parse(answer) as { safeHead: BlockRef } | string;
      if (typeof was === "string") continue;
      if (was.safeHead.number < resetSafe) {
        this.strictSafeAnswers++;
        if (JSON.stringify(now) !== answer) {
          lost.push(`safe head at L1 ${l1}: ${JSON.stringify(now)}, was ${answer}`);
          keep(l1, now);
        }
      } else {
        this.resetSafeAnswers++;
        if (typeof now === "string") {
          if (!/not found/.test(now) || safeNow >= was.safeHead.number) {
            // Another error; or "not found" although re-derivation has passed the entry's safe head,
            // so it must have been recorded again.
            lost.push(`safe head at L1 ${l1}: ${now} (safe head ${safeNow})`);
            keep(l1, now);
          }
          // Not re-derived yet: cannot be re-verified now; counted, and the answer kept for the next cycle.
          else this.unverifiedSafeAnswers++;
        } else {
          keep(l1, now);
          const e = now as { l1Block: { number: number }; safeHead: BlockRef };
          // Since opal-node records the L2 genesis at L1 0 (op-node), a lost entry answers with an
          // earlier one rather than "not found": past the entry's safe head it must be under its key.
          if (e.l1Block.number !== l1) {
            if (safeNow >= was.safeHead.number)
              lost.push(`safe head at L1 ${l1}: ${JSON.stringify(now)} (safe head ${safeNow}), was ${answer}`);
            else this.unverifiedSafeAnswers++;
          }
          const b = (await call(this.net.url("seqHttp"), "eth_getBlockByNumber", [
            hexNum(e.safeHead.number),
            false,
          ])) as RpcBlock | null;
          if (b?.hash !== e.safeHead.hash) lost.push(`safe head at L1 ${l1} is not canonical: ${JSON.stringify(now)}`);
        }
      }
    }
    return [lost, checked];
  }

  /** Safe-head answers checked as kept exactly, as after a reset (re-derived), and "not found" before re-derivation. */
  private strictSafeAnswers = 0;
  private resetSafeAnswers = 0;
  private unverifiedSafeAnswers = 0;
  private injections = 0;

  note(): string {
    return `safe-head answers: ${this.strictSafeAnswers} kept exactly, ${this.resetSafeAnswers} behind a reset re-checked (${this.unverifiedSafeAnswers} of them not re-derived yet, not verifiable)`;
  }

  /**
   * Drops, in turn, the last admin state write (the file says the opposite of the last answered
   * call) and the oldest acknowledged safe-head entry (deleted from the safe-head DB).
   */
  async injectLoss(): Promise<string> {
    if (this.injections++ % 2 === 0) {
      writeAdminState(this.net.adminStatePath, { sequencerStarted: !this.active });
      this.inFlight = null;
      return `the admin state (sequencer ${this.active ? "active" : "stopped"})`;
    }
    // An entry whose safe head is below the finalized head at the kill: the restart's reset safe head
    // is at or above it (sync start stops at the finalized block), so a reset keeps that entry and
    // never re-records it — the loss must be reported. A later entry may be truncated and re-derived
    // legitimately, as is the genesis entry at L1 0 by a reset to genesis.
    const keys = [...this.safeAnswers]
      .filter(([, a]) => (JSON.parse(a) as { safeHead: BlockRef }).safeHead.number < this.finalizedBeforeKill)
      .map(([l1]) => l1);
    if (keys.length === 0) {
      this.injections--; // nothing finalized below an entry yet: the safe-head DB's turn comes next kill
      return "";
    }
    const l1 = Math.min(...keys);
    const db = await RocksKv.open(this.net.safeDbPath("sequencer"));
    try {
      const key = new Uint8Array(8);
      new DataView(key.buffer).setBigUint64(0, BigInt(l1));
      db.write(new WriteBatch().del("safeHeads", key), { sync: true });
    } finally {
      await db.close();
    }
    return `the safe-head entry of L1 ${l1}`;
  }

  async load(stop: () => boolean): Promise<void> {
    const node = this.net.url("seqNode");
    // Resume sequencing first when a restart found it stopped, so the head can catch up.
    if (!this.active) await this.setActive(true);
    let nextAction = Date.now() + this.prng.int(200, 1500);
    while (!stop()) {
      try {
        const s = await this.net.syncStatus("seqNode");
        this.unsafeAtKill = s.unsafe_l2.number;
        this.safeAtKill = s.safe_l2.number;
        this.finalizedAtKill = s.finalized_l2.number;
        // An entry is final once a later one exists: the latest entry's key is still overwritten
        // while more L2 blocks are derived from that L1 block. Recorded: entries by their own key,
        // below the latest one.
        const top = (await call(node, "optimism_safeHeadAtL1Block", [hexNum(s.current_l1.number)]).catch(
          () => null,
        )) as { l1Block: { number: number } } | null;
        if (top !== null && top.l1Block.number > 0) {
          for (let i = 0; i < 2; i++) {
            const n = this.prng.int(0, top.l1Block.number - 1);
            const a = (await call(node, "optimism_safeHeadAtL1Block", [hexNum(n)]).catch(() => null)) as {
              l1Block: { number: number };
            } | null;
            if (a !== null) this.safeAnswers.set(a.l1Block.number, JSON.stringify(a));
          }
        }
        if (Date.now() >= nextAction) {
          await this.setActive(!this.active);
          nextAction = Date.now() + this.prng.int(200, 1500);
        }
      } catch {
        if (stop()) return;
      }
      await sleep(150);
    }
  }

  private async setActive(on: boolean): Promise<void> {
    const node = this.net.url("seqNode");
    this.inFlight = on;
    if (on) {
      const s = await this.net.syncStatus("seqNode");
      await call(node, "admin_startSequencer", [s.unsafe_l2.hash]);
    } else {
      await call(node, "admin_stopSequencer");
    }
    this.active = on;
    this.inFlight = null;
  }

  async progress(): Promise<number | null> {
    return (await this.net.syncStatus("seqNode")).unsafe_l2.number;
  }

  async kill(): Promise<string> {
    const was = this.active ? "active" : "stopped";
    this.safeBeforeKill = this.safeAtKill;
    this.finalizedBeforeKill = this.finalizedAtKill;
    await this.net.kill("sequencer-node");
    return `opal-node (sequencer ${was})`;
  }

  teardown(): Promise<void> {
    return this.net.teardown();
  }

  tails(): string {
    return this.net.tails(["sequencer-node", "sequencer-el"]);
  }
}

// ---------------------------------------------------------------------------------------------
// exec-import: its own loop (each cycle imports into a fresh copy of an initialised datadir).

async function runImport(o: CrashOptions, root: string): Promise<KindResult> {
  const prng = new Prng(o.seed);
  const failures: string[] = [];
  let passed = 0;
  let lost = 0;
  let checked = 0;
  let maxCatchUp = 0;
  let midImport = 0;
  o.print(`crash exec-import: seed ${o.seed}, ${o.cycles} cycles, in ${root}`);
  const [http, auth] = await freePorts(2);
  const g = l2GenesisFile(root);
  const pristine = join(root, "pristine");
  const source = join(root, "source");
  const log = join(root, "exec-import.log");
  check((await runToEnd("init", "opal-exec", ["init", g.file, `--datadir=${pristine}`], log)) === 0, "init failed");
  cpSync(pristine, source, { recursive: true });
  // The file: BLOCKS blocks of TXS transfers each, built over the Engine API and read back raw.
  const BLOCKS = Number(process.env.OPAL_CRASH_IMPORT_BLOCKS ?? 300);
  const TXS = 40;
  const jwt = prng.bytes(32);
  writeFileSync(join(root, "jwt.hex"), bytesToHex(jwt));
  const src = Proc.spawn(
    "source",
    "opal-exec",
    [`--datadir=${source}`, `--authrpc.jwtsecret=${join(root, "jwt.hex")}`, ...execFlags(http!, auth!)],
    join(root, "source.log"),
  );
  const hashes: string[] = [];
  try {
    await waitUp(src, url(http!), "eth_blockNumber");
    await new EngineDriver(url(auth!), url(http!), jwt, g.chainId, prng).run(TXS, () => false, BLOCKS, 0);
    const parts: Buffer[] = [];
    for (let n = 0; n <= BLOCKS; n++) {
      const b = (await call(url(http!), "eth_getBlockByNumber", [hexNum(n), false])) as RpcBlock;
      hashes.push(b.hash);
      if (n > 0)
        parts.push(Buffer.from(hexToBytes((await call(url(http!), "debug_getRawBlock", [hexNum(n)])) as string)));
    }
    writeFileSync(join(root, "chain.rlp"), Buffer.concat(parts));
  } finally {
    await src.term();
  }
  const work = join(root, "work");
  const fresh = (): void => {
    rmSync(work, { recursive: true, force: true });
    cpSync(pristine, work, { recursive: true });
  };
  // Small commit batches (geth's 2,500 would put all of them in one), so a kill can land between
  // commits and leave a head inside the file.
  const BATCH = Number(process.env.OPAL_CRASH_IMPORT_BATCH ?? 25);
  const commits = Math.ceil(BLOCKS / BATCH);
  const importArgs = [
    "import",
    join(root, "chain.rlp"),
    `--datadir=${work}`,
    "--verbosity=3",
    `--import.batch=${BATCH}`,
  ];
  // Calibration: an import of an empty file (start-up and shut-down only) and one whole import.
  writeFileSync(join(root, "empty.rlp"), new Uint8Array(0));
  fresh();
  let t = Date.now();
  const emptyArgs = ["import", join(root, "empty.rlp"), `--datadir=${work}`, "--verbosity=3"];
  check((await runToEnd("import", "opal-exec", emptyArgs, log)) === 0, "the calibration import (empty) failed");
  const base = Date.now() - t;
  t = Date.now();
  check((await runToEnd("import", "opal-exec", importArgs, log)) === 0, "the calibration import failed");
  const whole = Date.now() - t;
  const perCommit = Math.max(1, Math.round((whole - base) / commits));
  o.print(
    `  exec-import: ${BLOCKS} blocks × ${TXS} txs in commits of ${BATCH}, a whole import takes ${whole} ms (${base} ms without blocks)`,
  );
  const headOf = async (): Promise<BlockRef> => {
    const { kv } = await openStore(join(work, "chaindata"), "rocksdb");
    try {
      const chain = Blockchain.open(kv);
      return { number: chain.head.number, hash: bytesToHex(chain.headBlockHash) };
    } finally {
      await kv.close();
    }
  };
  /** The last commit an import logged ("Imported new chain segment" comes after the commit): acknowledged. */
  const lastCommit = (text: string): number => {
    let n = 0;
    for (const m of text.matchAll(/Imported new chain segment.*?number=(\d+)/g)) n = Math.max(n, Number(m[1]));
    return n;
  };
  let node: Proc | null = null;
  for (let cycle = 1; cycle <= o.cycles; cycle++) {
    const cycleLog = join(root, `import-${cycle}.log`);
    try {
      fresh();
      const p = Proc.spawn("import", "opal-exec", importArgs, cycleLog);
      // Three kills in four wait for a given commit to be logged, then up to one commit's time
      // more (mid-commit, head > 0); the others fall anywhere between start-up and the end.
      let when: string;
      if (prng.chance(3 / 4)) {
        const target = prng.int(1, Math.max(1, commits - 1));
        const extra = prng.int(0, perCommit);
        const end = Date.now() + 4 * whole;
        while (p.alive && lastCommit(p.ownLog()) < target * BATCH && Date.now() < end) await sleep(5);
        await Promise.race([sleep(extra), p.exited]);
        when = `${extra} ms after commit ${target} of ${commits}`;
      } else {
        const delay = prng.int(base, whole);
        await Promise.race([sleep(delay), p.exited]);
        when = `${delay} ms after its start`;
      }
      const finished = !p.alive;
      await p.kill9();
      if (finished) when = "after it finished";
      const acked = lastCommit(p.ownLog());
      let dropped = "";
      if (o.injectLoss === true && acked > 0) {
        await rewindDatadir(work, acked - 1);
        dropped = `, then dropped commit ${acked} (rewound to ${acked - 1})`;
      }
      // The datadir opens as a node: its heads are fully stored blocks of the file, at or past the
      // last commit the import logged.
      node = Proc.spawn(
        "node",
        "opal-exec",
        [`--datadir=${work}`, `--authrpc.jwtsecret=${join(root, "jwt.hex")}`, ...execFlags(http!, auth!)],
        join(root, "node.log"),
      );
      await waitUp(node, url(http!), "eth_blockNumber");
      const heads = await checkElHeads(url(http!));
      const head = heads.latest!;
      checked += acked > 0 ? 2 : 1;
      if (hashes[head.number] !== head.hash || head.number < acked) lost++;
      check(hashes[head.number] === head.hash, `head ${head.number} ${head.hash} is not the file's block`);
      check(head.number >= acked, `head ${head.number} is below the logged commit ${acked}`);
      if (!finished && head.number > 0 && head.number < BLOCKS) midImport++;
      const code = await node.term();
      check(code === 0, `the node exited ${code} on SIGTERM`);
      node = null;
      // A re-run completes to the file's last block.
      t = Date.now();
      const rerun = await runToEnd("import", "opal-exec", importArgs, cycleLog);
      check(rerun === 0, `the re-run of import exited ${rerun}`);
      const catchUp = Date.now() - t;
      // Nothing to drop before the node opened: drop the last block of the finished re-run.
      if (o.injectLoss === true && acked === 0) {
        await rewindDatadir(work, BLOCKS - 1);
        dropped = `, then dropped the re-run's last block ${BLOCKS}`;
      }
      const after = await headOf();
      checked++;
      if (after.number !== BLOCKS || after.hash !== hashes[BLOCKS]) lost++;
      check(after.hash === hashes[BLOCKS], `after the re-run the head is ${after.number} ${after.hash}`);
      maxCatchUp = Math.max(maxCatchUp, catchUp);
      passed++;
      rmSync(cycleLog, { force: true });
      o.print(
        `  exec-import cycle ${cycle}/${o.cycles}: ok, killed ${when} (commit ${acked} logged), head ${head.number}${dropped}, re-run in ${catchUp} ms`,
      );
    } catch (e) {
      await node?.kill9();
      node = null;
      const msg = `cycle ${cycle}: ${(e as Error).message}`;
      failures.push(msg);
      o.print(`  exec-import FAIL ${msg}`);
    }
  }
  if (failures.length === 0) rmSync(root, { recursive: true, force: true });
  else o.print(`  exec-import: logs and datadirs kept in ${root}`);
  return {
    kind: "exec-import",
    seed: o.seed,
    cycles: o.cycles,
    passed,
    lost,
    checked,
    maxCatchUpMs: maxCatchUp,
    note: `${midImport}/${o.cycles} kills mid-import with a head inside the file (${BLOCKS} blocks in commits of ${BATCH}; import ${whole} ms, ${base} ms of it start-up)`,
    failures,
  };
}

/** Runs `cycles` kill/restart cycles of one kind. */
export async function runCrashKind(kind: CrashKind, o: CrashOptions): Promise<KindResult> {
  const root = tempRoot(kind);
  mkdirSync(root, { recursive: true });
  const prng = new Prng(o.seed ^ 0x5bd1e995);
  switch (kind) {
    case "exec-dev":
      return runCycles(kind, new ExecDev(root), o, root);
    case "exec-engine":
      return runCycles(kind, new ExecEngine(root, prng), o, root);
    case "exec-import":
      return runImport(o, root);
    case "node-sequencer":
      return runCycles(kind, new NodeSequencer(new RollupNet(root, false, false), prng), o, root);
    case "node-derivation":
      return runCycles(kind, new NodeDerivation(new RollupNet(root, true, false)), o, root);
    case "node-admin":
      return runCycles(kind, new NodeAdmin(new RollupNet(root, false, true), prng), o, root);
  }
}
