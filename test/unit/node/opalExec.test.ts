/**
 * The opal-exec entry (cli/opalExec.ts `main`): init (write, same-genesis no-op, other-genesis
 * error), import (blocks become the head; an invalid block fails naming it and the blocks before
 * it stay), genesis, dumpconfig, usage errors with exit 2, all as one line without a stack trace.
 */
import { strict as assert } from "node:assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeBlock } from "../../../src/block/block.js";
import { headerHash } from "../../../src/block/header.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { genesisBlockOf, parseGenesis } from "../../../src/chain/genesis.js";
import { l1DevGenesis, OP_DEV_PREDEPLOYS } from "../../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { RocksKv } from "../../../src/storage/rocksdb.js";
import { runOpalExec, tempDir } from "../../utils/node.js";

const run = runOpalExec;

/** `n` empty blocks on the dev genesis, RLP-encoded. */
function devBlocks(n: number): { genesis: Record<string, unknown>; blocks: Uint8Array[]; hashes: string[] } {
  const genesis = l1DevGenesis(30_000_000n);
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(genesis), genesis.config);
  const blocks: Uint8Array[] = [];
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) {
    const b = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp: 12 * (i + 1),
      feeRecipient: new Uint8Array(20),
      prevRandao: new Uint8Array(32),
      gasLimit: chain.head.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32),
      forced: [],
      pool: null,
    });
    if ("error" in b) throw new Error(b.error);
    chain.setHead(b.hash);
    blocks.push(encodeBlock({ header: b.header, body: b.body }));
    hashes.push(bytesToHex(b.hash));
  }
  return { genesis, blocks, hashes };
}

