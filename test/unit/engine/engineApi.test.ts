/**
 * EngineApi on real chains: the rpc-compat chain's post-merge blocks arrive as engine_newPayload
 * (V1–V4 by fork, with the beacon root and requests they need) and the suite's headfcu.json is
 * applied; payload building through forkchoiceUpdated attributes round-trips through getPayload and
 * newPayload on a second chain (OP Jovian with a forced L1-info deposit).
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodeBlock } from "../../../src/block/block.js";
import { headerHash } from "../../../src/block/header.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { sha256 } from "../../../src/crypto/sha256.js";
import { EngineApi, EngineError } from "../../../src/engine/engineApi.js";
import { blockToPayload } from "../../../src/engine/payload.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeHeader } from "../../../src/rlp/decode.js";
import { rulesAt } from "../../../src/spec/chainConfig.js";
import { Fork } from "../../../src/spec/forks.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { encodeL1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { TxType } from "../../../src/tx/tx.js";
import { fixturePath } from "../../utils/fixtures.js";
import { opGenesis as opGenesisOf } from "../../utils/genesis.js";

const DIR = fixturePath("execution-apis-rpc", "tests");

function blocksOf(file: string): Uint8Array[] {
  const all = new Uint8Array(readFileSync(file));
  const out: Uint8Array[] = [];
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    out.push(all.subarray(pos, h.start + h.length));
    pos = h.start + h.length;
  }
  return out;
}

const opGenesis = (): Record<string, unknown> => opGenesisOf() as Record<string, unknown>;

describe("engine/engineApi", function () {
  this.timeout(120_000);

  it("rpc-compat chain: post-merge blocks through newPayload, then the suite's forkchoice", async () => {
    const json = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
    const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
    const api = new EngineApi(chain);
    let viaEngine = 0;
    for (const rlp of blocksOf(join(DIR, "chain.rlp"))) {
      const { header, body } = decodeBlock(rlp);
      const fork = rulesAt(chain.config, header.number, header.timestamp).fork;
      // Blocks that carry EIP-7685 requests need the CL's request list, which a block does not hold.
      const hasRequests =
        header.requestsHash !== null && bytesToHex(header.requestsHash) !== bytesToHex(sha256(new Uint8Array(0)));
      if (fork < Fork.Paris || header.difficulty !== 0n || hasRequests) {
        assert.equal(chain.insertBlock(rlp).status, "VALID");
        continue;
      }
      const version = fork >= Fork.Prague ? 4 : fork >= Fork.Cancun ? 3 : fork >= Fork.Shanghai ? 2 : 1;
      const hash = headerHash(header);
      const hashes: string[] = [];
      for (const t of body.transactions) {
        const tx = decodeTx(t);
        if (tx.type === TxType.Blob) for (const h of tx.blobVersionedHashes) hashes.push(bytesToHex(h));
      }
      const st = await api.newPayload(
        version,
        blockToPayload(header, body, hash, Math.min(version, 3), false),
        version >= 3 ? hashes : null,
        version >= 3 ? bytesToHex(header.parentBeaconBlockRoot as Uint8Array) : null,
        version >= 4 ? [] : null,
      );
      assert.equal(st.status, "VALID", `${header.number}: ${st.validationError}`);
      viaEngine++;
    }
    assert.ok(viaEngine > 5, `only ${viaEngine} blocks went through newPayload`);
    const fcu = JSON.parse(readFileSync(join(DIR, "headfcu.json"), "utf8"));
    const r = api.forkchoiceUpdated(3, fcu.params[0], null);
    assert.equal(r.payloadStatus.status, "VALID");
    assert.equal(bytesToHex(chain.headBlockHash), fcu.params[0].headBlockHash);
  });

  it("unknown head → SYNCING; bad safe hash → -38002; unknown payload id → -38001", () => {
    const json = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
    const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
    const api = new EngineApi(chain);
    const z = `0x${"00".repeat(32)}`;
    const unknown = `0x${"ab".repeat(32)}`;
    assert.equal(
      api.forkchoiceUpdated(1, { headBlockHash: unknown, safeBlockHash: z, finalizedBlockHash: z }, null).payloadStatus
        .status,
      "SYNCING",
    );
    const head = bytesToHex(chain.headBlockHash);
    assert.throws(
      () => api.forkchoiceUpdated(1, { headBlockHash: head, safeBlockHash: unknown, finalizedBlockHash: z }, null),
      (e: unknown) => e instanceof EngineError && e.code === -38002,
    );
    assert.throws(
      () => api.getPayload(3, "0x0300000000000001"),
      (e: unknown) => e instanceof EngineError && e.code === -38001,
    );
  });

  it("OP: forkchoiceUpdated with attributes builds; getPayloadV4 → newPayloadV4 on another node → VALID", async () => {
    const g = opGenesis();
    const seq = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
    const ver = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
    const a = new EngineApi(seq);
    const b = new EngineApi(ver);
    const info = encodeL1BlockInfo(
      newL1BlockInfo({ format: L1InfoFormat.Jovian, baseFee: 7n, blobBaseFee: 1n, daFootprintGasScalar: 400 }),
    );
    const deposit = encodeTx({
      type: TxType.Deposit,
      sourceHash: new Uint8Array(32).fill(1),
      from: hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001"),
      to: hexToBytes("0x4200000000000000000000000000000000000015"),
      mint: 0n,
      value: 0n,
      gasLimit: 1_000_000n,
      isSystemTx: false,
      data: info,
    });
    const head = bytesToHex(seq.headBlockHash);
    const fc = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: head };
    const res = a.forkchoiceUpdated(3, fc, {
      timestamp: "0x12",
      prevRandao: `0x${"11".repeat(32)}`,
      suggestedFeeRecipient: "0x4200000000000000000000000000000000000011",
      withdrawals: [],
      parentBeaconBlockRoot: `0x${"22".repeat(32)}`,
      transactions: [bytesToHex(deposit)],
      noTxPool: true,
      gasLimit: "0x1c9c380",
      eip1559Params: "0x000000fa00000006",
      minBaseFee: "0x0",
    });
    assert.equal(res.payloadStatus.status, "VALID");
    assert.ok(res.payloadId);
    const env = a.getPayload(4, res.payloadId as string) as {
      executionPayload: Record<string, unknown>;
      parentBeaconBlockRoot: string;
    };
    assert.equal(env.parentBeaconBlockRoot, `0x${"22".repeat(32)}`);
    const st = await b.newPayload(4, env.executionPayload, [], env.parentBeaconBlockRoot, []);
    assert.equal(st.status, "VALID", st.validationError ?? "");
    const newHead = env.executionPayload.blockHash as string;
    const r2 = b.forkchoiceUpdated(
      3,
      { headBlockHash: newHead, safeBlockHash: newHead, finalizedBlockHash: head },
      null,
    );
    assert.equal(r2.payloadStatus.status, "VALID");
    assert.equal(ver.head.number, 1);
  });
});
