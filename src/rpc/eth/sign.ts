/**
 * Signing with the keys the node holds (`--dev` holds the dev accounts), as geth's TransactionAPI
 * (internal/ethapi/api.go) and, for the wallet methods geth lacks, as anvil serves them:
 * - `eth_sign(address, data)` and `personal_sign(data, address)`: EIP-191 version 0x45 over the data
 *   (geth accounts.TextHash), answered r ‖ s ‖ v with v 27/28 (geth adds 27 to the recovery id);
 * - `eth_signTypedData_v4(address, typedData)`: EIP-712 with MetaMask's v4 rules (arrays of any
 *   type and depth, nested and recursive structs, a missing struct value hashed as zero), the
 *   domain's type taken from `types.EIP712Domain` or, when absent, from the domain's fields in the
 *   EIP's order (name, version, chainId, verifyingContract, salt), as viem and alloy derive it;
 * - `eth_signTransaction(args)`: geth `SignTransaction`: gas, fees and nonce required, the rest
 *   filled by `setDefaults`, the fee cap checked; answers `{raw, tx}`;
 * - `eth_fillTransaction(args)`: geth `FillTransaction`: nonce, fees and gas filled (the gas by
 *   eth_estimateGas with the filled fees); `{raw, tx}` of the unsigned tx, its signature zero.
 * An address without a key here is geth's "unknown account". eth_sign, eth_signTransaction and
 * eth_fillTransaction are served as geth serves them, keys or not; personal_sign and
 * eth_signTypedData_v4 only when the node holds keys, in the eth namespace as anvil serves them
 * (geth has had no `personal` namespace since v1.14, and dev tools call them without enabling one).
 */
