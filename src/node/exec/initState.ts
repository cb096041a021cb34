/**
 * `opal-exec init-state`: a state dump in reth's JSONL format (reth crates/storage/db-common/src/
 * init.rs `init_from_state_dump`: a first line `{"root":"0x…"}`, then one `GenesisAccountWithAddress`
 * per line: `address`, `balance`, optional `nonce`, `code`, `storage` {slot: value}) imported as the
 * state at a given header, which becomes the chain's base: head, safe, finalized and state block, so
 * later blocks (imported or synced) build on it (op-reth `init-state --without-ovm` for OP
 * Mainnet's Bedrock block). Streaming: one line at a time, flat rows written in bounded batches,
 * then the tries built in batches (trie/freshStateRoot.ts). The computed root must equal the
 * header's; otherwise every state row written is removed and no head is recorded.
 */
import { createInterface, type Interface } from "node:readline";
import { decodeHeader, type Header, headerHash } from "../../block/header.js";
import { ChainStore, META_CONFIG, META_HEAD } from "../../chain/chainStore.js";
import { keccak256 } from "../../crypto/keccak.js";
import { EMPTY_BYTES, equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { bigintToBytes32 } from "../../primitives/u256.js";
import { parseChainConfig } from "../../spec/chainConfig.js";
import { type KvStore, WriteBatch } from "../../storage/kv.js";
import type { TableName } from "../../storage/tables.js";
import { encodeAccount } from "../../trie/account.js";
import { buildFreshStateRoot } from "../../trie/freshStateRoot.js";
import type { Logger } from "../../util/log.js";
import { openByteStream } from "./blockFile.js";

export class InitStateError extends Error {
  override readonly name = "InitStateError";
}

/**
 * Ops per flat-state batch: 20,000 rows (a few MB) bound the memory of the write side; larger
 * batches gained under 5% on the 1M-account dump.
 */
export const INIT_STATE_BATCH_OPS = 20_000;
/** Progress line period (as geth's and reth's long commands: every 8 s). */
const REPORT_MS = 8_000;

/** The state tables init-state writes; all empty before, all emptied again when it fails. */
const STATE_TABLES: readonly TableName[] = ["hashedAccounts", "hashedStorage", "code", "accountTrie", "storageTrie"];

// ---- the header -------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function jsonField(o: Json, name: string, required: boolean): unknown {
  const v = o[name];
  if ((v === undefined || v === null) && required) throw new InitStateError(`header JSON: missing ${name}`);
  return v === null ? undefined : v;
}

function jsonBytes(o: Json, name: string, size: number | null, required = true): Uint8Array | null {
  const v = jsonField(o, name, required);
  if (v === undefined) return null;
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v))
    throw new InitStateError(`header JSON: ${name}: want 0x-prefixed hex bytes`);
  const b = hexToBytes(v);
  if (size !== null && b.length !== size) throw new InitStateError(`header JSON: ${name}: want ${size} bytes`);
  return b;
}

function jsonQty(o: Json, name: string, required = true): bigint | null {
  const v = jsonField(o, name, required);
  if (v === undefined) return null;
  return quantity(v, `header JSON: ${name}`);
}

function quantity(v: unknown, what: string): bigint {
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) return BigInt(v);
  throw new InitStateError(`${what}: want a non-negative number, 0x quantity or decimal string`);
}

function safeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new InitStateError(`${what}: out of range`);
  return Number(v);
}

/** A header from JSON in eth_getBlockByNumber's shape (or a JSON-RPC reply holding one). */
export function headerFromJson(json: unknown): { header: Header; hash: Uint8Array | null } {
  if (typeof json !== "object" || json === null) throw new InitStateError("header JSON: not an object");
  let o = json as Json;
  if (typeof o.result === "object" && o.result !== null) o = o.result as Json;
  const n = (name: string): number => safeNumber(jsonQty(o, name)!, `header JSON: ${name}`);
  const opt = (name: string): number | null => {
    const v = jsonQty(o, name, false);
    return v === null ? null : safeNumber(v, `header JSON: ${name}`);
  };
  const header: Header = {
    parentHash: jsonBytes(o, "parentHash", 32)!,
    ommersHash: jsonBytes(o, "sha3Uncles", 32)!,
    coinbase: jsonBytes(o, "miner", 20)!,
    stateRoot: jsonBytes(o, "stateRoot", 32)!,
    transactionsRoot: jsonBytes(o, "transactionsRoot", 32)!,
    receiptsRoot: jsonBytes(o, "receiptsRoot", 32)!,
    logsBloom: jsonBytes(o, "logsBloom", 256)!,
    difficulty: jsonQty(o, "difficulty")!,
    number: n("number"),
    gasLimit: jsonQty(o, "gasLimit")!,
    gasUsed: n("gasUsed"),
    timestamp: n("timestamp"),
    extraData: jsonBytes(o, "extraData", null)!,
    mixHash: jsonBytes(o, "mixHash", 32)!,
    nonce: jsonBytes(o, "nonce", 8)!,
    baseFeePerGas: jsonQty(o, "baseFeePerGas", false),
    withdrawalsRoot: jsonBytes(o, "withdrawalsRoot", 32, false),
    blobGasUsed: opt("blobGasUsed"),
    excessBlobGas: opt("excessBlobGas"),
    parentBeaconBlockRoot: jsonBytes(o, "parentBeaconBlockRoot", 32, false),
    requestsHash: jsonBytes(o, "requestsHash", 32, false),
  };
  return { header, hash: jsonBytes(o, "hash", 32, false) };
}

