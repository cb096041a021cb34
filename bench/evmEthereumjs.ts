/**
 * The ethereumjs baseline of the `evm` bench: @ethereumjs/vm 10.1.3 runs a workload's blocks on its
 * genesis, and only the `runBlock` calls are timed.
 *
 * What is inside the timer: for every block, `runBlock` with `generate: true` — the EIP-4788 system
 * call, every tx really executed (sender recovery, nonce and balance checks, EVM, refunds, coinbase
 * fee), receipts and their trie, the tx trie, and the post-state root (`stateManager.getStateRoot()`
 * flushes the caches into the trie and hashes it). Outside: building the Common, the VM and the
 * genesis state, and decoding the raw txs into tx objects (which does not recover senders: ethereumjs
 * recovers lazily in `getSenderAddress()`, so recovery stays inside the timer, as in Opal's runner).
 *
 * What is skipped: header validation against a parent (there is no blockchain, and the workload
 * header carries no parent hash), and the block's own data checks (tx trie, uncle hash against header
 * fields the workload does not carry). `generate: true` computes gasUsed / roots instead of comparing
 * them with header fields, and this file compares them with `expect` itself.
 *
 * The state manager gets `Caches` (account, storage, code), as the ethereumjs client runs it; without
 * them every read walks the in-memory trie (`cachesOff`): erc20-transfers measured 3.5 Mgas/s
 * instead of 9.0 that way, storage-writes the same within noise (2-core VM, 2026-11-22).
 */
import { Block, createBlockHeader } from "@ethereumjs/block";
import { type Common, createCustomCommon, Mainnet } from "@ethereumjs/common";
import { Caches, MerkleStateManager } from "@ethereumjs/statemanager";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import { createVM, runBlock, type VM } from "@ethereumjs/vm";
import { equalBytes } from "../src/primitives/bytes.js";
import { bytesToHex } from "../src/primitives/hex.js";
import type { Workload, WorkloadBlock } from "./workload.js";

export interface EvmRunResult {
  /** Summed over the workload's blocks. */
  gasUsed: number;
  /** State root after the last block. */
  stateRoot: Uint8Array;
  /** Wall time of the block executions only (not genesis setup or tx decoding). */
  ms: number;
}

export interface EthereumjsOptions {
  /** Run the state manager without its account/storage/code caches (default false). */
  cachesOff?: boolean;
  /** Compare with `w.expect` and throw on a difference (default true; off for warm-up slices). */
  check?: boolean;
}

/**
 * Runs all blocks of `w` on a fresh ethereumjs VM and checks the result against `w.expect`.
 * Throws if gasUsed, the state root, the receipts root (of a one-block workload) or the count of
 * failed txs differ, so a wrong baseline never prints a figure.
 */
export async function runEthereumjs(w: Workload, opts: EthereumjsOptions = {}): Promise<EvmRunResult> {
  const common = createCustomCommon({ chainId: Number(w.chainId), name: w.name }, Mainnet, { hardfork: w.hardfork });
  const vm = await genesisVm(w, common, opts.cachesOff !== true);
  const blocks = w.blocks.map((b) => toBlock(b, common));

  let gasUsed = 0n;
  let failed = 0;
  let stateRoot: Uint8Array = new Uint8Array(0);
  let receiptsRoot: Uint8Array = new Uint8Array(0);
  const t0 = performance.now();
  for (const block of blocks) {
    const r = await runBlock(vm, {
      block,
      generate: true,
      skipBlockValidation: true,
      skipHeaderValidation: true,
      skipHardForkValidation: true,
    });
    gasUsed += r.gasUsed;
    stateRoot = r.stateRoot;
    receiptsRoot = r.receiptsRoot;
    for (const x of r.results) if (x.execResult.exceptionError !== undefined) failed++;
  }
  const ms = performance.now() - t0;

  const got = Number(gasUsed);
  if (opts.check === false) return { gasUsed: got, stateRoot, ms };
  if (got !== w.expect.gasUsed) throw new Error(`ethereumjs ${w.name}: gasUsed ${got}, want ${w.expect.gasUsed}`);
  if (!equalBytes(stateRoot, w.expect.stateRoot)) {
    throw new Error(`ethereumjs ${w.name}: stateRoot ${bytesToHex(stateRoot)}, want ${bytesToHex(w.expect.stateRoot)}`);
  }
  // expect.receiptsRoot is the last block's; with one block that is the whole workload.
  if (!equalBytes(receiptsRoot, w.expect.receiptsRoot)) {
    throw new Error(
      `ethereumjs ${w.name}: receiptsRoot ${bytesToHex(receiptsRoot)}, want ${bytesToHex(w.expect.receiptsRoot)}`,
    );
  }
  if (failed !== w.expect.failedTxs)
    throw new Error(`ethereumjs ${w.name}: ${failed} failed txs, want ${w.expect.failedTxs}`);
  return { gasUsed: got, stateRoot, ms };
}

async function genesisVm(w: Workload, common: Common, caches: boolean): Promise<VM> {
  const stateManager = new MerkleStateManager(caches ? { common, caches: new Caches() } : { common });
  for (const a of w.genesis.alloc.values()) {
    const address = new Address(a.address);
    await stateManager.putAccount(address, new Account(BigInt(a.nonce), a.balance));
    if (a.code.length > 0) await stateManager.putCode(address, a.code);
    for (const [slot, value] of a.storage) {
      await stateManager.putStorage(address, setLengthLeft(bigIntToBytes(slot), 32), bigIntToBytes(value));
    }
  }
  // Writes the caches into the trie, so the timed part starts from a committed genesis.
  await stateManager.getStateRoot();
  return createVM({ common, stateManager });
}

function toBlock(b: WorkloadBlock, common: Common): Block {
  const h = b.header;
  const header = createBlockHeader(
    {
      number: BigInt(h.number),
      timestamp: BigInt(h.timestamp),
      gasLimit: h.gasLimit,
      coinbase: h.coinbase,
      difficulty: 0n,
      mixHash: h.prevRandao,
      ...(h.baseFeePerGas === undefined ? {} : { baseFeePerGas: h.baseFeePerGas }),
      ...(h.parentBeaconBlockRoot === undefined ? {} : { parentBeaconBlockRoot: h.parentBeaconBlockRoot }),
      ...(h.excessBlobGas === undefined ? {} : { excessBlobGas: h.excessBlobGas }),
      ...(h.blobGasUsed === undefined ? {} : { blobGasUsed: h.blobGasUsed }),
    },
    { common },
  );
  const txs: TypedTransaction[] = b.transactions.map((raw) => createTxFromRLP(raw, { common }));
  const withdrawals = common.isActivatedEIP(4895) ? [] : undefined;
  return new Block(header, txs, [], withdrawals, { common });
}