import type { ChainView } from "../../chain/blockchain.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { keccak256 } from "../../crypto/keccak.js";
import { sign } from "../../crypto/secp256k1.js";
import { concatBytes, equalBytes, utf8ToBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { bigintToBytes32 } from "../../primitives/u256.js";
import { rulesAt } from "../../spec/chainConfig.js";
import { Fork } from "../../spec/forks.js";
import { encodeTx, txHash } from "../../tx/envelope.js";
import { signTx } from "../../tx/signer.js";
import { type AccessList, type SignedTx, TxType } from "../../tx/tx.js";
import { checkTxFeeOf } from "../../txpool/txFeeCap.js";
import { RpcError } from "../errors.js";
import { qty } from "../format.js";
import { address, data, optional, type ParamDecoder, ParamError, string } from "../params.js";
import { type AnyMethod, defineMethod } from "../registry.js";
import { type TxArgs, txArgs } from "./callArgs.js";

/** What the signing methods need from the node and the eth API. */
export interface SignDeps {
  readonly chain: ChainView;
  /** The keys the node holds (`--dev`: the dev accounts; empty otherwise). */
  readonly devAccounts: readonly { readonly address: Uint8Array; readonly privateKey: Uint8Array }[];
  /** --rpc.txfeecap in ether (0 = none). */
  readonly txFeeCap: number;
  /** The pool's next nonce of an account (geth `GetPoolNonce`). */
  readonly nonceAt: (address: Uint8Array) => bigint;
  /** geth `SuggestGasTipCap`. */
  readonly suggestTip: () => bigint;
  /** geth `DoEstimateGas` on the latest block: eth_estimateGas with these arguments. */
  readonly estimateGas: (args: TxArgs) => Promise<bigint>;
}

/** accounts.ErrUnknownAccount. */
export const UNKNOWN_ACCOUNT = "unknown account";
/** params.BlobTxMaxBlobs, the cap geth's setDefaults puts on blob hashes. */
const BLOB_TX_MAX_BLOBS = 6;
const ZERO_ADDRESS = new Uint8Array(20);
const ZERO_WORD = new Uint8Array(32);

// ---- EIP-191 and signatures ---------------------------------------------------------------------

/** geth accounts.TextHash: keccak256("\x19Ethereum Signed Message:\n" ‖ len(data) ‖ data). */
export function textHash(message: Uint8Array): Uint8Array {
  return keccak256(concatBytes(utf8ToBytes(`\x19Ethereum Signed Message:\n${message.length}`), message));
}

/** A 65-byte signature r ‖ s ‖ v of `digest`, v = 27 + recovery id (geth's eth_sign, EIP-191/712 wallets). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const s = sign(digest, privateKey);
  return concatBytes(bigintToBytes32(s.r), bigintToBytes32(s.s), Uint8Array.of(27 + s.recid));
}

// ---- EIP-712 ------------------------------------------------------------------------------------

export interface TypedField {
  readonly name: string;
  readonly type: string;
}

/** An `eth_signTypedData_v4` request (EIP-712 `TypedData`). */
export interface TypedData {
  readonly types: Readonly<Record<string, readonly TypedField[]>>;
  readonly primaryType: string;
  readonly domain: Readonly<Record<string, unknown>>;
  readonly message: Readonly<Record<string, unknown>>;
}

/** The EIP712Domain fields, in the order EIP-712 lists them. */
const DOMAIN_FIELDS: readonly TypedField[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
  { name: "salt", type: "bytes32" },
];

function bad(message: string): never {
  throw new ParamError(message);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The typed data of a request: a JSON object or its text (ethers and viem send text), checked. */
export function parseTypedData(v: unknown): TypedData {
  let o = v;
  if (typeof v === "string") {
    try {
      o = JSON.parse(v);
    } catch {
      bad("typed data: not JSON");
    }
  }
  if (!isObject(o)) bad("typed data: want an object");
  const types = o.types;
  if (!isObject(types)) bad("typed data: types: want an object");
  const out: Record<string, TypedField[]> = {};
  for (const [name, fields] of Object.entries(types)) {
    if (!Array.isArray(fields)) bad(`typed data: types.${name}: want an array`);
    out[name] = fields.map((f, i) => {
      if (!isObject(f) || typeof f.name !== "string" || typeof f.type !== "string") {
        bad(`typed data: types.${name}[${i}]: want {name, type}`);
      }
      return { name: f.name, type: f.type };
    });
  }
  if (typeof o.primaryType !== "string") bad("typed data: primaryType: want a string");
  const domain = o.domain ?? {};
  if (!isObject(domain)) bad("typed data: domain: want an object");
  const message = o.message ?? {};
  if (!isObject(message)) bad("typed data: message: want an object");
  return { types: out, primaryType: o.primaryType, domain, message };
}

/** The type a (possibly array) type is made of: `Person[][2]` → `Person`. */
function baseType(type: string): string {
  const i = type.indexOf("[");
  return i < 0 ? type : type.slice(0, i);
}

function collectStructs(type: string, types: TypedData["types"], found: Set<string>): void {
  const base = baseType(type);
  if (found.has(base) || types[base] === undefined) return;
  found.add(base);
  for (const f of types[base]!) collectStructs(f.type, types, found);
}

/** EIP-712 `encodeType`: the primary type, then every struct it references, sorted by name. */
export function encodeType(primary: string, types: TypedData["types"]): string {
  if (types[primary] === undefined) bad(`typed data: unknown type ${primary}`);
  const found = new Set<string>();
  collectStructs(primary, types, found);
  found.delete(primary);
  return [primary, ...[...found].sort()]
    .map((t) => `${t}(${types[t]!.map((f) => `${f.type} ${f.name}`).join(",")})`)
    .join("");
}

/** An integer value of typed data: a JSON number, or a decimal or 0x-hex string. */
function integerOf(v: unknown, where: string): bigint {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) bad(`${where}: ${v} is not an integer`);
    return BigInt(v);
  }
  if (typeof v === "string") {
    const s = v.trim();
    if (/^-?(0|[1-9][0-9]*)$/.test(s)) return BigInt(s);
    if (/^-?0[xX][0-9a-fA-F]+$/.test(s)) return s.startsWith("-") ? -BigInt(s.slice(1)) : BigInt(s);
  }
  return bad(`${where}: want an integer, got ${JSON.stringify(v)}`);
}

/** 0x-hex (or, for addresses, bare hex) as bytes. */
function hexOf(v: unknown, where: string, prefix: "required" | "optional"): Uint8Array {
  if (typeof v !== "string") bad(`${where}: want hex, got ${JSON.stringify(v)}`);
  const has = v.startsWith("0x") || v.startsWith("0X");
  if (!has && prefix === "required") bad(`${where}: want 0x-prefixed hex`);
  const digits = has ? v.slice(2) : v;
  if (digits.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(digits)) bad(`${where}: invalid hex ${JSON.stringify(v)}`);
  return Uint8Array.from(Buffer.from(digits, "hex"));
}