/**
 * The `--header` argument's content: the header's RLP as a binary file (reth's `--header`), the
 * same as 0x hex text, or JSON (eth_getBlockByNumber's shape). A hash in the JSON must match.
 */
export function parseHeaderInput(content: Uint8Array): { header: Header; hash: Uint8Array } {
  const text = Buffer.from(content.subarray(0, Math.min(content.length, 1 << 20)))
    .toString("utf8")
    .trim();
  let header: Header;
  let given: Uint8Array | null = null;
  try {
    if (text.startsWith("{")) {
      ({ header, hash: given } = headerFromJson(JSON.parse(Buffer.from(content).toString("utf8"))));
    } else if (/^(0x)?([0-9a-fA-F]{2})+$/.test(text)) {
      header = decodeHeader(hexToBytes(text));
    } else {
      header = decodeHeader(content);
    }
  } catch (e) {
    if (e instanceof InitStateError) throw e;
    throw new InitStateError(`not a header (RLP, hex RLP or JSON): ${(e as Error).message}`);
  }
  const hash = headerHash(header);
  if (given !== null && !equalBytes(given, hash))
    throw new InitStateError(`header JSON: hash ${bytesToHex(given)} is not the header's hash ${bytesToHex(hash)}`);
  return { header, hash };
}

// ---- the dump ---------------------------------------------------------------------------------

/** One dump line, decoded: hashed address, account RLP (empty storage root), code, storage rows. */
export interface DumpAccount {
  readonly hashedAddress: Uint8Array;
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly code: Uint8Array;
  /** keccak(slot) → minimal big-endian value (zero values dropped). */
  readonly storage: [Uint8Array, Uint8Array][];
}

const HEX_WORD = /^0x[0-9a-fA-F]{1,64}$/;

function word32(s: unknown, what: string): Uint8Array {
  if (typeof s !== "string" || !HEX_WORD.test(s)) throw new InitStateError(`${what}: want 0x hex of at most 32 bytes`);
  const hex = s.slice(2).padStart(64, "0");
  return hexToBytes(hex);
}

/**
 * Decodes one account line of the dump. `address` is reth's (required there); a line without it
 * may give geth dump's `key`, the hashed address, since the tables are keyed by hash.
 */
export function parseDumpAccount(json: unknown): DumpAccount {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new InitStateError("not a JSON object");
  const o = json as Json;
  let hashedAddress: Uint8Array;
  if (typeof o.address === "string") {
    if (!/^0x[0-9a-fA-F]{40}$/.test(o.address)) throw new InitStateError("address: want 0x and 20 bytes of hex");
    hashedAddress = keccak256(hexToBytes(o.address));
  } else if (typeof o.key === "string" && /^0x[0-9a-fA-F]{64}$/.test(o.key)) {
    hashedAddress = hexToBytes(o.key);
  } else {
    throw new InitStateError("missing address");
  }
  if (o.balance === undefined) throw new InitStateError("missing balance");
  const balance = quantity(o.balance, "balance");
  if (balance >= 1n << 256n) throw new InitStateError("balance: over 256 bits");
  const nonce = o.nonce === undefined || o.nonce === null ? 0n : quantity(o.nonce, "nonce");
  if (nonce >= 1n << 64n) throw new InitStateError("nonce: over 64 bits");
  let code: Uint8Array = EMPTY_BYTES;
  if (o.code !== undefined && o.code !== null) {
    if (typeof o.code !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(o.code))
      throw new InitStateError("code: want 0x-prefixed hex bytes");
    code = hexToBytes(o.code);
  }
  const storage: [Uint8Array, Uint8Array][] = [];
  if (o.storage !== undefined && o.storage !== null) {
    if (typeof o.storage !== "object" || Array.isArray(o.storage)) throw new InitStateError("storage: want an object");
    for (const [k, v] of Object.entries(o.storage as Json)) {
      const slot = word32(k, `storage key ${k}`);
      const value = word32(v, `storage[${k}]`);
      let z = 0;
      while (z < 32 && value[z] === 0) z++;
      if (z === 32) continue;
      storage.push([keccak256(slot), value.subarray(z)]);
    }
  }
  return { hashedAddress, nonce, balance, code, storage };
}

