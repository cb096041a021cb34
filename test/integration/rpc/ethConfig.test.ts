/**
 * eth_config (EIP-7910) over JSON-RPC on a running `--dev` node: the head's fork and the fork id from
 * block 0. The answers themselves (geth's and op-reth's, fork ids against published vectors):
 * test/unit/rpc/ethConfig.test.ts.
 */
import { strict as assert } from "node:assert";
import { DEPOSIT_CONTRACT_ADDRESS, DEV_CHAIN_ID } from "../../../src/node/exec/devGenesis.js";
import { ExecNode } from "../../../src/node/exec/execNode.js";
import { crc32 } from "../../../src/primitives/crc32.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import { call } from "../../utils/jsonRpc.js";
import { configOf, tempDir } from "../../utils/node.js";

/** FORK_HASH as eth_config prints it: CRC-32 of genesis hash ‖ uint64 points (EIP-2124). */
function forkHash(genesis: Uint8Array, ...points: number[]): string {
  let c = crc32(genesis);
  for (const p of points) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(p));
    c = crc32(b, c);
  }
  return `0x${c.toString(16).padStart(8, "0")}`;
}

describe("rpc/eth eth_config", function () {
  this.timeout(60_000);

  it("over JSON-RPC on a --dev node: the head's fork, fork id from block 0", async () => {
    const dir = tempDir("ethconfig");
    const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), { print: () => undefined });
    try {
      const a = node.endpoints.http!;
      const url = `http://${a.address}:${a.port}/`;
      const block0 = (await call(url, "eth_getBlockByNumber", ["0x0", false])) as { hash: string };
      const r = (await call(url, "eth_config")) as any;
      assert.equal(r.current.chainId, `0x${DEV_CHAIN_ID.toString(16)}`);
      assert.equal(r.current.activationTime, 0);
      // Every fork of the dev genesis is at block 0 / time 0, so FORK_HASH is CRC-32 of block 0's hash.
      assert.equal(r.current.forkId, forkHash(hexToBytes(block0.hash)));
      assert.equal(r.current.systemContracts.DEPOSIT_CONTRACT_ADDRESS, DEPOSIT_CONTRACT_ADDRESS);
      assert.ok(r.current.precompiles.BLS12_PAIRING_CHECK, "Prague or later");
      if (r.next === null) assert.equal(r.last, null);
      else assert.ok(r.next.activationTime > 0 && r.last !== null);
    } finally {
      await node.stop();
      dir.remove();
    }
  });
});
