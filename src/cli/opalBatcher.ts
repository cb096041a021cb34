/**
 * `opal-batcher`: posts the sequencer's L2 blocks to L1 (batcher/batchSubmitter.ts). Reads the rollup
 * config from the rollup node (`optimism_rollupConfig`), the L1 chain id from L1 (waiting up to
 * STARTUP_WAIT_MS for either to become reachable), then runs until SIGINT/SIGTERM. Bad options: one
 * line and exit 2; startup failures: one line and exit 1.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { BatchSubmitter } from "../batcher/batchSubmitter.js";
import { TxSender } from "../batcher/txSender.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { parseRollupConfig, type RollupConfig } from "../rollup/config/rollupConfig.js";
import { EngineClient } from "../rollup/engine/engineClient.js";
import { RpcClient, RpcTransportError } from "../rollup/transport/rpcClient.js";
import { Log, parseLogLevel } from "../util/log.js";
import { type BatcherConfig, parseBatcherArgs } from "./batcherFlags.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, processIo, runAsProcess } from "./processIo.js";

/** How long the batcher waits at startup for the rollup node and L1 to be reachable. */
export const STARTUP_WAIT_MS = 60_000;
const STARTUP_RETRY_MS = 1_000;

/**
 * Runs `read` until it returns, retrying transport failures (connection refused, timeouts, HTTP
 * errors: a rollup node that is restarting, as a supervisor starts the batcher beside it) every
 * second for `waitMs`, reporting each through `onRetry`; a JSON-RPC error or a bad answer fails at
 * once, and the last transport failure is thrown when the time is up.
 */
export async function whenReachable<T>(
  read: () => Promise<T>,
  waitMs: number,
  onRetry: (err: string) => void,
  retryMs = STARTUP_RETRY_MS,
  now: () => number = Date.now,
): Promise<T> {
  const end = now() + waitMs;
  for (;;) {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof RpcTransportError) || now() + retryMs > end) throw e;
      onRetry(e.message);
      await new Promise((r) => setTimeout(r, retryMs));
    }
  }
}

async function run(config: BatcherConfig, io: Io): Promise<number> {
  const level = parseLogLevel(config["log.level"]);
  const log = new Log({
    level: typeof level === "string" ? 3 : level,
    format: config["log.format"],
    color: false,
    pid: false,
    sink: (line) => io.err(line),
  });
  const rollupRpc = new RpcClient(config["rollup-rpc"], { timeoutMs: 10_000 });
  const l1 = new RpcClient(config["l1-eth-rpc"], { timeoutMs: 10_000 });
  let cfg: RollupConfig;
  let chainId: bigint;
  try {
    [cfg, chainId] = await whenReachable(
      async () => [
        parseRollupConfig(await rollupRpc.call("optimism_rollupConfig")),
        BigInt(await l1.call<string>("eth_chainId")),
      ],
      STARTUP_WAIT_MS,
      (err) => log.warn("Waiting for the rollup node and L1 to answer", { err }),
    );
  } catch (e) {
    io.err(`opal-batcher: cannot read the rollup config and L1 chain id: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  if (chainId !== cfg.l1ChainId) {
    io.err(`opal-batcher: L1 chain id ${chainId} differs from the rollup config's ${cfg.l1ChainId}`);
    return EXIT_FAILED;
  }
  const key = config["private-key"];
  const sender = new TxSender(l1, {
    privateKey: hexToBytes(key.startsWith("0x") ? key : `0x${key}`),
    chainId,
    numConfirmations: config["num-confirmations"],
    resubmissionTimeoutMs: config["resubmission-timeout"],
    feeBumpPercent: config["txmgr.fee-bump-percent"],
    maxAttempts: config["txmgr.max-attempts"],
    pollMs: Math.min(1000, config["poll-interval"]),
  });
  const submitter = new BatchSubmitter(
    cfg,
    {
      maxChannelDuration: config["max-channel-duration"],
      subSafetyMargin: config["sub-safety-margin"],
      targetNumFrames: config["target-num-frames"],
      maxL1TxSize: config["max-l1-tx-size-bytes"],
      algo: config["compression-algo"],
      span: config["batch-type"] === 1,
      da: config["data-availability-type"],
      pollMs: config["poll-interval"],
      stateFile: config["state-file"] ?? null,
    },
    {
      rollup: rollupRpc,
      l2: new EngineClient(new RpcClient(config["l2-eth-rpc"], { timeoutMs: 10_000 }), cfg),
      sender,
      log,
    },
  );
  log.info("Batcher started", {
    batcher: bytesToHex(sender.address),
    inbox: bytesToHex(cfg.batchInboxAddress),
    da: config["data-availability-type"],
  });
  if (!config.stopped) submitter.start();
  else log.info("Batcher is stopped (--stopped)");
  await new Promise<void>((done) => {
    const onSignal = (): void => {
      log.info("Stopping the batcher");
      submitter.stop().then(done, done);
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
  log.info("Batcher stopped", { channels: submitter.counters.channels, blocks: submitter.counters.blocks });
  return EXIT_OK;
}

export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: Io = processIo,
): Promise<number> {
  const parsed = parseBatcherArgs(argv, env);
  switch (parsed.kind) {
    case "help":
    case "version":
      io.out(parsed.text.trimEnd());
      return EXIT_OK;
    case "error":
      io.err(`opal-batcher: ${parsed.error}`);
      return EXIT_USAGE;
    case "run":
      return run(parsed.config, io);
    default:
      io.err("opal-batcher: unexpected command");
      return EXIT_USAGE;
  }
}

/** Runs `main` for a process and sets its exit status; no stack trace reaches the user. */
export function runProcess(argv: readonly string[]): Promise<void> {
  return runAsProcess("opal-batcher", (a) => main(a), argv);
}

const entry = process.argv[1];
if (entry !== undefined && existsSync(entry) && import.meta.url === pathToFileURL(resolve(entry)).href) {
  await runProcess(process.argv.slice(2));
}