/** The 32-byte word of one value: atomic types encoded, dynamic ones and structs hashed, arrays hashed. */
function encodeValue(type: string, v: unknown, types: TypedData["types"], where: string): Uint8Array {
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array !== null) {
    const [, inner, len] = array;
    if (!Array.isArray(v)) return bad(`${where}: want an array for ${type}`);
    if (len !== "" && v.length !== Number(len)) bad(`${where}: want ${len} elements for ${type}, got ${v.length}`);
    return keccak256(concatBytes(...v.map((x, i) => encodeValue(inner!, x, types, `${where}[${i}]`))));
  }
  if (types[type] !== undefined) {
    // MetaMask v4: a missing struct value is encoded as the zero word (recursive types end this way).
    if (v === undefined || v === null) return ZERO_WORD;
    if (!isObject(v)) return bad(`${where}: want an object for ${type}`);
    return hashStruct(type, v, types, where);
  }
  if (v === undefined || v === null) return bad(`${where}: missing value for type ${type}`);
  if (type === "string") {
    if (typeof v !== "string") bad(`${where}: want a string`);
    return keccak256(utf8ToBytes(v));
  }
  if (type === "bytes") return keccak256(hexOf(v, where, "required"));
  if (type === "bool") {
    if (typeof v !== "boolean") bad(`${where}: want a boolean`);
    return bigintToBytes32(v ? 1n : 0n);
  }
  if (type === "address") {
    const a = hexOf(v, where, "optional");
    if (a.length !== 20) bad(`${where}: want a 20-byte address`);
    return bigintToBytes32(BigInt(bytesToHex(a)));
  }
  const fixed = /^bytes([0-9]+)$/.exec(type);
  if (fixed !== null) {
    const n = Number(fixed[1]);
    if (n < 1 || n > 32) bad(`typed data: unknown type ${type}`);
    const b = hexOf(v, where, "required");
    if (b.length !== n) bad(`${where}: want ${n} bytes for ${type}, got ${b.length}`);
    const out = new Uint8Array(32);
    out.set(b);
    return out;
  }
  const int = /^(u?)int([0-9]*)$/.exec(type);
  if (int !== null) {
    const bits = int[2] === "" ? 256 : Number(int[2]);
    if (bits < 8 || bits > 256 || bits % 8 !== 0) bad(`typed data: unknown type ${type}`);
    const x = integerOf(v, where);
    const signed = int[1] === "";
    const [lo, hi] = signed ? [-(1n << BigInt(bits - 1)), 1n << BigInt(bits - 1)] : [0n, 1n << BigInt(bits)];
    if (x < lo || x >= hi) bad(`${where}: ${x} out of range for ${type}`);
    return bigintToBytes32(x < 0n ? (1n << 256n) + x : x);
  }
  return bad(`typed data: unknown type ${type}`);
}

/** EIP-712 `hashStruct`: keccak256(typeHash ‖ encodeData). */
export function hashStruct(
  type: string,
  value: Readonly<Record<string, unknown>>,
  types: TypedData["types"],
  where = type,
): Uint8Array {
  const typeHash = keccak256(utf8ToBytes(encodeType(type, types)));
  const words = types[type]!.map((f) => encodeValue(f.type, value[f.name], types, `${where}.${f.name}`));
  return keccak256(concatBytes(typeHash, ...words));
}

/** The types with the domain's: `types.EIP712Domain`, else the fields the domain has, in the EIP's order. */
function withDomainType(t: TypedData): TypedData["types"] {
  if (t.types.EIP712Domain !== undefined) return t.types;
  const present = DOMAIN_FIELDS.filter((f) => t.domain[f.name] !== undefined && t.domain[f.name] !== null);
  return { ...t.types, EIP712Domain: present };
}

/** The EIP-712 domain separator, hashStruct(EIP712Domain, domain). */
export function domainSeparator(t: TypedData): Uint8Array {
  return hashStruct("EIP712Domain", t.domain, withDomainType(t), "domain");
}

/**
 * The digest an EIP-712 signature signs: keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)),
 * without the message hash when the primary type is EIP712Domain itself.
 */
export function typedDataHash(t: TypedData): Uint8Array {
  const types = withDomainType(t);
  const parts = [Uint8Array.of(0x19, 0x01), hashStruct("EIP712Domain", t.domain, types, "domain")];
  if (t.primaryType !== "EIP712Domain") {
    if (types[t.primaryType] === undefined) bad(`typed data: unknown primaryType ${t.primaryType}`);
    parts.push(hashStruct(t.primaryType, t.message, types, "message"));
  }
  return keccak256(concatBytes(...parts));
}

