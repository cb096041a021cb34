/**
 * The clients a dapp would make against one dev chain: a viem public client and a viem wallet
 * client with a local (private key) account, an ethers `JsonRpcProvider` and an ethers `Wallet`.
 * Polling is fast (25–50 ms: the dev chain seals on arrival, it has no block time to wait for) and
 * nothing retries or caches, so a wrong answer surfaces as the error the library throws.
 */
import { Contract, type ContractRunner, type InterfaceAbi, JsonRpcProvider, Network, Wallet } from "ethers";
import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hash,
  type Hex,
  http,
  type PrivateKeyAccount,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ACCOUNT, type EcoChain } from "./chains.js";

export interface Ctx {
  readonly chain: EcoChain;
  readonly pc: PublicClient<Transport, Chain>;
  /** viem wallet client of `ACCOUNT.viemLocal`. */
  readonly wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  readonly provider: JsonRpcProvider;
  /** ethers `Wallet` of `ACCOUNT.ethersWallet`. */
  readonly signer: Wallet;
  close(): Promise<void>;
}

/** viem's HTTP transport to the chain: no retries, so the first error is the one reported. */
export function httpTransport(chain: EcoChain) {
  return http(chain.url, { retryCount: 0, timeout: 10_000 });
}

/** An ethers provider on the chain's HTTP endpoint: a static network, no batching, no cache, 25 ms polling. */
export function ethersProvider(chain: EcoChain): JsonRpcProvider {
  const network = Network.from(chain.chainId);
  return new JsonRpcProvider(chain.url, network, {
    staticNetwork: network,
    pollingInterval: 25,
    cacheTimeout: -1,
    batchMaxCount: 1,
  });
}

export function openCtx(chain: EcoChain): Ctx {
  const transport = httpTransport(chain);
  const pc = createPublicClient({ chain: chain.viemChain, transport, pollingInterval: 50, cacheTime: 0 });
  const wallet = createWalletClient({
    account: privateKeyToAccount(ACCOUNT.viemLocal.privateKey),
    chain: chain.viemChain,
    transport,
    pollingInterval: 50,
    cacheTime: 0,
  });
  const provider = ethersProvider(chain);
  const signer = new Wallet(ACCOUNT.ethersWallet.privateKey, provider);
  return {
    chain,
    pc,
    wallet,
    provider,
    signer,
    async close() {
      provider.destroy();
    },
  };
}

/** viem: the receipt of `hash`, polled every 25 ms for up to 10 s. */
export function receiptOf(ctx: Ctx, hash: Hash): Promise<TransactionReceipt> {
  return ctx.pc.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 10_000 });
}

/** Deploys `bytecode` (with its constructor `args`) from the viem local account; returns the address. */
export async function deployWithViem(
  ctx: Ctx,
  abi: Abi,
  bytecode: Hex,
  args: readonly unknown[] = [],
): Promise<{ address: Address; receipt: TransactionReceipt }> {
  const hash = await ctx.wallet.deployContract({ abi, bytecode, args });
  const receipt = await receiptOf(ctx, hash);
  if (receipt.status !== "success" || !receipt.contractAddress) {
    throw new Error(`deployment ${hash} failed: status ${receipt.status}, address ${receipt.contractAddress}`);
  }
  return { address: getAddress(receipt.contractAddress), receipt };
}

/** An ethers `Contract` at `address` from a viem ABI (ethers reads the same JSON fragments). */
export function ethersContract(address: string, abi: Abi, runner: ContractRunner): Contract {
  return new Contract(address, abi as unknown as InterfaceAbi, runner);
}

/** `fn()` as a promise of the value it throws (null when it resolves), so the test can inspect the error. */
export async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return null;
}

/** The message of any thrown value, for assertion messages. */
export function describeError(e: unknown): string {
  if (e === null) return "no error";
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}
