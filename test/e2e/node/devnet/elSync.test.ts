/**
 * The devnet's execution-layer sync variant (`npm start -- --fresh --el-sync`), run for real: the
 * verifier's opal-node in `--syncmode execution-layer`, its opal-exec given only the sequencer's
 * client as `--bootnodes`. The verifier's client must fetch blocks over devp2p (its log shows the
 * downloader finishing a sync, its only peer is the sequencer's client), and then the verifier's
 * safe head must follow L1 as in the default devnet: it advances, and the block it names has the
 * sequencer's hash.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEVNET_PORTS, Devnet, EL_SYNC_LEAD_BLOCKS } from "../../../../src/node/devnet/devnet.js";
import { call } from "../../../utils/jsonRpc.js";
import { waitFor } from "../../../utils/node.js";

const OFFSET = 500;
const url = (port: number): string => `http://127.0.0.1:${port + OFFSET}`;

interface SyncStatus {
  readonly safe_l2: { readonly number: number; readonly hash: string };
  readonly unsafe_l2: { readonly number: number; readonly hash: string };
}

/** A timeout's message with the last lines of each process's log, so a failed run shows what stalled. */
function withLogTails(e: Error, dir: string): Error {
  const tails = ["verifier-el", "verifier-node", "sequencer-el", "sequencer-node"].map((name) => {
    let lines: string[];
    try {
      lines = readFileSync(join(dir, "logs", `${name}.log`), "utf8")
        .trimEnd()
        .split("\n");
    } catch {
      lines = ["(no log)"];
    }
    return `--- ${name}.log (last 25 lines) ---\n${lines.slice(-25).join("\n")}`;
  });
  e.message = `${e.message}\n${tails.join("\n")}`;
  return e;
}

describe("devnet --el-sync: the verifier's execution client syncs over devp2p", function () {
  // Start-up (~10 s), the sync, a batch on L1 and the verifier's derivation of it, the stop.
  this.timeout(240_000);

  it("fetches blocks from the sequencer's client, then the verifier's safe head follows L1 with the sequencer's hashes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "opal-elsync-"));
    const exited: string[] = [];
    let net: Devnet | null = null;
    try {
      net = await Devnet.start({
        datadir: dir,
        fresh: true,
        blockTime: 1,
        l1BlockTime: 2,
        da: "calldata",
        upTo: "jovian",
        portOffset: OFFSET,
        elSync: true,
        print: (l) => {
          if (/ exited /.test(l)) exited.push(l);
        },
      });
      const verLog = (): string => readFileSync(join(dir, "logs", "verifier-el.log"), "utf8");
      await waitFor(() => /Sync complete/.test(verLog()), 120_000, "the verifier-el's devp2p sync").catch((e) => {
        throw withLogTails(e as Error, dir);
      });
      assert.equal(await call(url(DEVNET_PORTS.verElHttp), "net_peerCount"), "0x1");
      // The verifier joined after the sequencer had built EL_SYNC_LEAD_BLOCKS blocks, which gossip
      // never brings again: its client fetched at least those over devp2p.
      const synced = Number(/Sync complete\s+number=(\d+)/.exec(verLog())?.[1]);
      assert.ok(synced >= EL_SYNC_LEAD_BLOCKS, `synced to ${synced}, below the ${EL_SYNC_LEAD_BLOCKS}-block lead`);
      // The first safe block the verifier derives after the sync, and that the verifier's client
      // holds exactly the sequencer's block there.
      let status: SyncStatus | null = null;
      await waitFor(
        async () => {
          status = (await call(url(DEVNET_PORTS.verNode), "optimism_syncStatus").catch(
            () => null,
          )) as SyncStatus | null;
          return status !== null && status.safe_l2.number > 0;
        },
        150_000,
        "the verifier's safe head to advance from L1",
      ).catch((e) => {
        throw withLogTails(e as Error, dir);
      });
      const safe = (status as SyncStatus | null)!.safe_l2;
      const tag = `0x${safe.number.toString(16)}`;
      const seqBlock = (await call(url(DEVNET_PORTS.seqElHttp), "eth_getBlockByNumber", [tag, false])) as {
        hash: string;
      };
      const verBlock = (await call(url(DEVNET_PORTS.verElHttp), "eth_getBlockByNumber", [tag, false])) as {
        hash: string;
      };
      assert.equal(safe.hash, seqBlock.hash);
      assert.equal(verBlock.hash, seqBlock.hash);
      assert.deepEqual(exited, []);
    } finally {
      if (net !== null) await net.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
