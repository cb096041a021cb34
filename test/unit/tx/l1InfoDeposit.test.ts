/**
 * The L1-attributes deposit: its source hash against viem's independent implementation (and viem's
 * published vector), the fields the spec fixes (depositor, L1Block, gas and system flag by Regolith),
 * calldata that parses back to the same attributes, and the format chosen at fork activation blocks.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { getSourceHash } from "viem/op-stack";
import { BLOCK_FORKS_AT_ZERO } from "../../../src/node/exec/devGenesis.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { parseChainConfig } from "../../../src/spec/chainConfig.js";
import { L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR } from "../../../src/spec/opAddresses.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { L1InfoFormat, newL1BlockInfo, parseL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { l1InfoDepositTx, l1InfoFormatAt, l1InfoSourceHash } from "../../../src/tx/l1InfoDeposit.js";
import { TxType } from "../../../src/tx/tx.js";

describe("tx/l1InfoDeposit", () => {
  it("source hash: viem's published vector and agreement on random origins", () => {
    const h = l1InfoSourceHash(hexToBytes("0x9ba3933dc6ce43c145349770a39c30f9b647f17668f004bd2e05c80a2e7262f7"), 1n);
    assert.equal(bytesToHex(h), "0x722c43232e2f9dc07ebc07a02a3056993a2ed1328a1c81377ea99d135af39536");
    for (let i = 0; i < 20; i++) {
      const hash = new Uint8Array(randomBytes(32));
      const seq = i * 977;
      const want = getSourceHash({
        domain: "l1InfoDeposit",
        l1BlockHash: bytesToHex(hash) as `0x${string}`,
        sequenceNumber: seq,
      });
      assert.equal(bytesToHex(l1InfoSourceHash(hash, BigInt(seq))), want);
    }
  });

  it("the deposit: depositor to L1Block, no value, 1M gas from Regolith (150M and a system tx before)", () => {
    const info = newL1BlockInfo({
      format: L1InfoFormat.Ecotone,
      number: 19n,
      timestamp: 1234n,
      baseFee: 7n,
      sequenceNumber: 3n,
    });
    for (const regolith of [true, false]) {
      const tx = l1InfoDepositTx(info, regolith);
      const back = decodeTx(encodeTx(tx));
      assert.equal(back.type, TxType.Deposit);
      if (back.type !== TxType.Deposit) return;
      assert.deepEqual(back.from, L1_INFO_DEPOSITOR);
      assert.deepEqual(back.to, L1_BLOCK_ADDRESS);
      assert.equal(back.mint, 0n);
      assert.equal(back.value, 0n);
      assert.equal(back.gasLimit, regolith ? 1_000_000n : 150_000_000n);
      assert.equal(back.isSystemTx, !regolith);
      assert.deepEqual(back.sourceHash, l1InfoSourceHash(info.hash, 3n));
      const parsed = parseL1BlockInfo(back.data);
      assert.ok(parsed !== null);
      assert.equal(parsed.format, L1InfoFormat.Ecotone);
      assert.equal(parsed.number, 19n);
      assert.equal(parsed.sequenceNumber, 3n);
      assert.equal(parsed.baseFee, 7n);
    }
  });

  it("format: a fork's activation block keeps the previous fork's format", () => {
    const cfg = parseChainConfig({
      chainId: 10,
      ...BLOCK_FORKS_AT_ZERO,
      terminalTotalDifficulty: 0,
      bedrockBlock: 0,
      regolithTime: 0,
      canyonTime: 0,
      shanghaiTime: 0,
      ecotoneTime: 100,
      cancunTime: 100,
      fjordTime: 100,
      isthmusTime: 200,
      pragueTime: 200,
      jovianTime: 300,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    });
    const cases: [number, number, L1InfoFormat][] = [
      [98, 96, L1InfoFormat.Bedrock],
      [100, 98, L1InfoFormat.Bedrock], // Ecotone activation block
      [102, 100, L1InfoFormat.Ecotone],
      [201, 199, L1InfoFormat.Ecotone], // Isthmus activation block
      [203, 201, L1InfoFormat.Isthmus],
      [300, 298, L1InfoFormat.Isthmus], // Jovian activation block
      [302, 300, L1InfoFormat.Jovian],
    ];
    for (const [t, parent, want] of cases) assert.equal(l1InfoFormatAt(cfg, t, parent), want, `at ${t}`);
  });
});