const typedData: ParamDecoder<TypedData> = { optional: false, decode: parseTypedData };

// ---- transactions (geth TransactionArgs.setDefaults / ToTransaction) ------------------------------

/** Mutable copy of the arguments while defaults are filled. */
type Args = { -readonly [K in keyof TxArgs]: TxArgs[K] };

/** geth `setDefaults` (internal/ethapi/transaction_args.go), with geth's error texts. */
async function setDefaults(d: SignDeps, given: TxArgs): Promise<Args> {
  const a: Args = { ...given };
  const head = d.chain.head;
  const cfg = d.chain.config;
  const fork = rulesAt(cfg, head.number, head.timestamp).fork;
  // setFeeDefaults
  if (a.maxFeePerBlobGas !== null && a.maxFeePerBlobGas === 0n) {
    throw RpcError.server("maxFeePerBlobGas, if specified, must be non-zero");
  }
  if (fork >= Fork.Cancun && a.blobVersionedHashes !== null && a.maxFeePerBlobGas === null) {
    // setCancunFeeDefaults: twice the head's blob base fee.
    a.maxFeePerBlobGas = 2n * headerBlobBaseFee(cfg, head.excessBlobGas, head.timestamp);
  }
  if (a.gasPrice !== null && (a.maxFeePerGas !== null || a.maxPriorityFeePerGas !== null)) {
    throw RpcError.server("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified");
  }
  if (a.gasPrice !== null && a.authorizationList !== null) {
    throw RpcError.server("both gasPrice and authorizationList specified");
  }
  const feeCapError = (cap: bigint, tip: bigint): RpcError =>
    RpcError.server(`maxFeePerGas (${qty(cap)}) < maxPriorityFeePerGas (${qty(tip)})`);
  const london = fork >= Fork.London;
  if (a.gasPrice === null && a.maxFeePerGas !== null && a.maxPriorityFeePerGas !== null) {
    if (a.maxFeePerGas === 0n) throw RpcError.server("maxFeePerGas must be non-zero");
    if (a.maxFeePerGas < a.maxPriorityFeePerGas) throw feeCapError(a.maxFeePerGas, a.maxPriorityFeePerGas);
  } else if (a.gasPrice !== null) {
    if (a.gasPrice === 0n && london) throw RpcError.server("gasPrice must be non-zero after london fork");
  } else if (london) {
    a.maxPriorityFeePerGas ??= d.suggestTip();
    // Twice the head's base fee on top of the tip: room for the base fee to rise.
    a.maxFeePerGas ??= a.maxPriorityFeePerGas + 2n * (head.baseFeePerGas ?? 0n);
    if (a.maxFeePerGas < a.maxPriorityFeePerGas) throw feeCapError(a.maxFeePerGas, a.maxPriorityFeePerGas);
  } else {
    if (a.maxFeePerGas !== null || a.maxPriorityFeePerGas !== null) {
      throw RpcError.server("maxFeePerGas and maxPriorityFeePerGas are not valid before London is active");
    }
    a.gasPrice = d.suggestTip();
  }
  a.value ??= 0n;
  a.nonce ??= d.nonceAt(a.from ?? ZERO_ADDRESS);
  if (a.blobVersionedHashes !== null && a.blobVersionedHashes.length === 0) {
    throw RpcError.server("need at least 1 blob for a blob transaction");
  }
  if (a.blobVersionedHashes !== null && a.blobVersionedHashes.length > BLOB_TX_MAX_BLOBS) {
    throw RpcError.server(
      `too many blobs in transaction (have=${a.blobVersionedHashes.length}, max=${BLOB_TX_MAX_BLOBS})`,
    );
  }
  if (a.to === null) {
    if (a.blobVersionedHashes !== null) throw RpcError.server('missing "to" in blob transaction');
    if ((a.input ?? new Uint8Array(0)).length === 0)
      throw RpcError.server("contract creation without any data provided");
    if (a.authorizationList !== null && a.authorizationList.length > 0) {
      throw RpcError.server('authorizationList provided for contract creation, but "to" field is missing');
    }
  }
  // The estimate sees the filled fees, not the nonce, gas or chain id (geth's callArgs).
  a.gas ??= await d.estimateGas({ ...a, gas: null, nonce: null, chainId: null });
  if (a.chainId !== null && a.chainId !== cfg.chainId) {
    throw RpcError.server(`chainId does not match node's (have=${a.chainId}, want=${cfg.chainId})`);
  }
  a.chainId = cfg.chainId;
  return a;
}

