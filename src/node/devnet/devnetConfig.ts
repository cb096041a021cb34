/**
 * The configuration of a local OP devnet, written once into its data folder: the L1 genesis (the
 * `--dev` chain's funded accounts and system contracts plus Opal's OptimismPortal and SystemConfig,
 * already initialised), the L2 genesis (the OP Stack predeploys and preinstalls of a real genesis,
 * devGenesis.ts `opDevGenesis`, owned by the owner role; every fork through the chosen one active at
 * genesis), and the `rollup.json` that ties them: both genesis hashes, the batch inbox, the
 * contract addresses and the genesis system config (batcher, scalars, gas limit).
 *
 * Roles use the dev mnemonic's accounts: 0 the contracts' owner and the devnet's user, 1 the
 * batcher, 2 the unsafe-block signer (the sequencer signs gossiped blocks with it). The hashes come from building each
 * genesis in memory exactly as `opal-exec init` will.
 */
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../block/opExtraData.js";
import { Blockchain } from "../../chain/blockchain.js";
import { parseGenesis } from "../../chain/genesis.js";
import { bytesToHex } from "../../primitives/hex.js";
import { ROLLUP_FORKS, type RollupFork } from "../../rollup/config/rollupConfig.js";
import { MemoryKv } from "../../storage/memory.js";
import { type DevAccount, devAccounts, l1DevGenesis, opDevGenesis } from "../exec/devGenesis.js";
import { l1DevnetContractsAlloc } from "./l1Contracts.js";

export const DEVNET_L2_CHAIN_ID = 901n;
export const DEVNET_PORTAL = "0x000000000000000000000000000000000000de90";
export const DEVNET_SYSTEM_CONFIG = "0x0000000000000000000000000000000000005c0f";
export const DEVNET_BATCH_INBOX = "0xff00000000000000000000000000000000000901";
/** OP Mainnet's post-Ecotone fee scalars. */
const BASE_FEE_SCALAR = 1368;
const BLOB_BASE_FEE_SCALAR = 810949;
const L2_GAS_LIMIT = 30_000_000n;
const L1_GAS_LIMIT = 60_000_000n;

/**
 * The OP forks a devnet can run, in order; `--forks=<name>` activates these up to and including it at
 * genesis, `--activate <name>=<s>` a later one that many seconds after genesis. Interop needs the
 * interop options (a dependency set, a supervisor), so it is not offered here.
 */
export const DEVNET_FORKS: readonly RollupFork[] = ROLLUP_FORKS.slice(0, ROLLUP_FORKS.indexOf("karst") + 1);

/** The L2 chain config (geth `config`) key of each OP fork's activation time. */
export const GETH_FORK_TIME_KEYS: Readonly<Record<string, string>> = {
  regolith: "regolithTime",
  canyon: "canyonTime",
  delta: "deltaTime",
  ecotone: "ecotoneTime",
  fjord: "fjordTime",
  granite: "graniteTime",
  holocene: "holoceneTime",
  isthmus: "isthmusTime",
  jovian: "jovianTime",
  karst: "karstTime",
};

/**
 * The L1 forks op-geth and op-reth pin to OP forks (op-reth chainspec: Shanghai = Canyon, Cancun =
 * Ecotone, Prague = Isthmus; superchain chain_metadata.rs "Osaka activates with Karst").
 */
const L1_FORK_OF_OP: readonly (readonly [string, RollupFork])[] = [
  ["shanghaiTime", "canyon"],
  ["cancunTime", "ecotone"],
  ["pragueTime", "isthmus"],
  ["osakaTime", "karst"],
];

export interface DevnetOptions {
  /** Genesis time of both chains (seconds). */
  readonly timestamp: number;
  /** L2 block time, seconds. */
  readonly blockTime: number;
  /** The newest fork active at genesis (all before it too; later ones are not scheduled unless `activate`d). */
  readonly upTo: RollupFork;
  /**
   * Later forks activated this many seconds after genesis (`--activate`). A fork between `upTo` and
   * an activated one that is not itself given activates with the next one given (op-node requires
   * every earlier fork to be scheduled no later).
   */
  readonly activate?: Readonly<Partial<Record<RollupFork, number>>>;
  /** L1 blocks of the sequencing window (small on a devnet so empty-window recovery is quick). */
  readonly seqWindowSize?: number;
}

