/**
 * Fork identifiers. L1 forks are totally ordered, so rules compare with `>=`; the OP forks layer on
 * top (an OP block is executed under an L1 fork plus an OP fork). Callers resolve a `ForkRules`
 * once per block (code-models §10.7) and never ask "is EIP-x active?" per step.
 */
export enum Fork {
  Frontier = 0,
  Homestead = 1,
  /** EIP-150 */
  TangerineWhistle = 2,
  /** EIP-155/158 */
  SpuriousDragon = 3,
  Byzantium = 4,
  Constantinople = 5,
  Petersburg = 6,
  Istanbul = 7,
  MuirGlacier = 8,
  Berlin = 9,
  London = 10,
  ArrowGlacier = 11,
  GrayGlacier = 12,
  /** The Merge */
  Paris = 13,
  Shanghai = 14,
  Cancun = 15,
  Prague = 16,
  Osaka = 17,
}

/** OP Stack network upgrades, in activation order (specs/protocol/superchain-upgrades.md). */
export enum OpFork {
  Bedrock = 0,
  Regolith = 1,
  Canyon = 2,
  Delta = 3,
  Ecotone = 4,
  Fjord = 5,
  Granite = 6,
  Holocene = 7,
  Isthmus = 8,
  Jovian = 9,
  /** Upgrade 19: Osaka's execution rules on L2 (without its blob and block-size rules) and the NUT-bundle upgrade. */
  Karst = 10,
  /** Experimental (upstream's Lagoon, formerly "interop"); scheduled only behind the interop options. */
  Interop = 11,
}

/** The rules a block runs under: an L1 fork, and an OP fork on OP chains (null on plain L1 chains). */
export interface ForkRules {
  readonly fork: Fork;
  readonly op: OpFork | null;
}

export function l1Rules(fork: Fork): ForkRules {
  return Object.freeze({ fork, op: null });
}

/**
 * The L1 fork each OP fork executes under (op-geth chain config; op-revm `OpSpecId::into_eth_spec`):
 * Bedrock is post-merge London, Canyon adds Shanghai, Ecotone Cancun, Isthmus Prague, Karst Osaka.
 */
export function opL1Fork(op: OpFork): Fork {
  return op >= OpFork.Karst
    ? Fork.Osaka
    : op >= OpFork.Isthmus
      ? Fork.Prague
      : op >= OpFork.Ecotone
        ? Fork.Cancun
        : op >= OpFork.Canyon
          ? Fork.Shanghai
          : Fork.Paris;
}

export function opRules(op: OpFork): ForkRules {
  return Object.freeze({ fork: opL1Fork(op), op });
}

/**
 * Fork names as the ethereum/tests and EEST fixtures spell them. Transition names
 * (e.g. "ShanghaiToCancunAtTime15k") are not forks and are absent on purpose.
 */
const FIXTURE_NAMES: Record<string, Fork> = {
  Frontier: Fork.Frontier,
  Homestead: Fork.Homestead,
  EIP150: Fork.TangerineWhistle,
  TangerineWhistle: Fork.TangerineWhistle,
  EIP158: Fork.SpuriousDragon,
  SpuriousDragon: Fork.SpuriousDragon,
  Byzantium: Fork.Byzantium,
  Constantinople: Fork.Constantinople,
  ConstantinopleFix: Fork.Petersburg,
  Petersburg: Fork.Petersburg,
  Istanbul: Fork.Istanbul,
  MuirGlacier: Fork.MuirGlacier,
  Berlin: Fork.Berlin,
  London: Fork.London,
  ArrowGlacier: Fork.ArrowGlacier,
  GrayGlacier: Fork.GrayGlacier,
  Merge: Fork.Paris,
  Paris: Fork.Paris,
  Shanghai: Fork.Shanghai,
  Cancun: Fork.Cancun,
  Prague: Fork.Prague,
  Osaka: Fork.Osaka,
};

/** Fork of a fixture name, or undefined for names that are not a single fork. */
export function forkFromFixtureName(name: string): Fork | undefined {
  return FIXTURE_NAMES[name];
}
