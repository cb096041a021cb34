/**
 * tx/depositSourceHash: keccak256(bytes32(domain) ‖ payload), built here from its parts; the four
 * deposit makers (user deposits, L1 info, upgrades, interop optimistic block) each use their own
 * domain, and the upgrade source hashes of kona's encoded upgrade txs (all forks, Interop included)
 * are domain 2 over the intent.
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { utf8ToBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { bigintToBytes32 } from "../../../src/primitives/u256.js";
import { userDepositSourceHash } from "../../../src/rollup/derive/depositLog.js";
import { interopUpgradeTxs, upgradeSourceHash } from "../../../src/rollup/derive/upgradeTxs.js";
import { invalidatedBlockSourceHash } from "../../../src/rollup/interop/replacement.js";
import { DepositSourceDomain, depositSourceHash } from "../../../src/tx/depositSourceHash.js";
import { decodeTx } from "../../../src/tx/envelope.js";
import { l1InfoSourceHash } from "../../../src/tx/l1InfoDeposit.js";
import { TxType } from "../../../src/tx/tx.js";
import { fixturePath } from "../../utils/fixtures.js";

/** keccak256 over a 32-byte big-endian `domain` word followed by `payload`, assembled by hand. */
function byHand(domain: number, payload: Uint8Array): Uint8Array {
  const word = new Uint8Array(32);
  word[31] = domain;
  const buf = new Uint8Array(32 + payload.length);
  buf.set(word, 0);
  buf.set(payload, 32);
  return keccak256(buf);
}

describe("tx/depositSourceHash", () => {
  const blockHash = keccak256(utf8ToBytes("an L1 block"));

  it("is keccak256(bytes32(domain) ‖ payload) for every domain in use, and the domains differ", () => {
    const payload = keccak256(utf8ToBytes("payload"));
    const seen = new Set<string>();
    for (const [name, d] of Object.entries(DepositSourceDomain)) {
      assert.equal(bytesToHex(depositSourceHash(d, payload)), bytesToHex(byHand(Number(d), payload)), name);
      seen.add(bytesToHex(depositSourceHash(d, payload)));
    }
    assert.equal(seen.size, Object.keys(DepositSourceDomain).length);
    assert.deepEqual(Object.values(DepositSourceDomain), [0n, 1n, 2n, 4n]);
  });

  it("user deposits use domain 0 over keccak(l1BlockHash ‖ logIndex)", () => {
    const inner = keccak256(new Uint8Array([...blockHash, ...bigintToBytes32(7n)]));
    assert.equal(bytesToHex(userDepositSourceHash(blockHash, 7)), bytesToHex(byHand(0, inner)));
  });

  it("L1-info deposits use domain 1 over keccak(l1BlockHash ‖ seqNumber)", () => {
    const inner = keccak256(new Uint8Array([...blockHash, ...bigintToBytes32(3n)]));
    assert.equal(bytesToHex(l1InfoSourceHash(blockHash, 3n)), bytesToHex(byHand(1, inner)));
  });

  it("upgrade deposits use domain 2 over keccak(intent)", () => {
    const intent = "Interop: CrossL2Inbox Deployment";
    assert.equal(bytesToHex(upgradeSourceHash(intent)), bytesToHex(byHand(2, keccak256(utf8ToBytes(intent)))));
  });

  it("the interop optimistic-block deposit uses domain 4 over the output root", () => {
    const root = keccak256(utf8ToBytes("an output root"));
    assert.equal(bytesToHex(invalidatedBlockSourceHash(root)), bytesToHex(byHand(4, root)));
  });

  it("kona's interop upgrade txs carry domain-2 source hashes of the spec's intents", () => {
    const dir = fixturePath("op-stack", "network-upgrade-txs", "kona");
    const files = readdirSync(dir)
      .filter((f) => /^interop_tx_\d+\.hex$/.test(f))
      .sort();
    assert.equal(files.length, interopUpgradeTxs().length);
    const intents = [
      "Interop: CrossL2Inbox Deployment",
      "Interop: CrossL2Inbox Proxy Update",
      "Interop: L2ToL2CrossDomainMessenger Deployment",
      "Interop: L2ToL2CrossDomainMessenger Proxy Update",
    ];
    files.forEach((f, i) => {
      const tx = decodeTx(hexToBytes(`0x${readFileSync(`${dir}/${f}`, "utf8").trim()}`));
      assert.equal(tx.type, TxType.Deposit);
      if (tx.type !== TxType.Deposit) return;
      assert.equal(bytesToHex(tx.sourceHash), bytesToHex(byHand(2, keccak256(utf8ToBytes(intents[i]!)))), f);
    });
  });
});