function concat(parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

async function headOf(datadir: string): Promise<{ number: number; hash: string }> {
  const kv = await RocksKv.open(join(datadir, "chaindata"));
  try {
    const c = Blockchain.open(kv);
    return { number: c.head.number, hash: bytesToHex(c.headBlockHash) };
  } finally {
    await kv.close();
  }
}

describe("cli/opalExec", function () {
  this.timeout(60_000);

  it("init writes the genesis; the same again is a no-op, another is an error", async () => {
    const dir = tempDir("init");
    try {
      const { genesis } = devBlocks(0);
      const file = join(dir.path, "genesis.json");
      writeFileSync(file, JSON.stringify(genesis));
      const want = bytesToHex(headerHash(genesisBlockOf(parseGenesis(genesis)).header));
      const first = await run(["init", file, "--datadir", dir.path, "--verbosity", "0"]);
      assert.deepEqual(first, { code: 0, out: [want], err: [] });
      const again = await run(["init", file, "--datadir", dir.path, "--verbosity", "0"]);
      assert.deepEqual(again, { code: 0, out: [want], err: [] });
      const other = join(dir.path, "other.json");
      writeFileSync(other, JSON.stringify({ ...genesis, gasLimit: "0x1000000" }));
      const bad = await run(["init", other, "--datadir", dir.path]);
      assert.equal(bad.code, 1);
      assert.equal(bad.err.length, 1);
      assert.match(bad.err[0]!, /^opal-exec: init: database already holds a chain with another genesis/);
      assert.deepEqual(await headOf(dir.path), { number: 0, hash: want });

      const missing = await run(["init", join(dir.path, "nope.json"), "--datadir", dir.path]);
      assert.equal(missing.code, 2);
      assert.match(missing.err[0]!, /nope\.json: no such file or directory$/);
      writeFileSync(other, "{");
      const notJson = await run(["init", other, "--datadir", dir.path]);
      assert.equal(notJson.code, 1);
      assert.match(notJson.err[0]!, /invalid JSON/);
    } finally {
      dir.remove();
    }
  });

  it("import: blocks become the head; an invalid block fails naming it, earlier blocks stay", async () => {
    const dir = tempDir("import");
    try {
      const { genesis, blocks, hashes } = devBlocks(4);
      const gfile = join(dir.path, "genesis.json");
      writeFileSync(gfile, JSON.stringify(genesis));
      const noChain = await run(["import", gfile, "--datadir", dir.path]);
      assert.equal(noChain.code, 1);
      assert.match(noChain.err[0]!, /no chain: run opal-exec init/);
      assert.equal((await run(["init", gfile, "--datadir", dir.path, "--verbosity", "0"])).code, 0);

      const f1 = join(dir.path, "a.rlp");
      const f2 = join(dir.path, "b.rlp");
      writeFileSync(f1, concat(blocks.slice(0, 2)));
      writeFileSync(f2, blocks[2]!);
      const ok = await run(["import", f1, f2, "--datadir", dir.path, "--verbosity", "0"]);
      assert.deepEqual(ok, { code: 0, out: [], err: [] });
      assert.deepEqual(await headOf(dir.path), { number: 3, hash: hashes[2] });

      // Block 5 built on block 4, then block 4 re-imported with a broken gasUsed field.
      const tampered = new Uint8Array(blocks[3]!);
      const { decodeBlock } = await import("../../../src/block/block.js");
      const b4 = decodeBlock(tampered);
      const broken = encodeBlock({ header: { ...b4.header, gasUsed: 1 }, body: b4.body });
      const f3 = join(dir.path, "c.rlp");
      writeFileSync(f3, concat([blocks[2]!, broken]));
      const bad = await run(["import", f3, "--datadir", dir.path, "--verbosity", "0"]);
      assert.equal(bad.code, 1);
      assert.equal(bad.err.length, 1);
      assert.match(bad.err[0]!, /^opal-exec: import: .*c\.rlp: block 1 \(number 4, hash 0x[0-9a-f]{64}\): /);
      assert.deepEqual(await headOf(dir.path), { number: 3, hash: hashes[2] });

      writeFileSync(f3, new Uint8Array([0xc5, 1]));
      const trunc = await run(["import", f3, "--datadir", dir.path]);
      assert.equal(trunc.code, 1);
      // Progress lines come first (info level); the error is the one last line.
      assert.match(trunc.err.at(-1)!, /^opal-exec: import: .*c\.rlp: block 0 at byte 0: bad RLP: truncated/);
    } finally {
      dir.remove();
    }
  });

  it("genesis writes an OP dev genesis that init accepts", async () => {
    const dir = tempDir("genesis");
    try {
      const std = await run(["genesis", "--chainid", "902"]);
      assert.equal(std.code, 0);
      const g = JSON.parse(std.out.join("\n"));
      assert.equal(g.config.chainId, 902);
      assert.equal(g.config.isthmusTime, 0);
      assert.equal(g.config.jovianTime, undefined);
      for (const a of Object.values(OP_DEV_PREDEPLOYS)) assert.ok(a in g.alloc, a);
      assert.ok("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" in g.alloc);
      const file = join(dir.path, "op.json");
      const toFile = await run(["genesis", "--out", file]);
      assert.equal(toFile.code, 0);
      const init = await run(["init", file, "--datadir", dir.path, "--verbosity", "0"]);
      assert.equal(init.code, 0, init.err.join("\n"));
    } finally {
      dir.remove();
    }
  });

  it("dumpconfig, help, version and usage errors", async () => {
    const dump = await run(["dumpconfig", "--http.port", "9000"]);
    assert.equal(dump.code, 0);
    assert.equal(JSON.parse(dump.out[0]!)["http.port"], 9000);
    const help = await run(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.out[0]!, /opal-exec/);
    const bad = await run(["--htpp.port", "1"]);
    assert.equal(bad.code, 2);
    assert.equal(bad.err.length, 1);
    assert.match(bad.err[0]!, /^opal-exec: unknown flag.*\(see 'opal-exec --help'\)$/);
    const badCmd = await run(["init"]);
    assert.equal(badCmd.code, 2);
    assert.match(badCmd.err[0]!, /see 'opal-exec init --help'/);
  });
});
