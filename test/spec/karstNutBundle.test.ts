/**
 * The Karst NUT bundle (../shared/fixtures/op-stack/nuts/karst_nut_bundle.json, SOURCE.md): the file
 * is the pinned one (sha256 of SOURCE.md and of optimism's fork_lock.toml), the embedded copy
 * (src/rollup/derive/karstNutBundle.ts) equals it field for field and is what the generator makes
 * today, and every one of the 31 Karst upgrade deposits equals a deposit built here independently:
 * source hash keccak256(uint256(2) ‖ keccak256("Karst <i>: <intent>")) with @noble/hashes, and the
 * 0x7e ‖ RLP bytes with this file's own encoder. The encoder and hasher are first checked against
 * op-alloy-consensus's "Test" bundle vectors (rust/op-alloy/crates/consensus/src/nuts/mod.rs), which
 * also pin the qualified-intent form op-node v1.19.1 hashes ("<Fork> <i>: <intent>").
 * The bundle's internal consistency is checked too: its CREATE2 deployments through the
 * deterministic deployment proxy land where its proxy updates point, and its final call names the
 * L2ContractsManager address upstream asserts (0x5398…6669).
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { karstNutBundlePath, karstNutBundleUpToDate } from "../../scripts/bundleKarstNut.js";
import {
  KARST_NUT_BUNDLE_SHA256,
  KARST_NUT_BUNDLE_TXS,
  KARST_NUT_BUNDLE_VERSION,
} from "../../src/rollup/derive/karstNutBundle.js";
import {
  karstUpgradeGas,
  karstUpgradeTxs,
  nutBundleDepositTxs,
  nutIntent,
} from "../../src/rollup/derive/upgradeTxs.js";
import { fixturePath } from "../utils/fixtures.js";

/** fixtures/op-stack/nuts/SOURCE.md; equal to optimism op-core/nuts/fork_lock.toml [karst] hash. */
const PINNED_SHA256 = "08f5df36f7ff29a9421ab84beebe96684a7455df9a5d234a2468613a4008ad91";
/** SOURCE.md: "The gasLimits sum to 55,370,657", 31 transactions. */
const TOTAL_GAS = 55_370_657;
const TX_COUNT = 31;
/** SOURCE.md / contracts-bedrock PastNUTBundles.t.sol: the committed Karst bundle's L2CM. */
const L2CM = "0x5398a70eb0929dd7bfc73c59e7137d8c7cdf6669";
/** The deterministic deployment proxy (Arachnid), specs l2-upgrades-2-contracts.md. */
const DETERMINISTIC_DEPLOYER = "4e59b44847b379578588920ca78fbf26c0b4956c";

// ---- an independent deposit encoder (hex strings in, hex out) ----

const enc = new TextEncoder();
const hexOf = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/^0x/, ""), "hex"));
const keccakHex = (b: Uint8Array): string => hexOf(keccak_256(b));

function rlpLength(len: number, short: number): string {
  if (len < 56) return (short + len).toString(16).padStart(2, "0");
  let l = len.toString(16);
  if (l.length % 2 === 1) l = `0${l}`;
  return (short + 55 + l.length / 2).toString(16) + l;
}

function rlpString(hex: string): string {
  if (hex.length === 2 && Number.parseInt(hex, 16) < 0x80) return hex;
  return rlpLength(hex.length / 2, 0x80) + hex;
}

function rlpList(items: readonly string[]): string {
  const body = items.join("");
  return rlpLength(body.length / 2, 0xc0) + body;
}

function quantityHex(n: bigint): string {
  if (n === 0n) return "";
  const h = n.toString(16);
  return h.length % 2 === 1 ? `0${h}` : h;
}

/** keccak256(uint256(2) ‖ keccak256(intent)) (specs/protocol/deposits.md, upgrade-deposited source). */
function sourceHashHex(intent: string): string {
  const domain = new Uint8Array(32);
  domain[31] = 2;
  const inner = keccak_256(enc.encode(intent));
  const pre = new Uint8Array(64);
  pre.set(domain, 0);
  pre.set(inner, 32);
  return keccakHex(pre);
}

interface RawTx {
  intent: string;
  from: string;
  to: string | null;
  gasLimit: number;
  data: string;
}

/** 0x7e ‖ rlp([sourceHash, from, to, mint=0, value=0, gas, isSystemTx=false, data]). */
function depositHex(qualifiedIntent: string, t: RawTx): string {
  const fields = [
    rlpString(sourceHashHex(qualifiedIntent)),
    rlpString(t.from.slice(2).toLowerCase()),
    rlpString(t.to === null ? "" : t.to.slice(2).toLowerCase()),
    rlpString(""),
    rlpString(""),
    rlpString(quantityHex(BigInt(t.gasLimit))),
    rlpString(""),
    rlpString(t.data.slice(2).toLowerCase()),
  ];
  return `7e${rlpList(fields)}`;
}

