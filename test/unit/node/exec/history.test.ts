/**
 * opal-exec's history and state tools through the CLI entry (cli/opalExec.ts `main`):
 * export → import into a fresh datadir gives the same head hash and state root (plain and gzip),
 * a re-import skips what is there, a broken link, an invalid block or a truncated file stops with
 * one line and exit 1 keeping every block before it; init-state of a small dump reproduces the
 * root of a state the node built itself (genesis alloc through `init`), and a tampered dump is
 * refused with nothing claimed as a head.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { decodeBlock, encodeBlock } from "../../../../src/block/block.js";
import { encodeHeader } from "../../../../src/block/header.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { readBlockFile } from "../../../../src/node/exec/blockFile.js";
import { l1DevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { dumpQuantity, dumpWord } from "../../../../src/node/exec/initState.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { RocksKv } from "../../../../src/storage/rocksdb.js";
import { type CliRun, devTransfer, runOpalExec, tempDir } from "../../../utils/node.js";
import { mine } from "../../txpool/fixtures.js";

/** opal-exec in-process, quiet. */
function run(argv: string[]): Promise<CliRun> {
  return runOpalExec([...argv, "--verbosity", "0"]);
}

interface HeadInfo {
  number: number;
  hash: string;
  stateRoot: string;
  stateBlock: string;
}

async function headOf(datadir: string): Promise<HeadInfo> {
  const kv = await RocksKv.open(join(datadir, "chaindata"));
  try {
    const c = Blockchain.open(kv);
    return {
      number: c.head.number,
      hash: bytesToHex(c.headBlockHash),
      stateRoot: bytesToHex(c.head.stateRoot),
      stateBlock: bytesToHex(c.stateBlockHash),
    };
  } finally {
    await kv.close();
  }
}

/** A source datadir: the dev genesis and `n` blocks with a transfer or two each. */
async function sourceChain(dir: string, n: number): Promise<{ genesisFile: string; hashes: string[] }> {
  const genesis = l1DevGenesis(30_000_000n);
  const genesisFile = join(dir, "genesis.json");
  writeFileSync(genesisFile, JSON.stringify(genesis));
  const datadir = join(dir, "src");
  assert.equal((await run(["init", genesisFile, "--datadir", datadir])).code, 0);
  const kv = await RocksKv.open(join(datadir, "chaindata"));
  const hashes: string[] = [];
  try {
    const chain = Blockchain.open(kv);
    let nonce = 0n;
    for (let i = 0; i < n; i++) {
      const forced = [];
      for (let t = 0; t < 1 + (i % 2); t++) forced.push(hexToBytes(devTransfer(nonce++, 0, 1 + (i % 3))));
      hashes.push(bytesToHex(mine(chain, { forced, timestampDelta: 12 }).hash));
    }
  } finally {
    await kv.close();
  }
  return { genesisFile, hashes };
}