/** geth `ToTransaction(DynamicFeeTxType)`: the unsigned tx of filled arguments (signature fields zero). */
function toTransaction(a: Args): SignedTx {
  const common = {
    nonce: a.nonce!,
    gasLimit: a.gas!,
    value: a.value!,
    data: a.input ?? new Uint8Array(0),
    r: 0n,
    s: 0n,
  };
  if (a.gasPrice !== null) {
    // geth ToTransaction: a gas price with an access list is an EIP-2930 tx, without one a legacy tx.
    if (a.accessList !== null) {
      return {
        type: TxType.AccessList,
        ...common,
        chainId: a.chainId!,
        to: a.to,
        gasPrice: a.gasPrice,
        accessList: a.accessList,
        yParity: 0,
      };
    }
    return { type: TxType.Legacy, ...common, to: a.to, gasPrice: a.gasPrice, v: 0n };
  }
  const fees = {
    chainId: a.chainId!,
    maxPriorityFeePerGas: a.maxPriorityFeePerGas!,
    maxFeePerGas: a.maxFeePerGas!,
    accessList: a.accessList ?? [],
    yParity: 0,
  };
  if (a.authorizationList !== null) {
    if (a.to === null)
      throw RpcError.server('authorizationList provided for contract creation, but "to" field is missing');
    return { type: TxType.SetCode, ...common, ...fees, to: a.to, authorizationList: a.authorizationList };
  }
  if (a.blobVersionedHashes !== null) {
    return {
      type: TxType.Blob,
      ...common,
      ...fees,
      to: a.to!,
      maxFeePerBlobGas: a.maxFeePerBlobGas ?? 0n,
      blobVersionedHashes: a.blobVersionedHashes,
    };
  }
  return { type: TxType.FeeMarket, ...common, ...fees, to: a.to };
}

/**
 * geth `setDefaults` then `ToTransaction(DynamicFeeTxType)`: the unsigned tx eth_fillTransaction
 * answers and eth_signTransaction signs (fees filled before the gas is estimated with them).
 */
export async function fillTransaction(d: SignDeps, args: TxArgs): Promise<SignedTx> {
  return toTransaction(await setDefaults(d, args));
}

/** geth isProtectedV: a legacy v other than 27/28 (and 0/1) carries a chain id. */
function legacyChainId(v: bigint): bigint | null {
  if (v === 0n || v === 1n || v === 27n || v === 28n) return null;
  return (v - 35n) >> 1n;
}

function accessListJson(list: AccessList): JsonValue[] {
  return list.map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(bytesToHex) }));
}

/**
 * A tx as geth's `types.Transaction` marshals it (core/types/transaction_marshalling.go): the
 * fields of its type in geth's order, null where geth's pointer is nil, and its hash.
 */
export function txObjectJson(tx: SignedTx): Record<string, JsonValue> {
  const o: Record<string, JsonValue> = { type: qty(tx.type) };
  const legacy = tx.type === TxType.Legacy;
  if (legacy) {
    const id = legacyChainId(tx.v);
    if (id !== null) o.chainId = qty(id);
  } else o.chainId = qty(tx.chainId);
  o.nonce = qty(tx.nonce);
  o.to = tx.to === null ? null : bytesToHex(tx.to);
  o.gas = qty(tx.gasLimit);
  const priced = tx.type === TxType.Legacy || tx.type === TxType.AccessList;
  o.gasPrice = priced ? qty(tx.gasPrice) : null;
  o.maxPriorityFeePerGas = priced ? null : qty(tx.maxPriorityFeePerGas);
  o.maxFeePerGas = priced ? null : qty(tx.maxFeePerGas);
  if (tx.type === TxType.Blob) o.maxFeePerBlobGas = qty(tx.maxFeePerBlobGas);
  o.value = qty(tx.value);
  o.input = bytesToHex(tx.data);
  if (!legacy) o.accessList = accessListJson(tx.accessList);
  if (tx.type === TxType.Blob && tx.blobVersionedHashes.length > 0) {
    o.blobVersionedHashes = tx.blobVersionedHashes.map(bytesToHex);
  }
  if (tx.type === TxType.SetCode && tx.authorizationList.length > 0) {
    o.authorizationList = tx.authorizationList.map((a) => ({
      chainId: qty(a.chainId),
      address: bytesToHex(a.address),
      nonce: qty(a.nonce),
      yParity: qty(a.yParity),
      r: qty(a.r),
      s: qty(a.s),
    }));
  }
  o.v = qty(legacy ? tx.v : BigInt(tx.yParity));
  o.r = qty(tx.r);
  o.s = qty(tx.s);
  if (!legacy) o.yParity = qty(tx.yParity);
  o.hash = bytesToHex(txHash(tx));
  return o;
}