export interface DevnetRoles {
  readonly owner: DevAccount;
  readonly batcher: DevAccount;
  readonly signer: DevAccount;
}

export interface DevnetConfig {
  readonly l1Genesis: Record<string, unknown>;
  readonly l2Genesis: Record<string, unknown>;
  readonly rollup: Record<string, unknown>;
  readonly roles: DevnetRoles;
  readonly l1GenesisHash: string;
  readonly l2GenesisHash: string;
}

export function devnetRoles(): DevnetRoles {
  const a = devAccounts();
  return { owner: a[0]!, batcher: a[1]!, signer: a[2]! };
}

function genesisHash(g: Record<string, unknown>): string {
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config as never);
  return bytesToHex(chain.headBlockHash);
}

/**
 * Each devnet fork's activation offset in seconds after genesis: 0 through `upTo`, the `activate`
 * offsets after it (filled backwards so an unnamed fork activates with the next named one), null
 * for the rest. Throws a one-line RangeError for a fork that is not later than `upTo`, not a devnet
 * fork, out of order, or not a whole number of seconds ≥ 1.
 */
export function devnetForkOffsets(
  upTo: RollupFork,
  activate: Readonly<Partial<Record<RollupFork, number>>> = {},
): Map<RollupFork, number | null> {
  const top = DEVNET_FORKS.indexOf(upTo);
  if (top < 0) throw new RangeError(`unknown fork ${upTo}; want one of ${DEVNET_FORKS.join(", ")}`);
  for (const [f, s] of Object.entries(activate) as [RollupFork, number][]) {
    const i = DEVNET_FORKS.indexOf(f);
    if (i < 0) throw new RangeError(`--activate ${f}: not a devnet fork (${DEVNET_FORKS.join(", ")})`);
    if (i <= top) throw new RangeError(`--activate ${f}: already active at genesis with --forks ${upTo}`);
    if (!Number.isSafeInteger(s) || s < 1) throw new RangeError(`--activate ${f}: want seconds ≥ 1, got ${s}`);
  }
  const out = new Map<RollupFork, number | null>();
  let next: number | null = null;
  for (let i = DEVNET_FORKS.length - 1; i >= 0; i--) {
    const f = DEVNET_FORKS[i]!;
    if (i <= top) {
      out.set(f, 0);
      continue;
    }
    const given = activate[f];
    if (given !== undefined) {
      if (next !== null && given > next) {
        const later = DEVNET_FORKS.slice(i + 1).find((g) => out.get(g) === next);
        throw new RangeError(`--activate ${f}=${given}: after ${later}=${next}; forks activate in order`);
      }
      next = given;
    }
    out.set(f, next);
  }
  return new Map(DEVNET_FORKS.map((f) => [f, out.get(f) ?? null]));
}

