/**
 * The `scale` bench's RPC readers, on a thread of their own: `workerData.readers` clients, each on its
 * own kept-alive connection (util/http1Client.ts), send random `eth_getBalance` and `eth_call
 * balanceOf` reads of the state's accounts and holders to the node's HTTP port until the parent posts
 * "stop" (after one read, "ready"), then post back every read's latency (ms, `Float64Array`) and exit.
 *
 * Why a thread: when the readers shared the bench's event loop with the block feeder and the metrics
 * sampler, a read's measured time also held those callbacks' turns and the bench's own fetch
 * machinery — the client's lateness, not the node's. Here the clock starts before the request is
 * written and stops when its answer is parsed, with nothing else on the loop.
 */
import { parentPort, workerData } from "node:worker_threads";
import { bytesToHex } from "../../src/primitives/hex.js";
import { Http1Pool } from "../../src/util/http1Client.js";
import { accountAddress, rng, TOKEN } from "./scaleState.js";

export interface ReadersData {
  readonly port: number;
  readonly readers: number;
  readonly accounts: number;
  readonly holders: number;
  readonly seed: number;
}

const HEADERS = "Content-Type: application/json\r\n";

async function main(d: ReadersData): Promise<void> {
  const pool = new Http1Pool("127.0.0.1", d.port);
  const r = rng(d.seed);
  const token = bytesToHex(TOKEN);
  const latencies: number[] = [];
  let running = true;
  let id = 0;
  parentPort?.on("message", (m) => {
    if (m === "stop") running = false;
  });
  const one = async (): Promise<void> => {
    const i = Math.floor(r() * d.accounts);
    const body =
      r() < 0.5
        ? `{"jsonrpc":"2.0","id":${++id},"method":"eth_getBalance","params":["${bytesToHex(accountAddress(i))}","latest"]}`
        : `{"jsonrpc":"2.0","id":${++id},"method":"eth_call","params":[{"to":"${token}","data":"0x70a08231${"0".repeat(24)}${bytesToHex(accountAddress(i % Math.max(1, d.holders))).slice(2)}"},"latest"]}`;
    const t = performance.now();
    const a = await pool.post("/", HEADERS, body, 60_000);
    const j = JSON.parse(a.body.toString()) as { result?: unknown; error?: { message: string } };
    latencies.push(performance.now() - t);
    if (a.status !== 200 || j.error !== undefined)
      throw new Error(`scale read: HTTP ${a.status}: ${j.error?.message ?? a.body.toString().slice(0, 200)}`);
  };
  const reader = async (): Promise<void> => {
    while (running) await one();
  };
  await one();
  parentPort?.postMessage("ready");
  await Promise.all(Array.from({ length: d.readers }, reader));
  pool.close();
  parentPort?.postMessage(Float64Array.from(latencies));
}

main(workerData as ReadersData).catch((e: unknown) => {
  parentPort?.postMessage({ error: (e as Error).message });
});
