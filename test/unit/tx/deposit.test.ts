/**
 * Deposit (0x7E) codec against the OP network-upgrade deposit txs that kona asserts byte-for-byte
 * (../shared/fixtures/op-stack/network-upgrade-txs/kona/*_tx_*.hex).
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { OpFork, opRules } from "../../../src/spec/forks.js";
import { decodeTx, encodeTx, txHash } from "../../../src/tx/envelope.js";
import { recoverSender, txSigningHash } from "../../../src/tx/signer.js";
import { TxType } from "../../../src/tx/tx.js";
import { validateTx } from "../../../src/tx/validateTx.js";
import { fixturePath } from "../../utils/fixtures.js";
import { depositTx } from "./builders.js";

describe("tx/deposit", () => {
  const dir = fixturePath("op-stack", "network-upgrade-txs", "kona");
  const files = readdirSync(dir)
    .filter((f) => /_tx_\d+\.hex$/.test(f))
    .sort();

  it("finds the upgrade-tx fixtures", () => {
    assert.ok(files.length >= 10, `only ${files.length} upgrade txs under ${dir}`);
  });

  it("decodes every upgrade deposit and re-encodes it byte-for-byte", () => {
    for (const f of files) {
      const bytes = hexToBytes(readFileSync(`${dir}/${f}`, "utf8").trim());
      const tx = decodeTx(bytes);
      assert.equal(tx.type, TxType.Deposit, f);
      if (tx.type !== TxType.Deposit) continue;
      assert.deepEqual(encodeTx(tx), bytes, f);
      assert.equal(tx.sourceHash.length, 32);
      assert.equal(tx.mint, 0n, `${f}: upgrade txs mint nothing`);
      assert.equal(tx.isSystemTx, false, f);
      assert.ok(tx.gasLimit > 0n, f);
      assert.deepEqual(recoverSender(tx), tx.from);
      assert.equal(txSigningHash(tx), null);
      assert.deepEqual(txHash(tx), keccak256(bytes));
      assert.equal(validateTx(tx, { rules: opRules(OpFork.Isthmus), chainId: 10n, allowDeposit: true }), null);
    }
  });

  it("the first Ecotone upgrade tx carries the spec's source hash and deploys from 0x4210…0000", () => {
    const tx = decodeTx(hexToBytes(readFileSync(`${dir}/ecotone_tx_0.hex`, "utf8").trim()));
    assert.equal(tx.type, TxType.Deposit);
    if (tx.type !== TxType.Deposit) return;
    // Source hash of intent "Ecotone: L1 Block Deployment" (specs/protocol/ecotone/derivation.md).
    // sourceHash = keccak256(uint256_be(2) ‖ keccak256(intent)), domain 2 = upgrade deposits.
    const domain = new Uint8Array(32);
    domain[31] = 2;
    const intent = keccak256(new TextEncoder().encode("Ecotone: L1 Block Deployment"));
    assert.equal(bytesToHex(tx.sourceHash), bytesToHex(keccak256(concat(domain, intent))));
    assert.equal(bytesToHex(tx.from), "0x4210000000000000000000000000000000000000");
    assert.equal(tx.to, null);
  });

  it("round-trips mint, creation and system flag", () => {
    for (const over of [{}, { mint: 5n }, { to: null }, { isSystemTx: true }, { value: 2n ** 255n }]) {
      const tx = depositTx(over);
      const back = decodeTx(encodeTx(tx));
      assert.deepEqual(encodeTx(back), encodeTx(tx));
    }
    // mint = 0 is the empty string.
    const enc = encodeTx(depositTx({ mint: 0n }));
    assert.equal(enc[0], 0x7e);
  });
});

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