export function devnetConfig(o: DevnetOptions): DevnetConfig {
  const roles = devnetRoles();
  const offsets = devnetForkOffsets(o.upTo, o.activate);
  const active = DEVNET_FORKS.filter((f) => offsets.get(f) === 0);
  /** Absolute activation time of a scheduled fork, null when not scheduled. */
  const at = (f: RollupFork): number | null => {
    const s = offsets.get(f) ?? null;
    return s === null ? null : o.timestamp + s;
  };

  const l1Genesis = l1DevGenesis(L1_GAS_LIMIT);
  l1Genesis.timestamp = `0x${o.timestamp.toString(16)}`;
  Object.assign(
    l1Genesis.alloc as Record<string, unknown>,
    l1DevnetContractsAlloc({
      portal: DEVNET_PORTAL,
      systemConfig: DEVNET_SYSTEM_CONFIG,
      owner: roles.owner.address,
      batcher: roles.batcher.address,
      unsafeBlockSigner: roles.signer.address,
      gasLimit: L2_GAS_LIMIT,
      basefeeScalar: BASE_FEE_SCALAR,
      blobbasefeeScalar: BLOB_BASE_FEE_SCALAR,
      batchInbox: Uint8Array.from(Buffer.from(DEVNET_BATCH_INBOX.slice(2), "hex")),
    }),
  );
  const l1GenesisHash = genesisHash(l1Genesis);

  // The full OP predeploy set, owned by the devnet's owner (ProxyAdmin, fee vault recipient), the
  // ERC721 factory naming this L1. The devnet's L1 has a portal and a system config but no
  // messenger or bridges, so the L2 messenger and bridges have no L1 counterpart (the zero address):
  // deposits arrive through the portal, withdrawals can be initiated on L2 but not proven on L1.
  const l2Genesis = opDevGenesis({
    chainId: DEVNET_L2_CHAIN_ID,
    timestamp: o.timestamp,
    gasLimit: L2_GAS_LIMIT,
    owner: roles.owner.address,
    l1ChainId: BigInt((l1Genesis.config as { chainId: number }).chainId),
  });
  const cfg = l2Genesis.config as Record<string, unknown>;
  // The geth config holds absolute times: 0 for forks at genesis (as op-deployer writes them).
  const gethTime = (f: RollupFork): number | null => (offsets.get(f) === 0 ? 0 : at(f));
  for (const f of DEVNET_FORKS) {
    const t = gethTime(f);
    if (t !== null) cfg[GETH_FORK_TIME_KEYS[f]!] = t;
    else delete cfg[GETH_FORK_TIME_KEYS[f]!];
  }
  for (const [l1, op] of L1_FORK_OF_OP) {
    const t = gethTime(op);
    if (t !== null) cfg[l1] = t;
    else delete cfg[l1];
  }
  l2Genesis.extraData = active.includes("jovian")
    ? bytesToHex(encodeJovianExtraData(250, 6, 0n))
    : active.includes("holocene")
      ? bytesToHex(encodeHoloceneExtraData(250, 6))
      : "0x";
  const l2GenesisHash = genesisHash(l2Genesis);

  const scalar = new Uint8Array(32);
  if (active.includes("ecotone")) {
    scalar[0] = 1;
    new DataView(scalar.buffer).setUint32(24, BLOB_BASE_FEE_SCALAR);
    new DataView(scalar.buffer).setUint32(28, BASE_FEE_SCALAR);
  } else {
    new DataView(scalar.buffer).setUint32(28, 684_000);
  }
  const rollup: Record<string, unknown> = {
    genesis: {
      l1: { hash: l1GenesisHash, number: 0 },
      l2: { hash: l2GenesisHash, number: 0 },
      l2_time: o.timestamp,
      system_config: {
        batcherAddr: bytesToHex(roles.batcher.address),
        overhead: bytesToHex(new Uint8Array(32)),
        scalar: bytesToHex(scalar),
        gasLimit: Number(L2_GAS_LIMIT),
      },
    },
    block_time: o.blockTime,
    max_sequencer_drift: 600,
    seq_window_size: o.seqWindowSize ?? 120,
    channel_timeout: 50,
    l1_chain_id: Number((l1Genesis.config as { chainId: number }).chainId),
    l2_chain_id: Number(DEVNET_L2_CHAIN_ID),
    batch_inbox_address: DEVNET_BATCH_INBOX,
    deposit_contract_address: DEVNET_PORTAL,
    l1_system_config_address: DEVNET_SYSTEM_CONFIG,
    chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
  };
  for (const f of DEVNET_FORKS) {
    const t = gethTime(f);
    if (t !== null) rollup[`${f}_time`] = t;
  }
  return { l1Genesis, l2Genesis, rollup, roles, l1GenesisHash, l2GenesisHash };
}
