/**
 * executeTx: the stateful rejections (execution-specs `check_transaction`), fee accounting (EIP-1559:
 * the sender pays gasUsed × effective price, the coinbase gets the tip, the base fee is burnt), the
 * refund cap (gasUsed/2 before London, gasUsed/5 from EIP-3529), the EIP-7623 calldata floor on
 * Prague and EIP-7702 authorizations. Expected gas is spelled out from the EIPs' constants.
 */
import { strict as assert } from "node:assert";
import { buildPreState, type FixtureAccount } from "../../../src/cli/evmTool/preState.js";
import { privateKeyToAddress, sign } from "../../../src/crypto/secp256k1.js";
import type { BlockContext } from "../../../src/evm/context.js";
import { delegationCode } from "../../../src/evm/delegation.js";
import { Evm } from "../../../src/evm/evm.js";
import { executeTx, type TxOutcome, type TxRejectCode } from "../../../src/executor/executeTx.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { Fork, l1Rules } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../../src/state/worldState.js";
import { authoritySigningHash } from "../../../src/tx/authorization.js";
import {
  type Authorization,
  type FeeMarketTx,
  type LegacyTx,
  type SetCodeTx,
  type Tx,
  TxType,
} from "../../../src/tx/tx.js";

const SENDER = hexToBytes("0x5e4de40000000000000000000000000000000001");
const TO = hexToBytes("0x7000000000000000000000000000000000000002");
const CONTRACT = hexToBytes("0xc000000000000000000000000000000000000003");
const DELEGATE = hexToBytes("0xde1e000000000000000000000000000000000004");
const COINBASE = 0xc0ffee0000000000000000000000000000000005n;
const AUTH_KEY = hexToBytes(`0x${"11".repeat(32)}`);
const AUTHORITY = privateKeyToAddress(AUTH_KEY);
const BASE_FEE = 7n;
const CHAIN_ID = 1n;

const block: BlockContext = {
  coinbase: COINBASE,
  number: 1n,
  timestamp: 1n,
  gasLimit: 30_000_000n,
  difficulty: 0n,
  prevRandao: 0n,
  baseFee: BASE_FEE,
  blobBaseFee: 1n,
  chainId: CHAIN_ID,
  blockHash: () => 0n,
};

function setup(fork: Fork, alloc: Record<string, FixtureAccount>): { evm: Evm; st: WorldState } {
  const { kv } = buildPreState(alloc);
  const st = new WorldState(new KvStateReader(kv), kv);
  return { evm: new Evm(l1Rules(fork), block, st), st };
}

function tx1559(o: Partial<FeeMarketTx> = {}): FeeMarketTx {
  return {
    type: TxType.FeeMarket,
    chainId: CHAIN_ID,
    nonce: 0n,
    maxPriorityFeePerGas: 2n,
    maxFeePerGas: 10n,
    gasLimit: 100_000n,
    to: TO,
    value: 0n,
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 1n,
    s: 1n,
    ...o,
  };
}

function legacy(o: Partial<LegacyTx> = {}): LegacyTx {
  return {
    type: TxType.Legacy,
    nonce: 0n,
    gasPrice: 10n,
    gasLimit: 100_000n,
    to: TO,
    value: 0n,
    data: new Uint8Array(0),
    v: 27n,
    r: 1n,
    s: 1n,
    ...o,
  };
}

function exec(evm: Evm, tx: Tx, blockGasLeft = 30_000_000n): TxOutcome | TxRejectCode {
  return executeTx(evm, tx, { sender: SENDER, blockGasLeft, blobGasLeft: 0 });
}

function ok(r: TxOutcome | TxRejectCode): TxOutcome {
  assert.equal(typeof r, "object", `rejected: ${String(r)}`);
  return r as TxOutcome;
}

const bal = (st: WorldState, a: Uint8Array | bigint): bigint =>
  st.account(typeof a === "bigint" ? a : addressToBigint(a)).balance;
const hex = (a: Uint8Array): string => bytesToHex(a);

