/**
 * anvil (foundry's node, revm inside) on the `evm` workloads, when the optional devDependency
 * `@foundry-rs/anvil-linux-amd64` is installed. Each run starts a fresh anvil on the workload's
 * genesis (`--init`, the workload's hardfork and block gas limit, mining on demand, FIFO order),
 * sets the block's coinbase and base fee, sends every raw tx (JSON-RPC batches of 500: this is
 * anvil's intake — decoding and sender recovery), then mines one block with the block's timestamp.
 *
 * - `mineMs`: the `evm_mine` call — execution of the already decoded and recovered txs plus the
 *   state root, the figure to set beside Opal's execution + root.
 * - `intakeMs`: from the first raw tx sent to the block mined.
 * The block's gasUsed and tx count are checked against the workload; the state root is not (anvil
 * takes no prevRandao or beacon root for the block, so its root differs from the recorded one).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Workload } from "./workload.js";

export interface AnvilRunResult {
  gasUsed: number;
  mineMs: number;
  intakeMs: number;
}

/** The anvil binary, or null when the optional package is not installed. */
export function anvilBinary(): string | null {
  try {
    return join(
      dirname(createRequire(import.meta.url).resolve("@foundry-rs/anvil-linux-amd64/package.json")),
      "bin/anvil",
    );
  } catch {
    return null;
  }
}

const BATCH = 500;

/**
 * A port nothing listens on now, from the OS (listen on 0). Not a fixed one: other checkouts on the
 * same machine run this bench too, and with one shared port a run sent its txs to another run's anvil
 * ("transaction already imported", or timings of the wrong process).
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function rpc(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

async function call(url: string, method: string, params: unknown[]): Promise<unknown> {
  const r = (await rpc(url, { jsonrpc: "2.0", id: 1, method, params })) as {
    result?: unknown;
    error?: { message: string };
  };
  if (r.error !== undefined) throw new Error(`anvil ${method}: ${r.error.message}`);
  return r.result;
}

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

export async function runAnvil(bin: string, w: Workload): Promise<AnvilRunResult> {
  if (w.blocks.length !== 1) throw new Error(`anvil runner: ${w.blocks.length} blocks, handles one`);
  const b = w.blocks[0]!;
  const dir = mkdtempSync(join(tmpdir(), "opal-anvil-"));
  // anvil takes the genesis as the file has it (geth format).
  writeFileSync(
    join(dir, "genesis.json"),
    JSON.stringify((JSON.parse(readFileSync(w.file, "utf8")) as { genesis: unknown }).genesis),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: ChildProcess | null = null;
  try {
    proc = spawn(
      bin,
      [
        "--init",
        join(dir, "genesis.json"),
        "--no-mining",
        "--order",
        "fifo",
        "--hardfork",
        w.hardfork,
        "--gas-limit",
        b.header.gasLimit.toString(),
        "--port",
        String(port),
        "--silent",
      ],
      { stdio: "ignore" },
    );
    const end = Date.now() + 20_000;
    for (;;) {
      try {
        await call(url, "eth_blockNumber", []);
        break;
      } catch (e) {
        if (Date.now() > end) throw new Error(`anvil did not start: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await call(url, "anvil_setCoinbase", [`0x${Buffer.from(b.header.coinbase).toString("hex")}`]);
    if (b.header.baseFeePerGas !== undefined) {
      await call(url, "anvil_setNextBlockBaseFeePerGas", [hex(b.header.baseFeePerGas)]);
    }
    const t0 = performance.now();
    for (let i = 0; i < b.transactions.length; i += BATCH) {
      const batch = b.transactions.slice(i, i + BATCH).map((t, j) => ({
        jsonrpc: "2.0",
        id: i + j,
        method: "eth_sendRawTransaction",
        params: [`0x${Buffer.from(t).toString("hex")}`],
      }));
      const replies = (await rpc(url, batch)) as { error?: { message: string } }[];
      const bad = replies.find((r) => r.error !== undefined);
      if (bad !== undefined) throw new Error(`anvil refused a tx: ${bad.error!.message}`);
    }
    const t1 = performance.now();
    await call(url, "evm_mine", [{ timestamp: b.header.timestamp }]);
    const t2 = performance.now();
    const block = (await call(url, "eth_getBlockByNumber", ["latest", false])) as {
      gasUsed: string;
      transactions: string[];
    };
    if (block.transactions.length !== b.transactions.length) {
      throw new Error(`anvil mined ${block.transactions.length} of ${b.transactions.length} txs`);
    }
    return { gasUsed: Number(BigInt(block.gasUsed)), mineMs: t2 - t1, intakeMs: t2 - t0 };
  } finally {
    proc?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}