// ---- the writers --------------------------------------------------------------------------------

/**
 * Writes accounts' flat state rows (the account, its code, its storage slots) in batches of at most
 * `batchOps` ops, so memory stays flat however many accounts come. The tries are built afterwards
 * from these rows (trie/freshStateRoot.ts). Also the scale bench's writer of synthetic states.
 */
export class StateRowWriter {
  accounts = 0;
  slots = 0;
  /** Whether any batch reached the store (a failed import must then wipe the state tables). */
  wrote = false;
  private batch = new WriteBatch();

  constructor(
    private readonly kv: KvStore,
    private readonly batchOps: number = INIT_STATE_BATCH_OPS,
    /** Called after each batch written. */
    private readonly onFlush: (() => void) | null = null,
  ) {}

  add(acc: DumpAccount): void {
    const codeHash = keccak256(acc.code);
    if (acc.code.length > 0) this.batch.put("code", codeHash, acc.code);
    this.addSlots(acc.hashedAddress, acc.storage);
    this.batch.put("hashedAccounts", acc.hashedAddress, encodeAccount(acc.nonce, acc.balance, undefined, codeHash));
    this.accounts++;
    if (this.batch.size >= this.batchOps) this.flush();
  }

  /** More storage slots (keccak(slot) → minimal value) of the account at `hashedAddress`. */
  addSlots(hashedAddress: Uint8Array, slots: readonly (readonly [Uint8Array, Uint8Array])[]): void {
    for (const [slotHash, value] of slots) {
      const key = new Uint8Array(64);
      key.set(hashedAddress, 0);
      key.set(slotHash, 32);
      this.batch.put("hashedStorage", key, value);
      this.slots++;
      if (this.batch.size >= this.batchOps) this.flush();
    }
  }

  /** Writes what is left. */
  finish(): void {
    if (this.batch.size > 0) this.flush();
  }

  private flush(): void {
    this.kv.write(this.batch);
    this.wrote = true;
    this.batch = new WriteBatch();
    this.onFlush?.();
  }
}

/**
 * Records `header` (its state already in the store) as the chain's base block: stored with an empty
 * body (its transactions are not part of a state) and no receipts, canonical, every head pointing
 * at it, and the chain config stored as `init` stores it. The write is synced.
 */
export function recordBaseBlock(kv: KvStore, header: Header, configJson: unknown): Uint8Array {
  const hash = headerHash(header);
  const b = new WriteBatch();
  new ChainStore(kv).putBaseBlock(b, hash, header, configJson);
  kv.write(b, { sync: true });
  return hash;
}

// ---- the import -------------------------------------------------------------------------------

export interface InitStateInput {
  /** The dump file (JSONL; gzip accepted). */
  readonly dump: string;
  readonly header: Header;
  /** The chain config (genesis.json's `config`), stored as `init` stores it. */
  readonly configJson: unknown;
  readonly batchOps?: number;
  readonly now?: () => number;
}

export interface InitStateResult {
  readonly hash: Uint8Array;
  readonly number: number;
  readonly root: Uint8Array;
  readonly accounts: number;
  readonly slots: number;
}

function tableEmpty(kv: KvStore, t: TableName): boolean {
  const c = kv.cursor(t);
  try {
    return !c.seek(EMPTY_BYTES);
  } finally {
    c.close();
  }
}

/** Deletes every row of the state tables, in bounded batches. */
function wipeState(kv: KvStore, batchOps: number): void {
  for (const t of STATE_TABLES) {
    for (;;) {
      const b = new WriteBatch();
      for (const [k] of kv.iterate(t, { limit: batchOps })) b.del(t, k);
      if (b.size === 0) break;
      kv.write(b);
    }
  }
}

