/** discv5 between two of our nodes on 127.0.0.1: the `eth` entry travels and the facade filters on it. */
import "../../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { Discovery, type PeerCandidate } from "../../../../src/devp2p/discovery/discovery.js";
import { ETH_ENR_KEY, parseEthEntry } from "../../../../src/devp2p/discovery/ethEntry.js";
import { newForkFilter } from "../../../../src/devp2p/discovery/forkFilter.js";
import { generateNodeKey } from "../../../../src/devp2p/discovery/nodeKey.js";
import { type ForkPoints, forkIdAt } from "../../../../src/spec/forkId.js";

const POINTS: ForkPoints = { blocks: [], times: [1000] };
const GENESIS = new Uint8Array(32).fill(7);

describe("devp2p/discovery: discv5 on loopback", function () {
  this.timeout(30_000);
  it("two nodes see each other's eth entry", async () => {
    const head = { number: 1, time: 500 };
    const fork = { id: forkIdAt(GENESIS, POINTS, 1, 500), filter: newForkFilter(GENESIS, POINTS, () => head) };
    const port = 31000 + Math.floor(Math.random() * 2000);
    const ka = generateNodeKey();
    const a = await Discovery.start({
      key: ka,
      udpPort: port,
      tcpPort: 30301,
      bindIp: "127.0.0.1",
      bootnodes: [],
      v4: false,
      v5: true,
      fork,
    });
    const b = await Discovery.start({
      key: generateNodeKey(),
      udpPort: port + 1,
      tcpPort: 30302,
      bindIp: "127.0.0.1",
      bootnodes: [a.localEnr()!],
      v4: false,
      v5: true,
      fork,
    });
    try {
      const rec = a.v5!.localRecord;
      assert.deepEqual(parseEthEntry(rec.get(ETH_ENR_KEY)), fork.id);
      const seen: PeerCandidate[] = [];
      b.onPeer((p) => seen.push(p));
      const end = Date.now() + 20_000;
      while (!seen.some((p) => p.id === Buffer.from(ka.id).toString("hex"))) {
        if (Date.now() > end) throw new Error("b never reported a");
        await b.lookup();
        await new Promise((r) => setTimeout(r, 200));
      }
      const p = seen.find((s) => s.id === Buffer.from(ka.id).toString("hex"))!;
      assert.equal(p.tcpPort, 30301);
      assert.equal(p.ip, "127.0.0.1");
      assert.deepEqual(p.pubkey, ka.publicKey);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
