/**
 * Per-fork gas costs and behaviour switches, resolved once per block into a frozen object
 * (code-models §10.7). Opcode functions read fields of this object; none asks for a fork itself.
 * Sources: execution-specs `vm/gas.py` of each fork, EIP-150/160/1884/2200/2929/3529/3860/7702.
 */
import { Fork, type ForkRules } from "../spec/forks.js";

export enum SstoreRule {
  /** Frontier–Byzantium and Petersburg: 20000 set, 5000 reset, 15000 refund on clear. */
  Frontier,
  /** Constantinople only: EIP-1283 net metering. */
  Eip1283,
  /** Istanbul: EIP-2200 (net metering with the 2300 sentry). */
  Eip2200,
  /** Berlin and later: EIP-2200 with EIP-2929 cold/warm costs (and EIP-3529 refunds from London). */
  Eip2929,
}

export interface GasSchedule {
  readonly fork: Fork;
  /** EIP-150 63/64 rule for call and create gas. */
  readonly eip150: boolean;
  /** EIP-161: empty accounts are not created by calls and are removed when touched. */
  readonly eip158: boolean;
  /** EIP-2929 access lists (cold/warm costs). */
  readonly berlin: boolean;
  readonly sstoreRule: SstoreRule;
  /** Pre-Berlin flat costs. */
  readonly sload: number;
  readonly balance: number;
  readonly extcodeSize: number;
  readonly extcodeCopy: number;
  readonly extcodeHash: number;
  readonly callBase: number;
  readonly selfdestruct: number;
  readonly expByte: number;
  readonly sstoreSet: number;
  readonly sstoreReset: number;
  readonly sstoreClearRefund: number;
  readonly selfdestructRefund: number;
  readonly warmRead: number;
  readonly coldSload: number;
  readonly coldAccount: number;
  /** Max refund is gasUsed / refundQuotient (2, London 5). */
  readonly refundQuotient: number;
  /** EIP-170 (SpuriousDragon); Infinity before. */
  readonly maxCodeSize: number;
  /** EIP-3860 (Shanghai); Infinity before. */
  readonly maxInitcodeSize: number;
  /** Initcode word cost of CREATE/CREATE2 (EIP-3860). */
  readonly initcodeWordGas: number;
  /** EIP-3541: reject new code starting with 0xEF. */
  readonly rejectEf: boolean;
  /** Homestead: out-of-gas during code deposit fails the create (Frontier keeps empty code). */
  readonly codeDepositFails: boolean;
  /** EIP-6780: SELFDESTRUCT deletes only accounts created in the same tx. */
  readonly eip6780: boolean;
  /** EIP-7702 delegations. */
  readonly eip7702: boolean;
  /** EIP-3651: the coinbase starts warm. */
  readonly warmCoinbase: boolean;
}

const cache = new Map<Fork, GasSchedule>();

export function gasSchedule(rules: ForkRules): GasSchedule {
  const f = rules.fork;
  let s = cache.get(f);
  if (s === undefined) {
    s = buildSchedule(f);
    cache.set(f, s);
  }
  return s;
}

function buildSchedule(f: Fork): GasSchedule {
  const tw = f >= Fork.TangerineWhistle;
  const istanbul = f >= Fork.Istanbul;
  const berlin = f >= Fork.Berlin;
  const london = f >= Fork.London;
  let sstoreRule = SstoreRule.Frontier;
  if (berlin) sstoreRule = SstoreRule.Eip2929;
  else if (istanbul) sstoreRule = SstoreRule.Eip2200;
  else if (f === Fork.Constantinople) sstoreRule = SstoreRule.Eip1283;
  return Object.freeze({
    fork: f,
    eip150: tw,
    eip158: f >= Fork.SpuriousDragon,
    berlin,
    sstoreRule,
    sload: istanbul ? 800 : tw ? 200 : 50,
    balance: istanbul ? 700 : tw ? 400 : 20,
    extcodeSize: tw ? 700 : 20,
    extcodeCopy: tw ? 700 : 20,
    extcodeHash: istanbul ? 700 : 400,
    callBase: tw ? 700 : 40,
    selfdestruct: tw ? 5000 : 0,
    expByte: f >= Fork.SpuriousDragon ? 50 : 10,
    sstoreSet: 20000,
    sstoreReset: berlin ? 5000 - 2100 : 5000,
    sstoreClearRefund: london ? 4800 : 15000,
    selfdestructRefund: london ? 0 : 24000,
    warmRead: 100,
    coldSload: 2100,
    coldAccount: 2600,
    refundQuotient: london ? 5 : 2,
    maxCodeSize: f >= Fork.SpuriousDragon ? 24576 : Number.POSITIVE_INFINITY,
    maxInitcodeSize: f >= Fork.Shanghai ? 49152 : Number.POSITIVE_INFINITY,
    initcodeWordGas: f >= Fork.Shanghai ? 2 : 0,
    rejectEf: london,
    codeDepositFails: f >= Fork.Homestead,
    eip6780: f >= Fork.Cancun,
    eip7702: f >= Fork.Prague,
    warmCoinbase: f >= Fork.Shanghai,
  });
}
