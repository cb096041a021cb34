/**
 * Shared helpers of the tests that run nodes (integration and e2e, and the P2P and reliability
 * tests): temp datadirs, opal-exec configs from argv, signed dev transfers and a tiny JSON-RPC client.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ExecConfig, parseExecArgs } from "../../src/cli/execFlags.js";
import { parseNodeArgs } from "../../src/cli/nodeFlags.js";
import { DEV_CHAIN_ID, devAccounts } from "../../src/node/exec/devGenesis.js";
import { nodeRollupConfigOf, RollupNode } from "../../src/node/rollup/rollupNode.js";
import { bytesToHex } from "../../src/primitives/hex.js";
import type { RollupConfig } from "../../src/rollup/config/rollupConfig.js";
import { encodeTx } from "../../src/tx/envelope.js";
import { signTx } from "../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../src/tx/tx.js";
import type { Logger } from "../../src/util/log.js";

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `opal-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Quiet node flags on free ports with one worker thread per pool. */
export const TEST_FLAGS = [
  // Execution-layer P2P of a non-dev node: any free port, no discovery (no built-in bootnodes dialled).
  "--port",
  "0",
  "--nodiscover",
  "--http.port",
  "0",
  "--ws.port",
  "0",
  "--authrpc.port",
  "0",
  "--http.addr",
  "127.0.0.1",
  "--authrpc.addr",
  "127.0.0.1",
  "--http.vhosts",
  "*",
  "--authrpc.vhosts",
  "*",
  "--workers.sigrecover",
  "1",
  "--workers.triehash",
  "1",
  "--verbosity",
  "0",
];

export function configOf(argv: readonly string[]): ExecConfig {
  const r = parseExecArgs([...argv, ...TEST_FLAGS], {});
  if (r.kind !== "run") throw new Error(`bad test argv: ${JSON.stringify(r)}`);
  return r.config;
}

/** A signed EIP-1559 transfer of 1 wei from dev account `from` (anvil's key list), as raw hex; `data` and `gas` optional. */
export function devTransfer(nonce: bigint, from = 0, to = 1, extra: { data?: Uint8Array; gas?: bigint } = {}): string {
  const keys = devAccounts(Math.max(from, to) + 1);
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: DEV_CHAIN_ID,
    nonce,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 10_000_000_000n,
    gasLimit: extra.gas ?? 21_000n,
    to: keys[to]!.address,
    value: 1n,
    data: extra.data ?? new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return bytesToHex(encodeTx(signTx(tx, keys[from]!.privateKey)));
}

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** opal-node started in-process from command-line options, with a quiet log and no metrics. */
export async function startRollupNode(
  argv: readonly string[],
  cfg: RollupConfig,
  log: Logger = { error() {}, warn() {}, info() {}, debug() {} },
): Promise<RollupNode> {
  // P2P stays off unless the test asks for it (else it would bind 9222 and write its files into cwd).
  const p2p = argv.some((a) => a.startsWith("--p2p."));
  const parsed = parseNodeArgs(p2p ? argv : [...argv, "--p2p.disable"], {});
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  return RollupNode.start(parsed.config, {
    log,
    rollup: nodeRollupConfigOf(cfg),
    version: "test",
    metrics: { recordRpcServerRequest() {}, recordL2Ref() {} },
    setLogLevel: () => null,
    headPollMs: 100,
  });
}

/** What `opal-exec` printed and its exit code, run in-process (src/cli/opalExec.ts `main`). */
export interface CliRun {
  code: number;
  out: string[];
  err: string[];
}

export async function runOpalExec(argv: readonly string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  // Loaded on first use: the CLI module is not part of what the other helpers' users import.
  const { main } = await import("../../src/cli/opalExec.js");
  const code = await main([...argv], {}, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out, err };
}