describe("node/exec history: export, import, init-state", function () {
  this.timeout(120_000);

  it("export → import round trip (plain and gzip) reproduces head hash and state root; re-import skips", async () => {
    const dir = tempDir("history");
    try {
      const { genesisFile, hashes } = await sourceChain(dir.path, 12);
      const src = await headOf(join(dir.path, "src"));
      assert.equal(src.hash, hashes[11]);
      for (const name of ["chain.rlp", "chain.rlp.gz"]) {
        const file = join(dir.path, name);
        const ex = await run(["export", file, "--datadir", join(dir.path, "src")]);
        assert.equal(ex.code, 0, ex.err.join("\n"));
        const raw = readFileSync(file);
        assert.equal(raw[0] === 0x1f && raw[1] === 0x8b, name.endsWith(".gz"));
        const blocks = [];
        for await (const b of readBlockFile(file)) blocks.push(b.rlp.slice());
        assert.equal(blocks.length, 13); // genesis and 12 blocks, as geth exports from 0
        // Byte-identical to the node's own block encoding.
        assert.deepEqual(encodeBlock(decodeBlock(blocks[5]!)), blocks[5]);

        const dst = join(dir.path, `dst-${name}`);
        assert.equal((await run(["init", genesisFile, "--datadir", dst])).code, 0);
        const im = await run(["import", file, "--datadir", dst]);
        assert.deepEqual(im, { code: 0, out: [], err: [] });
        assert.deepEqual(await headOf(dst), src);
        // Resumable: everything is there, nothing moves.
        const again = await run(["import", file, "--datadir", dst]);
        assert.equal(again.code, 0);
        assert.deepEqual(await headOf(dst), src);
      }
      // A range, and a range past the head clamps to it.
      const part = join(dir.path, "part.rlp");
      assert.equal((await run(["export", part, "3", "99", "--datadir", join(dir.path, "src")])).code, 0);
      const numbers = [];
      for await (const b of readBlockFile(part)) numbers.push(decodeBlock(b.rlp).header.number);
      assert.deepEqual(numbers, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      const bad = await run(["export", part, "5", "2", "--datadir", join(dir.path, "src")]);
      assert.equal(bad.code, 1);
      assert.match(bad.err[0]!, /^opal-exec: export: first \(5\) is greater than last \(2\)$/);
    } finally {
      dir.remove();
    }
  });

  it("a chain that does not link, an invalid block or a truncated file: one line, exit 1, nothing lost", async () => {
    const dir = tempDir("history-bad");
    try {
      const { genesisFile, hashes } = await sourceChain(dir.path, 8);
      const file = join(dir.path, "chain.rlp");
      assert.equal((await run(["export", file, "--datadir", join(dir.path, "src")])).code, 0);
      const blocks = [];
      for await (const b of readBlockFile(file)) blocks.push(b.rlp.slice());
      const dst = join(dir.path, "dst");
      assert.equal((await run(["init", genesisFile, "--datadir", dst])).code, 0);

      // Blocks 0..3, then 5: block 5 does not link.
      const gap = join(dir.path, "gap.rlp");
      writeFileSync(gap, Buffer.concat([...blocks.slice(0, 4), blocks[5]!]));
      const g = await run(["import", gap, "--datadir", dst]);
      assert.equal(g.code, 1);
      assert.equal(g.err.length, 1);
      assert.match(
        g.err[0]!,
        /^opal-exec: import: .*gap\.rlp: block 4 \(number 5, hash 0x[0-9a-f]{64}\): does not link to the chain: parent 0x[0-9a-f]{64} is not in the database \(head is #3 0x[0-9a-f]{64}\)$/,
      );
      assert.equal((await headOf(dst)).hash, hashes[2]);

      // Truncated gzip stream, then a truncated plain file: the whole blocks before stay.
      const gz = join(dir.path, "trunc.rlp.gz");
      const whole = gzipSync(Buffer.concat(blocks.slice(0, 7)));
      writeFileSync(gz, whole.subarray(0, whole.length - 30));
      const tg = await run(["import", gz, "--datadir", dst]);
      assert.equal(tg.code, 1);
      assert.equal(tg.err.length, 1);
      assert.match(tg.err[0]!, /^opal-exec: import: .*trunc\.rlp\.gz: /);
      const afterGz = await headOf(dst);
      assert.ok(afterGz.number >= 3, "blocks before the break stay");

      const cut = join(dir.path, "cut.rlp");
      const all = Buffer.concat(blocks);
      writeFileSync(cut, all.subarray(0, all.length - 10));
      const tp = await run(["import", cut, "--datadir", dst]);
      assert.equal(tp.code, 1);
      assert.equal(tp.err.length, 1);
      assert.match(
        tp.err[0]!,
        /cut\.rlp: block 8 at byte \d+: bad RLP: truncated: the file ends \d+ of \d+ bytes into the block$/,
      );
      assert.equal((await headOf(dst)).hash, hashes[6]);

      // An invalid block (wrong gasUsed) stops at it; the blocks before it are canonical.
      const b8 = decodeBlock(blocks[8]!);
      const broken = encodeBlock({ header: { ...b8.header, gasUsed: 1 }, body: b8.body });
      const inv = join(dir.path, "invalid.rlp");
      writeFileSync(inv, Buffer.concat([blocks[7]!, broken]));
      const iv = await run(["import", inv, "--datadir", dst]);
      assert.equal(iv.code, 1);
      assert.match(iv.err[0]!, /invalid\.rlp: block 1 \(number 8, hash 0x[0-9a-f]{64}\): /);
      assert.equal((await headOf(dst)).hash, hashes[6]);

      // The whole file then completes the chain.
      assert.equal((await run(["import", file, "--datadir", dst])).code, 0);
      assert.deepEqual(await headOf(dst), await headOf(join(dir.path, "src")));
    } finally {
      dir.remove();
    }
  });

  it("init-state reproduces the root of a state the node built; a tampered dump is refused", async () => {
    const dir = tempDir("init-state");
    try {
      // The source: a genesis whose alloc holds accounts with code and storage, written by `init`.
      const genesis = l1DevGenesis(30_000_000n) as Record<string, unknown> & { alloc: Record<string, unknown> };
      const lines: string[] = [];
      const alloc: Record<string, unknown> = { ...genesis.alloc };
      for (let i = 1; i <= 300; i++) {
        const addr = `0x${(0xabc000 + i).toString(16).padStart(40, "0")}`;
        const storage: Record<string, string> = {};
        if (i % 7 === 0)
          for (let s = 0; s < i % 50; s++) storage[dumpWord(BigInt(s))] = dumpWord(BigInt(i * 1000 + s + 1));
        const code = i % 11 === 0 ? `0x60${(i % 256).toString(16).padStart(2, "0")}600055` : undefined;
        alloc[addr] = {
          balance: dumpQuantity(BigInt(i) * 10n ** 15n),
          nonce: dumpQuantity(BigInt(i % 5)),
          ...(code ? { code } : {}),
          storage,
        };
      }
      genesis.alloc = alloc;
      for (const [addr, a] of Object.entries(alloc)) {
        const acc = a as { balance: string; nonce?: string; code?: string; storage?: Record<string, string> };
        lines.push(
          JSON.stringify({
            address: addr,
            balance: acc.balance.startsWith("0x") ? acc.balance : dumpQuantity(BigInt(acc.balance)),
            nonce: acc.nonce ?? "0x0",
            ...(acc.code === undefined ? {} : { code: acc.code }),
            ...(acc.storage === undefined || Object.keys(acc.storage).length === 0 ? {} : { storage: acc.storage }),
          }),
        );
      }
      const genesisFile = join(dir.path, "genesis.json");
      writeFileSync(genesisFile, JSON.stringify(genesis));
      const src = join(dir.path, "src");
      assert.equal((await run(["init", genesisFile, "--datadir", src])).code, 0);
      const srcHead = await headOf(src);
      const header = Blockchain.init(
        await (async () => {
          const { MemoryKv } = await import("../../../../src/storage/memory.js");
          return new MemoryKv();
        })(),
        parseGenesis(genesis),
        genesis.config,
      ).head;
      const headerFile = join(dir.path, "header.rlp");
      writeFileSync(headerFile, encodeHeader(header));
      const dump = join(dir.path, "state.jsonl");
      writeFileSync(dump, `${JSON.stringify({ root: srcHead.stateRoot })}\n${lines.join("\n")}\n`);

      const dst = join(dir.path, "dst");
      /** `opal-exec init-state FILE` for this chain's header and genesis into `datadir`, `extra` flags added. */
      const initState = (file: string, datadir: string, ...extra: string[]) =>
        run(["init-state", file, "--header", headerFile, ...extra, "--genesis", genesisFile, "--datadir", datadir]);
      const ok = await initState(dump, dst);
      assert.deepEqual(ok, { code: 0, out: [srcHead.hash], err: [] });
      assert.deepEqual(await headOf(dst), srcHead);

      // Later blocks build on the base: a source chain's blocks import on top of it.
      const chainDir = join(dir.path, "chain");
      const { hashes } = await (async () => {
        // Build 3 blocks on the same genesis in another datadir, export them, import onto dst.
        assert.equal((await run(["init", genesisFile, "--datadir", chainDir])).code, 0);
        const kv = await RocksKv.open(join(chainDir, "chaindata"));
        const hs: string[] = [];
        try {
          const chain = Blockchain.open(kv);
          for (let i = 0; i < 3; i++) {
            hs.push(bytesToHex(mine(chain, { forced: [hexToBytes(devTransfer(BigInt(i)))], timestampDelta: 12 }).hash));
          }
        } finally {
          await kv.close();
        }
        return { hashes: hs };
      })();
      const blocksFile = join(dir.path, "after.rlp");
      assert.equal((await run(["export", blocksFile, "1", "--datadir", chainDir])).code, 0);
      assert.equal((await run(["import", blocksFile, "--datadir", dst])).code, 0);
      assert.deepEqual(await headOf(dst), await headOf(chainDir));
      assert.equal((await headOf(dst)).hash, hashes[2]);

      // Tampered: one balance changed. Refused after the root check, nothing claimed as a head,
      // and the datadir is empty again (a corrected dump then imports).
      const tampered = join(dir.path, "tampered.jsonl.gz");
      const bad = lines.map((l, i) => (i === 20 ? l.replace(/"balance":"0x[0-9a-f]+"/, '"balance":"0x1"') : l));
      writeFileSync(tampered, gzipSync(`${JSON.stringify({ root: srcHead.stateRoot })}\n${bad.join("\n")}\n`));
      const dst2 = join(dir.path, "dst2");
      const refused = await initState(tampered, dst2);
      assert.equal(refused.code, 1);
      assert.equal(refused.err.length, 1);
      assert.match(
        refused.err[0]!,
        /^opal-exec: init-state: computed state root 0x[0-9a-f]{64} does not match the header's 0x[0-9a-f]{64} \(block 0\)/,
      );
      const noChain = await run(["import", blocksFile, "--datadir", dst2]);
      assert.match(noChain.err[0]!, /no chain/);
      const gzOk = join(dir.path, "state.jsonl.gz");
      writeFileSync(gzOk, gzipSync(readFileSync(dump)));
      const retry = await initState(gzOk, dst2);
      assert.deepEqual(retry, { code: 0, out: [srcHead.hash], err: [] });

      // A root line that is not the header's, a bad line, a wrong --header-hash, a used datadir.
      const wrongRoot = join(dir.path, "wrongroot.jsonl");
      writeFileSync(wrongRoot, `${JSON.stringify({ root: `0x${"11".repeat(32)}` })}\n${lines[0]}\n`);
      const wr = await initState(wrongRoot, join(dir.path, "d3"));
      assert.equal(wr.code, 1);
      assert.match(wr.err[0]!, /state root of the dump 0x1{64} does not match the header's/);
      const badLine = join(dir.path, "badline.jsonl");
      writeFileSync(badLine, `${JSON.stringify({ root: srcHead.stateRoot })}\n${lines[0]}\n{"balance":"0x1"}\n`);
      const bl = await initState(badLine, join(dir.path, "d3"));
      assert.equal(bl.code, 1);
      assert.match(bl.err[0]!, /badline\.jsonl:3: missing address$/);
      const hh = await initState(dump, join(dir.path, "d3"), "--header-hash", `0x${"22".repeat(32)}`);
      assert.equal(hh.code, 1);
      assert.match(hh.err[0]!, /does not match --header-hash/);
      const used = await initState(dump, dst);
      assert.equal(used.code, 1);
      assert.match(used.err[0]!, /database already holds a chain/);
      // JSON header (eth_getBlockByNumber shape) gives the same base.
      const { headerJson } = await import("../../../../src/rpc/format.js");
      const jsonFile = join(dir.path, "header.json");
      writeFileSync(jsonFile, JSON.stringify(headerJson(header, hexToBytes(srcHead.hash), 0)));
      const viaJson = await run([
        "init-state",
        dump,
        "--header",
        jsonFile,
        "--genesis",
        genesisFile,
        "--datadir",
        join(dir.path, "d4"),
      ]);
      assert.deepEqual(viaJson, { code: 0, out: [srcHead.hash], err: [] });
    } finally {
      dir.remove();
    }
  });
});
