/**
 * `opDevGenesis` with the newest OP fork chosen (`opal-exec genesis --fork isthmus|jovian|karst`):
 * the default stays Isthmus; Jovian adds jovianTime and the 17-byte Jovian extraData (version 1 +
 * denominator + elasticity + u64 minBaseFee, jovian/exec-engine.md), and its predeploys read as
 * Jovian (GasPriceOracle.isJovian(), L1Block.daFootprintGasScalar() of the synthetic origin); Karst
 * adds karstTime and osakaTime = karstTime (op-reth chain_metadata.rs "Osaka activates with Karst"),
 * so blocks run under {Osaka, Karst}. Each genesis seals a block with the dev sealer.
 */
import { strict as assert } from "node:assert";
import { decodeHoloceneExtraData, decodeJovianExtraData } from "../../../../src/block/opExtraData.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { headerBlobBaseFee } from "../../../../src/chain/importBlock.js";
import { main } from "../../../../src/cli/opalExec.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { blockContext } from "../../../../src/executor/executeBlock.js";
import { call } from "../../../../src/executor/simulate.js";
import { devAccounts, OP_DEV_PREDEPLOYS, opDevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { DevSealer } from "../../../../src/node/exec/devSealer.js";
import { hexToBytes } from "../../../../src/primitives/hex.js";
import { rulesAt } from "../../../../src/spec/chainConfig.js";
import { Fork, OpFork } from "../../../../src/spec/forks.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { DA_FOOTPRINT_GAS_SCALAR_DEFAULT } from "../../../../src/tx/l1BlockInfo.js";
import { TxPool } from "../../../../src/txpool/txPool.js";

function selector(sig: string): Uint8Array {
  return keccak256(new TextEncoder().encode(sig)).subarray(0, 4);
}

/** A view call on the head's state. */
function view(chain: Blockchain, to: string, sig: string): bigint {
  const header = chain.head;
  const rules = rulesAt(chain.config, header.number, header.timestamp);
  const r = call(
    chain.kv,
    {
      from: new Uint8Array(20),
      to: hexToBytes(to),
      gas: 1_000_000n,
      gasPrice: null,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      value: 0n,
      data: selector(sig),
      accessList: [],
    },
    {
      rules,
      chainId: chain.config.chainId,
      gasCap: 0n,
      block: blockContext(header, {
        rules,
        chainId: chain.config.chainId,
        blobBaseFee: headerBlobBaseFee(chain.config, header.excessBlobGas, header.timestamp),
        maxBlobGas: 0,
        depositContract: null,
        blockHash: () => 0n,
        intermediateRoot: null,
      }),
    },
  );
  assert.ok(typeof r !== "string" && r.status === 1, `${sig} failed`);
  return BigInt(`0x${Buffer.from(r.output).toString("hex") || "0"}`);
}

function chainOf(g: Record<string, unknown>): Blockchain {
  return Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
}

function sealOne(chain: Blockchain): void {
  const pool = new TxPool({}, { chain });
  const sealer = new DevSealer(
    { period: 1, feeRecipient: devAccounts(1)[0]!.address, gasCeil: 30_000_000n },
    { chain, pool, onHead: () => undefined, now: () => (chain.head.timestamp + 2) * 1000 },
  );
  const b = sealer.seal();
  assert.equal(b.header.number, 1);
}

describe("node/devGenesis: opDevGenesis --fork", () => {
  it("the default is Isthmus, unchanged", () => {
    const d = opDevGenesis({ chainId: 901n, timestamp: 1000 });
    assert.deepEqual(d, opDevGenesis({ chainId: 901n, timestamp: 1000, fork: "isthmus" }));
    const cfg = d.config as Record<string, unknown>;
    assert.deepEqual([cfg.jovianTime, cfg.karstTime, cfg.osakaTime], [undefined, undefined, undefined]);
    const genesis = parseGenesis(d);
    assert.deepEqual(rulesAt(genesis.config, 0, 1000), { fork: Fork.Prague, op: OpFork.Isthmus });
    assert.equal(decodeHoloceneExtraData(genesis.extraData).denominator, 250);
    const chain = chainOf(d);
    assert.equal(view(chain, OP_DEV_PREDEPLOYS.GasPriceOracle, "isIsthmus()"), 1n);
    assert.equal(view(chain, OP_DEV_PREDEPLOYS.GasPriceOracle, "isJovian()"), 0n);
    sealOne(chain);
  });

  for (const [fork, rules] of [
    ["jovian", { fork: Fork.Prague, op: OpFork.Jovian }],
    ["karst", { fork: Fork.Osaka, op: OpFork.Karst }],
  ] as const) {
    it(`${fork}: forks, extraData and predeploys, and the dev sealer seals`, () => {
      const g = opDevGenesis({ chainId: 901n, timestamp: 1000, fork });
      const cfg = g.config as Record<string, unknown>;
      assert.equal(cfg.jovianTime, 0);
      assert.equal(cfg.karstTime, fork === "karst" ? 0 : undefined);
      assert.equal(cfg.osakaTime, cfg.karstTime, "osakaTime follows karstTime");
      const genesis = parseGenesis(g);
      assert.deepEqual(rulesAt(genesis.config, 0, 1000), rules);
      assert.deepEqual(decodeJovianExtraData(genesis.extraData), { denominator: 250, elasticity: 6, minBaseFee: 0n });
      // The genesis state already reads as Jovian (before any L1-attributes deposit).
      const chain = chainOf(g);
      assert.equal(view(chain, OP_DEV_PREDEPLOYS.GasPriceOracle, "isJovian()"), 1n);
      assert.equal(
        view(chain, OP_DEV_PREDEPLOYS.L1Block, "daFootprintGasScalar()"),
        BigInt(DA_FOOTPRINT_GAS_SCALAR_DEFAULT),
      );
      sealOne(chain);
      assert.deepEqual(rulesAt(chain.config, 1, chain.head.timestamp), rules);
    });
  }

  it("opal-exec genesis --fork takes isthmus, jovian, karst and refuses others", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s) };
    assert.equal(await main(["genesis", "--fork", "karst"], {}, io), 0);
    assert.equal(JSON.parse(out.join("\n")).config.karstTime, 0);
    assert.equal(await main(["genesis", "--fork", "interop"], {}, io), 2);
    assert.match(err.join("\n"), /fork/);
  });
});