// ---- the methods ----------------------------------------------------------------------------------

/**
 * The signing methods (see the file comment). eth_estimateGas of the eth API estimates the gas of
 * eth_fillTransaction and of eth_signTransaction's defaults (`SignDeps.estimateGas`).
 */
export function signMethods(d: SignDeps): AnyMethod[] {
  const keyOf = (addr: Uint8Array): Uint8Array => {
    const a = d.devAccounts.find((x) => equalBytes(x.address, addr));
    if (a === undefined) throw RpcError.server(UNKNOWN_ACCOUNT);
    return a.privateKey;
  };
  const signText = (addr: Uint8Array, msg: Uint8Array): string => {
    const key = keyOf(addr);
    return bytesToHex(signDigest(textHash(msg), key));
  };
  const methods: AnyMethod[] = [
    defineMethod({ name: "eth_sign", params: [address, data], handler: ([addr, msg]) => signText(addr, msg) }),
    defineMethod({
      name: "eth_signTransaction",
      params: [txArgs],
      handler: async ([args]) => {
        // geth SignTransaction: these three are the caller's to give.
        if (args.gas === null) throw RpcError.server("gas not specified");
        if (args.gasPrice === null && (args.maxPriorityFeePerGas === null || args.maxFeePerGas === null)) {
          throw RpcError.server("missing gasPrice or maxFeePerGas/maxPriorityFeePerGas");
        }
        if (args.nonce === null) throw RpcError.server("nonce not specified");
        const tx = await fillTransaction(d, args);
        const feeErr = checkTxFeeOf(tx, d.txFeeCap);
        if (feeErr !== null) throw RpcError.server(feeErr);
        const signed = signTx(tx, keyOf(args.from ?? ZERO_ADDRESS), d.chain.config.chainId);
        return { raw: bytesToHex(encodeTx(signed)), tx: txObjectJson(signed) };
      },
    }),
    defineMethod({
      name: "eth_fillTransaction",
      params: [txArgs],
      handler: async ([args]) => {
        const tx = await fillTransaction(d, args);
        return { raw: bytesToHex(encodeTx(tx)), tx: txObjectJson(tx) };
      },
    }),
  ];
  if (d.devAccounts.length === 0) return methods;
  const personalSign = defineMethod({
    name: "personal_sign",
    // geth's removed personal_sign took a passphrase third; accepted and ignored.
    params: [data, address, optional(string)],
    handler: ([msg, addr]) => signText(addr, msg),
  });
  const signTypedData = defineMethod({
    name: "eth_signTypedData_v4",
    params: [address, typedData],
    handler: ([addr, t]) => {
      const key = keyOf(addr);
      return bytesToHex(signDigest(typedDataHash(t), key));
    },
  });
  // Served with eth (see the file comment): the namespace decides which transports serve a method.
  return [...methods, { ...personalSign, namespace: "eth" }, signTypedData];
}

/**
 * `SignDeps.estimateGas` through the eth API's own eth_estimateGas definition (rpc/eth/api.ts
 * `ethCallMethods`), so a fill estimates, and fails, exactly as eth_estimateGas answers.
 */
export function estimateGasVia(methods: readonly AnyMethod[]): (args: TxArgs) => Promise<bigint> {
  const m = methods.find((x) => x.name === "eth_estimateGas");
  if (m === undefined) throw new Error("estimateGasVia: no eth_estimateGas");
  const handler = m.handler as (params: readonly unknown[], ctx: unknown) => unknown;
  return async (args) => {
    const gas = await handler([args, undefined, undefined, undefined], { transport: "http", remoteAddr: "" });
    return BigInt(gas as string);
  };
}