function readBundle(): { text: string; txs: RawTx[]; metadata: Record<string, unknown> } {
  const text = readFileSync(karstNutBundlePath(), "utf8");
  const json = JSON.parse(text) as { metadata: Record<string, unknown>; transactions: RawTx[] };
  return { text, txs: json.transactions, metadata: json.metadata };
}

/** CREATE2 address (EIP-1014) of `initHex` with `saltHex` from the deterministic deployment proxy. */
function create2(saltHex: string, initHex: string): string {
  return `0x${keccakHex(bytesOf(`ff${DETERMINISTIC_DEPLOYER}${saltHex}${keccakHex(bytesOf(initHex))}`)).slice(24)}`;
}

/** The (salt, initcode) a bundle tx deploys: raw to the proxy, or ABI `deploy(bytes32,bytes)`. */
function deployment(t: RawTx): { salt: string; init: string } {
  const d = t.data.slice(2).toLowerCase();
  if (t.to?.toLowerCase() === `0x${DETERMINISTIC_DEPLOYER}`) return { salt: d.slice(0, 64), init: d.slice(64) };
  assert.equal(d.slice(0, 8), keccakHex(enc.encode("deploy(bytes32,bytes)")).slice(0, 8));
  const salt = d.slice(8, 72);
  const offset = Number.parseInt(d.slice(72, 136), 16);
  const at = 8 + offset * 2;
  const len = Number.parseInt(d.slice(at, at + 64), 16);
  return { salt, init: d.slice(at + 64, at + 64 + len * 2) };
}