/** Imports the dump into `kv` (which must hold no chain and no state) as the state at `header`. */
export async function initState(kv: KvStore, input: InitStateInput, log: Logger): Promise<InitStateResult> {
  const batchOps = input.batchOps ?? INIT_STATE_BATCH_OPS;
  const now = input.now ?? Date.now;
  const store = new ChainStore(kv);
  try {
    parseChainConfig(input.configJson);
  } catch (e) {
    throw new InitStateError(`genesis config: ${(e as Error).message}`);
  }
  if (store.meta(META_CONFIG) !== null || store.meta(META_HEAD) !== null)
    throw new InitStateError("database already holds a chain: init-state needs an empty --datadir");
  for (const t of STATE_TABLES) {
    if (!tableEmpty(kv, t))
      throw new InitStateError(`database holds state rows (${t}) but no chain: remove it or use an empty --datadir`);
  }
  const header = input.header;
  const hash = headerHash(header);
  const started = now();
  let reported = started;
  let lineNo = 0;
  let lines: Interface | null = null;
  const rows = new StateRowWriter(kv, batchOps, () => {
    const t = now();
    if (t - reported >= REPORT_MS) {
      log.info("Writing accounts to db", {
        accounts: rows.accounts,
        slots: rows.slots,
        line: lineNo,
        elapsed: `${t - started}ms`,
      });
      reported = t;
    }
  });
  try {
    lines = createInterface({ input: openByteStream(input.dump), crlfDelay: Number.POSITIVE_INFINITY });
    let sawRoot = false;
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === "") continue;
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch (e) {
        throw new InitStateError(`${input.dump}:${lineNo}: invalid JSON: ${(e as Error).message}`);
      }
      if (!sawRoot) {
        // SPEC: reth init.rs parse_state_root: the first line is the state root, checked first.
        const root = (json as Json | null)?.root;
        if (typeof root !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(root))
          throw new InitStateError(`${input.dump}:${lineNo}: want the state root line {"root":"0x…"} first`);
        if (!equalBytes(hexToBytes(root), header.stateRoot))
          throw new InitStateError(
            `state root of the dump ${root} does not match the header's ${bytesToHex(header.stateRoot)} (block ${header.number})`,
          );
        sawRoot = true;
        log.info("Initializing state at block", { number: header.number, hash: bytesToHex(hash), root });
        continue;
      }
      let acc: DumpAccount;
      try {
        acc = parseDumpAccount(json);
      } catch (e) {
        throw new InitStateError(`${input.dump}:${lineNo}: ${(e as Error).message}`);
      }
      rows.add(acc);
    }
    if (!sawRoot) throw new InitStateError(`${input.dump}: empty dump (no state root line)`);
    rows.finish();
    const { accounts, slots } = rows;
    log.info("All accounts written to database, starting state root computation", {
      accounts,
      slots,
      elapsed: `${now() - started}ms`,
    });
    const r = buildFreshStateRoot(kv, {
      flushOps: batchOps,
      onProgress: (a, s) => {
        const t = now();
        if (t - reported >= REPORT_MS) {
          log.info("Computing state root", { accounts: a, slots: s, of: accounts, elapsed: `${t - started}ms` });
          reported = t;
        }
      },
    });
    if (!equalBytes(r.root, header.stateRoot))
      throw new InitStateError(
        `computed state root ${bytesToHex(r.root)} does not match the header's ${bytesToHex(header.stateRoot)} (block ${header.number}): the dump is not that block's state`,
      );
    recordBaseBlock(kv, header, input.configJson);
    log.info("Computed state root matches state root in state dump", {
      root: bytesToHex(r.root),
      accounts,
      slots,
      number: header.number,
      hash: bytesToHex(hash),
      elapsed: `${now() - started}ms`,
    });
    return { hash, number: header.number, root: r.root, accounts, slots };
  } catch (e) {
    lines?.close();
    if (rows.wrote || rows.accounts > 0) {
      log.info("Removing the partial state");
      wipeState(kv, batchOps);
    }
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new InitStateError(`${input.dump}: no such file or directory`);
    if (code === "Z_DATA_ERROR" || code === "Z_BUF_ERROR")
      throw new InitStateError(`${input.dump}: bad gzip data near line ${lineNo}`);
    throw e;
  }
}

/** A quantity as the dump writer prints it (alloy's U256 and u64 quantities): 0x and minimal hex. */
export function dumpQuantity(v: bigint): string {
  return `0x${v.toString(16)}`;
}

/** A storage key or value as the dump writer prints it: 32 bytes of hex (reth serializes B256). */
export function dumpWord(v: bigint): string {
  return bytesToHex(bigintToBytes32(v));
}
