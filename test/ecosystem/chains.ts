/**
 * The two dev chains the ecosystem tests drive, each one in-process `ExecNode` with its HTTP and
 * WebSocket servers on free loopback ports, as test/integration/node/exec/ starts them:
 * - the plain L1 dev chain: `opal-exec --dev` on an empty datadir (chain 1337, Osaka);
 * - the OP dev chain: `opDevGenesis` written to a file, `opal-exec init` on it, then `--dev` on
 *   that datadir (chain 901, Isthmus; every sealed block opens with the L1-attributes deposit).
 * `--dev.period 0` (the default) seals a block as soon as a tx arrives, so a receipt is a round
 * trip away. The libraries' HTTP traffic goes through an `RpcRecorder`.
 */
import { strict as assert } from "node:assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Chain, defineChain, type Hex } from "viem";
import { chainConfig } from "viem/op-stack";
import { main } from "../../src/cli/opalExec.js";
import { devAccounts, opDevGenesis } from "../../src/node/exec/devGenesis.js";
import { ExecNode } from "../../src/node/exec/execNode.js";
import { bytesToHex } from "../../src/primitives/hex.js";
import { configOf, tempDir } from "../utils/node.js";
import { RpcRecorder } from "./rpcRecorder.js";

export type ChainKind = "l1" | "op";

export const OP_CHAIN_ID = 901;

/** The chain id each dev chain must answer (and block.chainid be): geth --dev's 1337, and the OP genesis's. */
export const EXPECTED_CHAIN_ID: Readonly<Record<ChainKind, number>> = { l1: 1337, op: OP_CHAIN_ID };

export interface DevKey {
  readonly address: Hex;
  readonly privateKey: Hex;
}

/** The funded dev accounts (anvil's mnemonic), which `--dev` also holds for eth_sendTransaction and signing. */
export const DEV_KEYS: readonly DevKey[] = devAccounts().map((a) => ({
  address: bytesToHex(a.address) as Hex,
  privateKey: bytesToHex(a.privateKey) as Hex,
}));

/**
 * Which dev account each kind of test sends from, so that no two of them share a nonce sequence
 * and a library's local nonce bookkeeping never races the node's.
 */
export const ACCOUNT = {
  /** viem with a local (private key) account: contracts, gas, logs, subscriptions. */
  viemLocal: DEV_KEYS[0]!,
  /** ethers `Wallet` (local key): the same. */
  ethersWallet: DEV_KEYS[1]!,
  /** viem wallet client with a json-rpc account: the node signs. */
  viemJsonRpc: DEV_KEYS[2]!,
  /** ethers `JsonRpcSigner`: the node signs. */
  ethersJsonRpc: DEV_KEYS[3]!,
  /** viem OP Stack actions (L1 fee, withdrawals). */
  viemOp: DEV_KEYS[4]!,
  /** ethers against the OP predeploys. */
  ethersOp: DEV_KEYS[5]!,
  /** viem local account sending every tx type by eth_sendRawTransaction. */
  viemTypes: DEV_KEYS[6]!,
  /** The EOA that delegates to a contract with an EIP-7702 authorization (sends nothing itself). */
  authority: DEV_KEYS[7]!,
  /** The recipient of transfers (never sends). */
  recipient: DEV_KEYS[9]!,
} as const;

export interface EcoChain {
  readonly kind: ChainKind;
  readonly chainId: number;
  readonly node: ExecNode;
  /** The JSON-RPC HTTP endpoint the libraries use (the recording proxy in front of the node). */
  readonly url: string;
  /** The node's WebSocket endpoint. */
  readonly wsUrl: string;
  readonly recorder: RpcRecorder;
  /** viem's chain: plain for L1, with the OP Stack formatters and predeploy addresses for OP. */
  readonly viemChain: Chain;
  stop(): Promise<void>;
}

/**
 * viem's definition of a dev chain; the OP chain has the OP Stack chain config (formatters,
 * serializers, predeploy addresses).
 */
export function viemChainOf(kind: ChainKind, url: string): Chain {
  const base = {
    id: EXPECTED_CHAIN_ID[kind],
    name: kind === "op" ? "opal OP dev" : "opal L1 dev",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  };
  return kind === "op" ? defineChain({ ...chainConfig, ...base }) : defineChain(base);
}

const QUIET = { out: () => undefined, err: () => undefined };

/** Starts a dev chain of `kind` on a fresh datadir. */
export async function startChain(kind: ChainKind): Promise<EcoChain> {
  const dir = tempDir(`eco-${kind}`);
  let node: ExecNode | null = null;
  try {
    if (kind === "op") {
      const file = join(dir.path, "genesis.json");
      writeFileSync(file, JSON.stringify(opDevGenesis({ chainId: BigInt(OP_CHAIN_ID) })));
      assert.equal(await main(["init", file, "--datadir", dir.path, "--verbosity", "0"], {}, QUIET), 0);
    }
    // Every listener on a free port (TEST_FLAGS: HTTP, WS, auth RPC; here the dev beacon API, should
    // it be on), so that suites running side by side do not collide.
    const argv = [
      ...["--dev", "--datadir", dir.path, "--http", "--ws", "--ws.addr", "127.0.0.1"],
      ...["--dev.beacon.port", "0", "--workers.evmcall", "1"],
    ];
    const started = await ExecNode.start(configOf(argv), { print: () => undefined });
    node = started;
    const http = started.endpoints.http!;
    const ws = started.endpoints.ws!;
    const recorder = await RpcRecorder.start(`http://${http.address}:${http.port}/`);
    const chainId = Number(started.chain.config.chainId);
    assert.equal(chainId, EXPECTED_CHAIN_ID[kind]);
    const viemChain = viemChainOf(kind, recorder.url);
    return {
      kind,
      chainId,
      node: started,
      url: recorder.url,
      wsUrl: `ws://${ws.address}:${ws.port}/`,
      recorder,
      viemChain,
      async stop() {
        await recorder.close();
        await started.stop();
        dir.remove();
      },
    };
  } catch (e) {
    await node?.stop();
    dir.remove();
    throw e;
  }
}