describe("spec: Karst NUT bundle (op-node v1.19.1 upgrade deposits)", () => {
  it("the fixture is the pinned file: sha256 of SOURCE.md, 31 txs, gas 55,370,657, schema 1.0.0", () => {
    const { text, txs, metadata } = readBundle();
    assert.equal(createHash("sha256").update(text).digest("hex"), PINNED_SHA256);
    const source = readFileSync(fixturePath("op-stack", "nuts", "SOURCE.md"), "utf8");
    assert.ok(source.includes(PINNED_SHA256), "SOURCE.md names the sha256");
    assert.equal(txs.length, TX_COUNT);
    assert.equal(
      txs.reduce((s, t) => s + t.gasLimit, 0),
      TOTAL_GAS,
    );
    assert.deepEqual(metadata, { version: "1.0.0" });
  });

  it("the embedded bundle equals the fixture field for field and is what the generator writes", () => {
    const { txs } = readBundle();
    assert.equal(KARST_NUT_BUNDLE_SHA256, PINNED_SHA256);
    assert.equal(KARST_NUT_BUNDLE_VERSION, "1.0.0");
    assert.equal(KARST_NUT_BUNDLE_TXS.length, txs.length);
    txs.forEach((t, i) => {
      const e = KARST_NUT_BUNDLE_TXS[i]!;
      assert.deepEqual(
        { intent: e.intent, from: e.from, to: e.to, gasLimit: e.gasLimit, data: e.data },
        {
          intent: t.intent,
          from: t.from.toLowerCase(),
          to: t.to === null ? null : t.to.toLowerCase(),
          gasLimit: t.gasLimit,
          data: t.data.toLowerCase(),
        },
        `tx ${i}`,
      );
    });
    assert.equal(karstUpgradeGas(), BigInt(TOTAL_GAS));
    assert.ok(karstNutBundleUpToDate(), "src/rollup/derive/karstNutBundle.ts is stale: npm run bundle:karst-nut");
  });

  it("this file's hasher and encoder reproduce op-alloy's Test-bundle vectors, as does nutBundleDepositTxs", () => {
    // rust/op-alloy/crates/consensus/src/nuts/mod.rs tests (fork_name "Test").
    const test: RawTx[] = [
      {
        intent: "First Transaction",
        from: "0x0000000000000000000000000000000000000000",
        to: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        gasLimit: 1_000_000,
        data: "0xabcdef",
      },
      {
        intent: "Second Transaction",
        from: "0x000000000000000000000000000000000000abba",
        to: "0x4200000000000000000000000000000000000015",
        gasLimit: 5_000_000,
        data: "0xfeedface",
      },
    ];
    assert.equal(
      sourceHashHex("Test 0: First Transaction"),
      "c3ecdc70c81521aae81240518d3547f601bb33ec07b909e83544b2fe093c78bd",
    );
    assert.equal(
      sourceHashHex("Test 1: Second Transaction"),
      "ac61fbb5e3d61e626f66c413c564d376e3b363b94a37aab323b860a2293b7c6c",
    );
    const want = [
      "7ef856a0c3ecdc70c81521aae81240518d3547f601bb33ec07b909e83544b2fe093c78bd94000000000000000000000000000000000000000094f39fd6e51aad88f6f4ce6ab8827279cfffb922668080830f42408083abcdef",
      "7ef857a0ac61fbb5e3d61e626f66c413c564d376e3b363b94a37aab323b860a2293b7c6c94000000000000000000000000000000000000abba9442000000000000000000000000000000000000158080834c4b408084feedface",
    ];
    assert.deepEqual(
      test.map((t, i) => depositHex(`Test ${i}: ${t.intent}`, t)),
      want,
    );
    const lowered = test.map((t) => ({ ...t, from: t.from.toLowerCase(), to: t.to!.toLowerCase() }));
    assert.deepEqual(nutBundleDepositTxs("Test", "1.0.0", lowered).map(hexOf), want);
    assert.throws(() => nutBundleDepositTxs("Test", "2.0.0", lowered), /unsupported NUT bundle version/);
    assert.throws(() => nutBundleDepositTxs("Test", "1.0.0", [{ ...lowered[0]!, intent: "" }]), /missing intent/);
  });

  it("every Karst deposit equals the independent encoding over the intent 'Karst <i>: <intent>'", () => {
    const { txs } = readBundle();
    const got = karstUpgradeTxs().map(hexOf);
    assert.equal(got.length, TX_COUNT);
    txs.forEach((t, i) => {
      assert.equal(nutIntent("karst", i, t.intent), `Karst ${i}: ${t.intent}`);
      assert.equal(got[i], depositHex(`Karst ${i}: ${t.intent}`, t), `tx ${i} (${t.intent})`);
    });
    // The first one, spelled out: neither the spec text's "Karst: " nor the pre-April "karst 0: ".
    // After 0x7e and the 3-byte list header (f9 + u16 length) comes the 32-byte string (a0 + hash).
    assert.equal(got[0]!.slice(2, 4), "f9");
    const first = got[0]!.slice(8, 74);
    assert.equal(first, `a0${sourceHashHex("Karst 0: ConditionalDeployer Deployment")}`);
    assert.notEqual(first, `a0${sourceHashHex("Karst: ConditionalDeployer Deployment")}`);
    assert.notEqual(first, `a0${sourceHashHex("karst 0: ConditionalDeployer Deployment")}`);
  });

  it("the bundle is consistent: CREATE2 implementations, proxy updates and the L2ContractsManager", () => {
    const { txs } = readBundle();
    const upgradeTo = keccakHex(enc.encode("upgradeTo(address)")).slice(0, 8);
    const word = (addr: string): string => addr.slice(2).padStart(64, "0");
    // tx 0 deploys the ConditionalDeployer through the proxy; tx 1 points 0x4200…002C at it.
    const cd = create2(deployment(txs[0]!).salt, deployment(txs[0]!).init);
    assert.equal(txs[1]!.to!.toLowerCase(), "0x420000000000000000000000000000000000002c");
    assert.equal(txs[1]!.data.toLowerCase(), `0x${upgradeTo}${word(cd)}`);
    // tx 28 points the L2ProxyAdmin proxy at the implementation tx 12 deploys.
    assert.equal(txs[12]!.intent, "Deploy L2ProxyAdmin Implementation");
    const proxyAdminImpl = create2(deployment(txs[12]!).salt, deployment(txs[12]!).init);
    assert.equal(txs[28]!.to!.toLowerCase(), "0x4200000000000000000000000000000000000018");
    assert.equal(txs[28]!.data.toLowerCase(), `0x${upgradeTo}${word(proxyAdminImpl)}`);
    // tx 29 deploys the L2CM at the address upstream asserts; tx 30 hands it to upgradePredeploys.
    assert.equal(create2(deployment(txs[29]!).salt, deployment(txs[29]!).init), L2CM);
    const upgradePredeploys = keccakHex(enc.encode("upgradePredeploys(address)")).slice(0, 8);
    assert.equal(txs[30]!.data.toLowerCase(), `0x${upgradePredeploys}${word(L2CM)}`);
    // Every implementation the L2CM is constructed with is one the bundle deploys (its ABI-encoded
    // constructor arguments follow the L2CM's initcode; look for each address word in them).
    const l2cmInit = deployment(txs[29]!).init;
    for (let i = 2; i <= 27; i++) {
      const impl = create2(deployment(txs[i]!).salt, deployment(txs[i]!).init);
      assert.ok(l2cmInit.includes(word(impl)), `L2CM knows ${txs[i]!.intent} at ${impl}`);
    }
  });
});
