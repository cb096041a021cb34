/**
 * eth_call / eth_estimateGas semantics on the execution-apis rpc-compat chain, against the results
 * its .io exchanges record (the RPC layer adds only the envelope).
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { blobBaseFee } from "../../../src/block/blobGas.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { blockContext } from "../../../src/executor/executeBlock.js";
import { type CallEnv, type CallMessage, call, estimateGas } from "../../../src/executor/simulate.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeHeader } from "../../../src/rlp/decode.js";
import { blobParamsAt, rulesAt } from "../../../src/spec/chainConfig.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { fixturePath } from "../../utils/fixtures.js";

const DIR = fixturePath("execution-apis-rpc", "tests");

function chainAtHead(): Blockchain {
  const json = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
  const all = new Uint8Array(readFileSync(join(DIR, "chain.rlp")));
  let last: Uint8Array | null = null;
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    const r = chain.insertBlock(all.subarray(pos, h.start + h.length));
    last = r.hash;
    pos = h.start + h.length;
  }
  chain.setHead(last as Uint8Array);
  return chain;
}

function envOf(chain: Blockchain): CallEnv {
  const h = chain.head;
  const rules = rulesAt(chain.config, h.number, h.timestamp);
  const blob = blobParamsAt(chain.config, h.timestamp);
  return {
    rules,
    chainId: chain.config.chainId,
    gasCap: 50_000_000n,
    block: blockContext(h, {
      rules,
      chainId: chain.config.chainId,
      blobBaseFee: blob === null ? 0n : blobBaseFee(h.excessBlobGas ?? 0, blob.baseFeeUpdateFraction),
      maxBlobGas: 0,
      depositContract: null,
      blockHash: () => 0n,
      intermediateRoot: null,
    }),
  };
}

function msg(from: string, to: string, input: string, gas: bigint | null = null): CallMessage {
  return {
    from: hexToBytes(from),
    to: hexToBytes(to),
    gas,
    gasPrice: null,
    maxFeePerGas: null,
    maxPriorityFeePerGas: null,
    value: 0n,
    data: hexToBytes(input),
    accessList: [],
  };
}

describe("executor/simulate", function () {
  this.timeout(60_000);
  let chain: Blockchain;
  before(() => {
    chain = chainAtHead();
  });

  it("eth_call returns the contract's output (call-contract.io)", () => {
    const r = call(
      chain.kv,
      msg("0x0000000000000000000000000000000000000000", "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0xff01"),
      envOf(chain),
    );
    assert.ok(typeof r !== "string");
    assert.equal(r.status, 1);
    assert.equal(bytesToHex(r.output), "0xffee");
  });

  it("eth_call of a reverting contract returns the revert data (call-revert-abi-error.io)", () => {
    const r = call(
      chain.kv,
      msg("0x0000000000000000000000000000000000000000", "0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930", "0x01", 100_000n),
      envOf(chain),
    );
    assert.ok(typeof r !== "string");
    assert.equal(r.status, 0);
    assert.equal(
      bytesToHex(r.output),
      "0x08c379a00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000000a75736572206572726f72",
    );
  });

  it("eth_estimateGas finds the least gas that succeeds", () => {
    const m = msg("0x0102030000000000000000000000000000000000", "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "0xff01");
    const env = envOf(chain);
    const r = estimateGas(chain.kv, m, env);
    assert.ok(r.ok);
    const at = call(chain.kv, { ...m, gas: r.gas }, env);
    const below = call(chain.kv, { ...m, gas: r.gas - 1n }, env);
    assert.ok(typeof at !== "string" && at.status === 1);
    assert.ok(typeof below === "string" || below.status === 0);
  });
});