describe("executor/executeTx", () => {
  describe("rejections leave the state untouched", () => {
    const cases: [string, Fork, Record<string, FixtureAccount>, Tx, TxRejectCode, bigint?][] = [
      [
        "nonce too low",
        Fork.Cancun,
        { [hex(SENDER)]: { nonce: "0x5", balance: "0xffffffff" } },
        tx1559({ nonce: 4n }),
        "NONCE_TOO_LOW",
      ],
      [
        "nonce too high",
        Fork.Cancun,
        { [hex(SENDER)]: { nonce: "0x5", balance: "0xffffffff" } },
        tx1559({ nonce: 6n }),
        "NONCE_TOO_HIGH",
      ],
      // EIP-1559: balance must cover gasLimit × maxFeePerGas + value (100000·10 + 1 = 1000001).
      [
        "insufficient funds",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "1000000" } },
        tx1559({ value: 1n }),
        "INSUFFICIENT_FUNDS",
      ],
      [
        "fee cap below base fee",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "0xffffffff" } },
        tx1559({ maxFeePerGas: BASE_FEE - 1n, maxPriorityFeePerGas: 0n }),
        "FEE_CAP_BELOW_BASE_FEE",
      ],
      [
        "legacy gas price below base fee",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "0xffffffff" } },
        legacy({ gasPrice: BASE_FEE - 1n }),
        "FEE_CAP_BELOW_BASE_FEE",
      ],
      [
        "gas allowance exceeded",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "0xffffffff" } },
        tx1559({ gasLimit: 50_001n }),
        "GAS_ALLOWANCE_EXCEEDED",
        50_000n,
      ],
      // EIP-3607: a sender with deployed code.
      [
        "sender with code",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "0xffffffff", code: "0x00" } },
        tx1559(),
        "SENDER_NOT_EOA",
      ],
      // EIP-7702 designators are allowed senders only from Prague; before, they are just code.
      [
        "sender with a designator before Prague",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "0xffffffff", code: hex(delegationCode(DELEGATE)) } },
        tx1559(),
        "SENDER_NOT_EOA",
      ],
      [
        "intrinsic gas too low",
        Fork.Cancun,
        { [hex(SENDER)]: { balance: "0xffffffff" } },
        tx1559({ gasLimit: 20_999n }),
        "INTRINSIC_GAS_TOO_LOW",
      ],
    ];
    for (const [name, fork, alloc, tx, code, gasLeft] of cases) {
      it(name, () => {
        const { evm, st } = setup(fork, alloc);
        const s = st.account(addressToBigint(SENDER));
        const before = [s.balance, s.nonce];
        assert.equal(exec(evm, tx, gasLeft), code);
        assert.deepEqual([s.balance, s.nonce], before);
      });
    }

    it("a balance of exactly gasLimit × maxFee + value is enough", () => {
      const { evm } = setup(Fork.Cancun, { [hex(SENDER)]: { balance: "1000001" } });
      ok(exec(evm, tx1559({ value: 1n })));
    });

    it("gasLimit equal to the gas left in the block is allowed", () => {
      const { evm } = setup(Fork.Cancun, { [hex(SENDER)]: { balance: "0xffffffff" } });
      ok(exec(evm, tx1559({ gasLimit: 50_000n }), 50_000n));
    });

    it("a sender whose code is an EIP-7702 designator may send on Prague", () => {
      const { evm } = setup(Fork.Prague, {
        [hex(SENDER)]: { balance: "0xffffffff", code: hex(delegationCode(DELEGATE)) },
      });
      ok(exec(evm, tx1559()));
    });
  });

  describe("fees", () => {
    it("EIP-1559: sender pays gasUsed × min(maxFee, baseFee + tip), coinbase gets the tip, base fee is burnt", () => {
      const { evm, st } = setup(Fork.Cancun, { [hex(SENDER)]: { balance: "10000000", nonce: "0x3" } });
      const r = ok(exec(evm, tx1559({ nonce: 3n, value: 5n })));
      assert.equal(r.status, 1);
      assert.equal(r.gasUsed, 21_000);
      assert.equal(r.gasPrice, 9n); // min(10, 7 + 2)
      assert.equal(bal(st, SENDER), 10_000_000n - 21_000n * 9n - 5n);
      assert.equal(bal(st, TO), 5n);
      assert.equal(bal(st, COINBASE), 21_000n * 2n);
      const total = bal(st, SENDER) + bal(st, TO) + bal(st, COINBASE);
      assert.equal(10_000_000n - total, 21_000n * BASE_FEE, "burnt");
      assert.equal(st.account(addressToBigint(SENDER)).nonce, 4n);
    });

    it("the tip is capped by maxFee − baseFee", () => {
      const { evm, st } = setup(Fork.Cancun, { [hex(SENDER)]: { balance: "10000000" } });
      const r = ok(exec(evm, tx1559({ maxFeePerGas: 8n, maxPriorityFeePerGas: 5n })));
      assert.equal(r.gasPrice, 8n);
      assert.equal(bal(st, COINBASE), 21_000n * 1n);
    });

    it("before London the coinbase gets the whole gas price", () => {
      const { evm, st } = setup(Fork.Berlin, { [hex(SENDER)]: { balance: "10000000" } });
      const r = ok(exec(evm, legacy({ gasPrice: 3n })));
      assert.equal(r.gasUsed, 21_000);
      assert.equal(bal(st, COINBASE), 63_000n);
      assert.equal(bal(st, SENDER), 10_000_000n - 63_000n);
    });

    it("a failed call still pays for all the gas it consumed and bumps the nonce", () => {
      const { evm, st } = setup(Fork.Cancun, {
        [hex(SENDER)]: { balance: "10000000" },
        [hex(CONTRACT)]: { code: "0xfe" },
      });
      const r = ok(exec(evm, tx1559({ to: CONTRACT, gasLimit: 50_000n })));
      assert.equal(r.status, 0);
      assert.equal(r.gasUsed, 50_000);
      assert.equal(bal(st, SENDER), 10_000_000n - 50_000n * 9n);
      assert.equal(st.account(addressToBigint(SENDER)).nonce, 1n);
    });
  });

  describe("refund cap", () => {
    // CONTRACT: SSTORE(0, 0); SSTORE(1, 0) over slots holding 1. Execution: 4 pushes (12) + 2 × 5000
    // (cold slot 2100 + reset 2900, EIP-2929) = 10012; the tx uses 31012 before refunds.
    const alloc = {
      [hex(SENDER)]: { balance: "10000000" },
      [hex(CONTRACT)]: { code: "0x6000600055600060015500", storage: { "0x00": "0x01", "0x01": "0x01" } },
    };

    it("Berlin: refund 2 × 15000 capped at gasUsed / 2 (EIP-2200/YP)", () => {
      const { evm } = setup(Fork.Berlin, alloc);
      const r = ok(exec(evm, legacy({ to: CONTRACT })));
      assert.equal(r.gasUsed, 31_012 - Math.floor(31_012 / 2));
    });

    it("London: refund 2 × 4800 capped at gasUsed / 5 (EIP-3529)", () => {
      const { evm } = setup(Fork.London, alloc);
      const r = ok(exec(evm, legacy({ to: CONTRACT })));
      assert.equal(r.gasUsed, 31_012 - Math.floor(31_012 / 5));
    });

    it("London: a refund under the cap is paid in full", () => {
      const { evm } = setup(Fork.London, {
        [hex(SENDER)]: { balance: "10000000" },
        [hex(CONTRACT)]: { code: "0x600060005500", storage: { "0x00": "0x01" } },
      });
      const r = ok(exec(evm, legacy({ to: CONTRACT })));
      // 21000 + 6 + 5000 = 26006; refund 4800 < 26006/5.
      assert.equal(r.gasUsed, 26_006 - 4_800);
    });
  });

  describe("EIP-7623 calldata floor", () => {
    // 100 non-zero bytes: standard 21000 + 16·100 = 22600; floor 21000 + 10·(4·100) = 25000.
    const data = new Uint8Array(100).fill(1);

    it("Prague charges the floor when it exceeds the execution cost", () => {
      const { evm, st } = setup(Fork.Prague, { [hex(SENDER)]: { balance: "10000000" } });
      const r = ok(exec(evm, tx1559({ data })));
      assert.equal(r.gasUsed, 25_000);
      assert.equal(bal(st, SENDER), 10_000_000n - 25_000n * 9n);
    });

    it("Cancun charges the standard cost", () => {
      const { evm } = setup(Fork.Cancun, { [hex(SENDER)]: { balance: "10000000" } });
      assert.equal(ok(exec(evm, tx1559({ data }))).gasUsed, 22_600);
    });

    it("Prague rejects a gas limit below the floor", () => {
      const { evm } = setup(Fork.Prague, { [hex(SENDER)]: { balance: "10000000" } });
      assert.equal(exec(evm, tx1559({ data, gasLimit: 24_999n })), "INTRINSIC_GAS_TOO_LOW");
      const c = setup(Fork.Cancun, { [hex(SENDER)]: { balance: "10000000" } });
      assert.equal(ok(exec(c.evm, tx1559({ data, gasLimit: 24_999n }))).gasUsed, 22_600);
    });

    it("execution above the floor is charged as usual", () => {
      // CONTRACT sets a fresh slot: 21000 + 1600 + 6 + 22100 ≫ 25000.
      const { evm } = setup(Fork.Prague, {
        [hex(SENDER)]: { balance: "10000000" },
        [hex(CONTRACT)]: { code: "0x600160005500" },
      });
      assert.equal(ok(exec(evm, tx1559({ to: CONTRACT, data }))).gasUsed, 21_000 + 1_600 + 6 + 22_100);
    });
  });

  describe("EIP-7702 authorizations", () => {
    const auth = (o: { chainId?: bigint; nonce?: bigint; address?: Uint8Array } = {}): Authorization => {
      const a = { chainId: o.chainId ?? CHAIN_ID, address: o.address ?? DELEGATE, nonce: o.nonce ?? 0n };
      const sig = sign(authoritySigningHash(a), AUTH_KEY);
      return { ...a, yParity: sig.recid, r: sig.r, s: sig.s };
    };
    const setCodeTx = (list: Authorization[], o: Partial<SetCodeTx> = {}): SetCodeTx => ({
      ...tx1559(),
      type: TxType.SetCode,
      authorizationList: list,
      to: TO,
      ...o,
    });
    const pre = {
      [hex(SENDER)]: { balance: "100000000" },
      [hex(AUTHORITY)]: { balance: "0x1", nonce: "0x2" },
      // DELEGATE: SSTORE(0, 0x2a)
      [hex(DELEGATE)]: { code: "0x602a60005500" },
    };

    it("a valid authorization sets the designator and bumps the authority's nonce", () => {
      const { evm, st } = setup(Fork.Prague, pre);
      const r = ok(exec(evm, setCodeTx([auth({ nonce: 2n })])));
      assert.equal(r.status, 1);
      const a = st.account(addressToBigint(AUTHORITY));
      assert.deepEqual([...st.code(a)], [...delegationCode(DELEGATE)]);
      assert.equal(a.nonce, 3n);
      // Intrinsic 21000 + 25000; the authority exists, so 25000 − 12500 goes to the refund counter,
      // capped at gasUsed / 5 = 9200.
      assert.equal(r.gasUsed, 46_000 - 9_200);
    });

    it("chain id 0 is valid on any chain", () => {
      const { evm, st } = setup(Fork.Prague, pre);
      ok(exec(evm, setCodeTx([auth({ chainId: 0n, nonce: 2n })])));
      assert.equal(st.account(addressToBigint(AUTHORITY)).nonce, 3n);
    });

    it("a wrong chain id or a wrong nonce is skipped without failing the tx", () => {
      for (const bad of [auth({ chainId: 2n, nonce: 2n }), auth({ nonce: 1n }), auth({ nonce: 3n })]) {
        const { evm, st } = setup(Fork.Prague, pre);
        const r = ok(exec(evm, setCodeTx([bad])));
        assert.equal(r.status, 1);
        const a = st.account(addressToBigint(AUTHORITY));
        assert.equal(st.code(a).length, 0);
        assert.equal(a.nonce, 2n);
        assert.equal(r.gasUsed, 46_000, "no refund for a skipped tuple");
      }
    });

    it("of two tuples for one authority, the second sees the first's nonce bump", () => {
      const { evm, st } = setup(Fork.Prague, pre);
      const other = hexToBytes("0x0000000000000000000000000000000000000aaa");
      ok(exec(evm, setCodeTx([auth({ nonce: 2n }), auth({ nonce: 3n, address: other })])));
      const a = st.account(addressToBigint(AUTHORITY));
      assert.deepEqual([...st.code(a)], [...delegationCode(other)]);
      assert.equal(a.nonce, 4n);
    });

    it("a call to the authority in the same tx runs the delegate's code in the authority's storage", () => {
      const { evm, st } = setup(Fork.Prague, pre);
      const r = ok(exec(evm, setCodeTx([auth({ nonce: 2n })], { to: AUTHORITY })));
      assert.equal(r.status, 1);
      assert.equal(st.sload(st.account(addressToBigint(AUTHORITY)), 0n), 0x2an);
      assert.equal(st.sload(st.account(addressToBigint(DELEGATE)), 0n), 0n);
    });

    it("delegating to the zero address clears the designator", () => {
      const { evm, st } = setup(Fork.Prague, {
        ...pre,
        [hex(AUTHORITY)]: { nonce: "0x2", balance: "0x1", code: hex(delegationCode(DELEGATE)) },
      });
      ok(exec(evm, setCodeTx([auth({ nonce: 2n, address: new Uint8Array(20) })])));
      const a = st.account(addressToBigint(AUTHORITY));
      assert.equal(st.code(a).length, 0);
      assert.equal(a.nonce, 3n);
    });
  });
});
