/**
 * The `eth` wire protocol's messages, versions 68 and 69 (SPEC: devp2p caps/eth.md; EIP-2481 request
 * ids, EIP-5793 typed announcements, EIP-7642 eth/69: Status without TD and best hash but with the
 * served block range, BlockRangeUpdate, receipts without bloom, no NewBlockHashes/NewBlock).
 *
 * `decodeEthMessage` never throws: bytes that do not decode (or a code the version lacks) give an
 * `EthDecodeError` the peer turns into a disconnect. Byte fields of decoded messages are views into
 * the payload. Transactions stay EIP-2718 envelopes (the pool decodes them again when it adds them).
 */
import { type BlockBody, decodeBody } from "../../block/block.js";
import { BlockError } from "../../block/errors.js";
import { decodeHeader, type Header } from "../../block/header.js";
import { ListReader } from "../../block/listReader.js";
import { logEncodedLength, writeLog } from "../../block/log.js";
import { decodeReceipt, encodeReceipt, type Receipt, readReceiptBody } from "../../block/receipt.js";
import {
  encodedLength,
  encodeRlp,
  encodeRlpInto,
  encodeRlpListOfEncoded,
  headerLength,
  type RlpInput,
  uintToRlpBytes,
  writeHeader,
} from "../../rlp/encode.js";
import { RlpError } from "../../rlp/errors.js";
import type { ForkId } from "../../spec/forkId.js";
import { decodeBlobTxNetwork } from "../../tx/blobNetwork.js";
import { decodeTx } from "../../tx/envelope.js";
import { TxError } from "../../tx/errors.js";
import { TxType } from "../../tx/tx.js";

export const ETH68 = 68;
export const ETH69 = 69;
export type EthVersion = typeof ETH68 | typeof ETH69;
/** Versions we speak, preferred first (geth ProtocolVersions). */
export const ETH_VERSIONS: readonly EthVersion[] = [ETH69, ETH68];

/** Message codes, relative to the capability's offset in the RLPx session. */
export const EthMsg = {
  Status: 0x00,
  NewBlockHashes: 0x01,
  Transactions: 0x02,
  GetBlockHeaders: 0x03,
  BlockHeaders: 0x04,
  GetBlockBodies: 0x05,
  BlockBodies: 0x06,
  NewBlock: 0x07,
  NewPooledTransactionHashes: 0x08,
  GetPooledTransactions: 0x09,
  PooledTransactions: 0x0a,
  GetReceipts: 0x0f,
  Receipts: 0x10,
  BlockRangeUpdate: 0x11,
} as const;
export type EthMsgCode = (typeof EthMsg)[keyof typeof EthMsg];

/** Message-code space each version claims in RLPx (geth protocolLengths: 17 for eth/68, 18 for eth/69). */
export const ETH_PROTOCOL_LENGTH: Readonly<Record<EthVersion, number>> = { 68: 17, 69: 18 };

/** Largest `eth` message accepted (geth eth/protocols/eth maxMessageSize, 10 MiB). */
export const MAX_MESSAGE_SIZE = 10 * 1024 * 1024;

// ---- message shapes ------------------------------------------------------------------------------

/** eth/68 Status: `[version, networkid, td, blockhash, genesis, forkid]`. */
export interface Status68 {
  readonly code: typeof EthMsg.Status;
  readonly form: typeof ETH68;
  readonly version: number;
  readonly networkId: bigint;
  readonly td: bigint;
  readonly head: Uint8Array;
  readonly genesis: Uint8Array;
  readonly forkId: ForkId;
}

/** eth/69 Status: `[version, networkid, genesis, forkid, earliest, latest, latestHash]`. */
export interface Status69 {
  readonly code: typeof EthMsg.Status;
  readonly form: typeof ETH69;
  readonly version: number;
  readonly networkId: bigint;
  readonly genesis: Uint8Array;
  readonly forkId: ForkId;
  readonly earliest: number;
  readonly latest: number;
  readonly latestHash: Uint8Array;
}

export type Status = Status68 | Status69;

export interface NewBlockHashes {
  readonly code: typeof EthMsg.NewBlockHashes;
  readonly entries: readonly { readonly hash: Uint8Array; readonly number: number }[];
}

/** Full transactions, each an EIP-2718 envelope (a pooled blob tx in its network form). */
export interface Transactions {
  readonly code: typeof EthMsg.Transactions;
  readonly txs: readonly Uint8Array[];
}

/** Origin by hash (32 bytes) or by number (u64 from the peer: a bigint). */
export type HeaderOrigin = Uint8Array | bigint;

export interface GetBlockHeaders {
  readonly code: typeof EthMsg.GetBlockHeaders;
  readonly requestId: bigint;
  readonly origin: HeaderOrigin;
  /** u64 caps from the peer stay bigint (docs/design/numeric-types.md); the server clamps them. */
  readonly amount: bigint;
  readonly skip: bigint;
  readonly reverse: boolean;
}

/** Headers as their RLP; `decoded` is filled when the message came off the wire. */
export interface BlockHeaders {
  readonly code: typeof EthMsg.BlockHeaders;
  readonly requestId: bigint;
  readonly headers: readonly Uint8Array[];
  readonly decoded?: readonly Header[];
}

export interface HashesRequest<C extends number> {
  readonly code: C;
  readonly requestId: bigint;
  readonly hashes: readonly Uint8Array[];
}
export type GetBlockBodies = HashesRequest<typeof EthMsg.GetBlockBodies>;
export type GetPooledTransactions = HashesRequest<typeof EthMsg.GetPooledTransactions>;
export type GetReceipts = HashesRequest<typeof EthMsg.GetReceipts>;

/** Bodies as their RLP `[txs, ommers, withdrawals?]`; `decoded` is filled off the wire. */
export interface BlockBodies {
  readonly code: typeof EthMsg.BlockBodies;
  readonly requestId: bigint;
  readonly bodies: readonly Uint8Array[];
  readonly decoded?: readonly BlockBody[];
}

export interface NewBlock {
  readonly code: typeof EthMsg.NewBlock;
  /** The block's RLP. */
  readonly block: Uint8Array;
  readonly td: bigint;
}

/** eth/68 announcement: `[types: B, [size₁, …], [hash₁, …]]`, three lists of one length. */
export interface NewPooledTransactionHashes {
  readonly code: typeof EthMsg.NewPooledTransactionHashes;
  readonly types: Uint8Array;
  readonly sizes: readonly number[];
  readonly hashes: readonly Uint8Array[];
}

export interface PooledTransactions {
  readonly code: typeof EthMsg.PooledTransactions;
  readonly requestId: bigint;
  readonly txs: readonly Uint8Array[];
}

/** Receipts per block. eth/69 omits the bloom on the wire; decoding recomputes it from the logs. */
export interface Receipts {
  readonly code: typeof EthMsg.Receipts;
  readonly requestId: bigint;
  readonly receipts: readonly (readonly Receipt[])[];
}

export interface BlockRangeUpdate {
  readonly code: typeof EthMsg.BlockRangeUpdate;
  readonly earliest: number;
  readonly latest: number;
  readonly latestHash: Uint8Array;
}

export type EthMessage =
  | Status
  | NewBlockHashes
  | Transactions
  | GetBlockHeaders
  | BlockHeaders
  | GetBlockBodies
  | BlockBodies
  | NewBlock
  | NewPooledTransactionHashes
  | GetPooledTransactions
  | PooledTransactions
  | GetReceipts
  | Receipts
  | BlockRangeUpdate;

/** Why a message was refused; `reason` is geth's error text (`invalid message`, `message too long`, …). */
export interface EthDecodeError {
  readonly error: true;
  readonly code: number;
  readonly reason: string;
}

export function isDecodeError(m: EthMessage | EthDecodeError): m is EthDecodeError {
  return "error" in m;
}

// ---- small encoders ------------------------------------------------------------------------------

const u = uintToRlpBytes;
const TRUE = Uint8Array.of(1);
const FALSE = new Uint8Array(0);

function forkIdItem(f: ForkId): RlpInput {
  return [f.hash, u(f.next)];
}

/** Wraps already-encoded items `[requestId, [items…]]` with one allocation. */
export function encodeRequestIdList(requestId: bigint, items: readonly Uint8Array[]): Uint8Array {
  const id = u(requestId);
  let inner = 0;
  for (const it of items) inner += it.length;
  const payload = encodedLength(id) + headerLength(inner) + inner;
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  pos = encodeRlpInto(out, pos, id);
  pos = writeHeader(out, pos, inner, 0xc0);
  for (const it of items) {
    out.set(it, pos);
    pos += it.length;
  }
  return out;
}

/** A tx envelope as a list item: a legacy tx is its own list, a typed tx a byte string around it. */
function txItem(tx: Uint8Array): Uint8Array {
  if (tx.length > 0 && tx[0] >= 0xc0) return tx;
  return encodeRlp(tx);
}

export function encodeStatus(s: Status): Uint8Array {
  if (s.form === ETH68) {
    return encodeRlp([u(s.version), u(s.networkId), u(s.td), s.head, s.genesis, forkIdItem(s.forkId)]);
  }
  return encodeRlp([
    u(s.version),
    u(s.networkId),
    s.genesis,
    forkIdItem(s.forkId),
    u(s.earliest),
    u(s.latest),
    s.latestHash,
  ]);
}

export function encodeNewBlockHashes(entries: NewBlockHashes["entries"]): Uint8Array {
  return encodeRlp(entries.map((e) => [e.hash, u(e.number)]));
}

export function encodeTransactions(txs: readonly Uint8Array[]): Uint8Array {
  return encodeRlpListOfEncoded(txs.map(txItem));
}

export function encodeGetBlockHeaders(m: Omit<GetBlockHeaders, "code">): Uint8Array {
  const origin = m.origin instanceof Uint8Array ? m.origin : u(m.origin);
  return encodeRlp([u(m.requestId), [origin, u(m.amount), u(m.skip), m.reverse ? TRUE : FALSE]]);
}

/** `[requestId, [header₁, …]]` from stored header RLPs. */
export function encodeBlockHeaders(requestId: bigint, headersRlp: readonly Uint8Array[]): Uint8Array {
  return encodeRequestIdList(requestId, headersRlp);
}

export function encodeHashesRequest(requestId: bigint, hashes: readonly Uint8Array[]): Uint8Array {
  return encodeRlp([u(requestId), hashes as Uint8Array[]]);
}

/** `[requestId, [body₁, …]]` from stored body RLPs. */
export function encodeBlockBodies(requestId: bigint, bodiesRlp: readonly Uint8Array[]): Uint8Array {
  return encodeRequestIdList(requestId, bodiesRlp);
}

export function encodeNewBlock(blockRlp: Uint8Array, td: bigint): Uint8Array {
  return encodeRlpListOfEncoded([blockRlp, encodeRlp(u(td))]);
}

export function encodeNewPooledTransactionHashes(
  types: Uint8Array,
  sizes: readonly number[],
  hashes: readonly Uint8Array[],
): Uint8Array {
  if (types.length !== sizes.length || types.length !== hashes.length) {
    throw new RangeError("NewPooledTransactionHashes: types, sizes and hashes differ in length");
  }
  return encodeRlp([types, sizes.map((s) => u(s)), hashes as Uint8Array[]]);
}

export function encodePooledTransactions(requestId: bigint, txs: readonly Uint8Array[]): Uint8Array {
  return encodeRequestIdList(requestId, txs.map(txItem));
}

export function encodeBlockRangeUpdate(m: Omit<BlockRangeUpdate, "code">): Uint8Array {
  return encodeRlp([u(m.earliest), u(m.latest), m.latestHash]);
}

// ---- receipts ------------------------------------------------------------------------------------

/** eth/68 form of one receipt: the consensus encoding, a typed one wrapped in a byte string. */
function receiptItem68(r: Receipt): Uint8Array {
  const enc = encodeReceipt(r);
  return r.type === TxType.Legacy ? enc : encodeRlp(enc);
}

function statusBytes(r: Receipt): Uint8Array {
  if (r.postState !== null) return r.postState;
  return r.status === 0 ? FALSE : TRUE;
}

/**
 * eth/69 form of one receipt: `[txType, postStateOrStatus, cumulativeGas, logs]`, plus op-geth's
 * deposit fields `depositNonce?, depositReceiptVersion?` on deposit receipts (op-geth
 * eth/protocols/eth/receipt.go `encodeForNetwork69`).
 */
function receiptItem69(r: Receipt): Uint8Array {
  const head: Uint8Array[] = [u(r.type), statusBytes(r), u(r.cumulativeGasUsed)];
  const tail: Uint8Array[] = [];
  if (r.type === TxType.Deposit && r.depositNonce !== null) {
    tail.push(u(r.depositNonce));
    if (r.depositReceiptVersion !== null) tail.push(u(r.depositReceiptVersion));
  }
  let logsPayload = 0;
  for (const log of r.logs) logsPayload += logEncodedLength(log);
  let payload = headerLength(logsPayload) + logsPayload;
  for (const b of head) payload += encodedLength(b);
  for (const b of tail) payload += encodedLength(b);
  const out = new Uint8Array(headerLength(payload) + payload);
  let pos = writeHeader(out, 0, payload, 0xc0);
  for (const b of head) pos = encodeRlpInto(out, pos, b);
  pos = writeHeader(out, pos, logsPayload, 0xc0);
  for (const log of r.logs) pos = writeLog(out, pos, log);
  for (const b of tail) pos = encodeRlpInto(out, pos, b);
  return out;
}

/** One block's receipt list in the version's wire form (a Receipts response item). */
export function encodeBlockReceipts(version: EthVersion, receipts: readonly Receipt[]): Uint8Array {
  const items = receipts.map(version === ETH68 ? receiptItem68 : receiptItem69);
  return encodeRlpListOfEncoded(items);
}

/** `[requestId, [receipts₁, …]]` from per-block lists already in wire form. */
export function encodeReceiptsRaw(requestId: bigint, blockLists: readonly Uint8Array[]): Uint8Array {
  return encodeRequestIdList(requestId, blockLists);
}

export function encodeReceipts(
  version: EthVersion,
  requestId: bigint,
  receipts: readonly (readonly Receipt[])[],
): Uint8Array {
  return encodeReceiptsRaw(
    requestId,
    receipts.map((rs) => encodeBlockReceipts(version, rs)),
  );
}

/** Encodes any message for `version` (tests and generic senders; the peer uses the typed encoders). */
export function encodeEthMessage(version: EthVersion, m: EthMessage): Uint8Array {
  switch (m.code) {
    case EthMsg.Status:
      return encodeStatus(m);
    case EthMsg.NewBlockHashes:
      return encodeNewBlockHashes(m.entries);
    case EthMsg.Transactions:
      return encodeTransactions(m.txs);
    case EthMsg.GetBlockHeaders:
      return encodeGetBlockHeaders(m);
    case EthMsg.BlockHeaders:
      return encodeBlockHeaders(m.requestId, m.headers);
    case EthMsg.GetBlockBodies:
    case EthMsg.GetPooledTransactions:
    case EthMsg.GetReceipts:
      return encodeHashesRequest(m.requestId, m.hashes);
    case EthMsg.BlockBodies:
      return encodeBlockBodies(m.requestId, m.bodies);
    case EthMsg.NewBlock:
      return encodeNewBlock(m.block, m.td);
    case EthMsg.NewPooledTransactionHashes:
      return encodeNewPooledTransactionHashes(m.types, m.sizes, m.hashes);
    case EthMsg.PooledTransactions:
      return encodePooledTransactions(m.requestId, m.txs);
    case EthMsg.Receipts:
      return encodeReceipts(version, m.requestId, m.receipts);
    case EthMsg.BlockRangeUpdate:
      return encodeBlockRangeUpdate(m);
  }
}

// ---- decoding ------------------------------------------------------------------------------------

/** Thrown inside this module only; `decodeEthMessage` turns it into an `EthDecodeError`. */
class WireError extends Error {}

function requestId(r: ListReader): bigint {
  return r.bigint("requestId", 8);
}

function u64(r: ListReader, what: string): bigint {
  return r.bigint(what, 8);
}

function readForkId(r: ListReader): ForkId {
  const f = r.list("status.forkId");
  const hash = f.fixed(4, "forkId.hash");
  const next = f.bigint("forkId.next", 8);
  f.finish("forkId");
  // SPEC: FORK_NEXT is a u64; one past 2^53 is never reached by a block number or timestamp, so it
  // saturates (the filter treats both as "not yet passed").
  return { hash, next: next > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(next) };
}

function decodeStatus(version: EthVersion, payload: Uint8Array): Status {
  const r = ListReader.whole(payload, "status");
  const v = r.safeInt("status.version");
  const networkId = u64(r, "status.networkId");
  if (version === ETH68) {
    const td = r.bigint("status.td", 32);
    const head = r.fixed(32, "status.head");
    const genesis = r.fixed(32, "status.genesis");
    const forkId = readForkId(r);
    // SPEC: geth's StatusPacket68 has no `rlp:"tail"` field, so extra trailing fields fail to decode there too.
    r.finish("status");
    return { code: EthMsg.Status, form: ETH68, version: v, networkId, td, head, genesis, forkId };
  }
  const genesis = r.fixed(32, "status.genesis");
  const forkId = readForkId(r);
  const earliest = r.safeInt("status.earliest");
  const latest = r.safeInt("status.latest");
  const latestHash = r.fixed(32, "status.latestHash");
  r.finish("status");
  return { code: EthMsg.Status, form: ETH69, version: v, networkId, genesis, forkId, earliest, latest, latestHash };
}

/** A tx list item: legacy list → its bytes, typed byte string → the envelope inside. Checks it decodes. */
function readTx(list: ListReader, what: string): Uint8Array {
  const it = list.item(what);
  const env = it.list ? it.raw : it.payload;
  if (!it.list && (env.length < 2 || env[0] >= 0x80)) throw new WireError(`${what}: not a typed transaction`);
  try {
    decodeTx(env);
  } catch (e) {
    // A pooled blob tx travels with its sidecar (EIP-4844 network form).
    if (!(env[0] === TxType.Blob && e instanceof TxError)) throw e;
    decodeBlobTxNetwork(env);
  }
  return env;
}

function readTxList(r: ListReader, what: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  while (r.hasMore()) out.push(readTx(r, what));
  return out;
}

function readHashes(r: ListReader, what: string): Uint8Array[] {
  const l = r.list(what);
  const out: Uint8Array[] = [];
  while (l.hasMore()) out.push(l.fixed(32, what));
  return out;
}

function readHashesRequest<C extends number>(code: C, payload: Uint8Array, what: string): HashesRequest<C> {
  const r = ListReader.whole(payload, what);
  const id = requestId(r);
  const hashes = readHashes(r, `${what}.hashes`);
  r.finish(what);
  return { code, requestId: id, hashes };
}

function readBool(r: ListReader, what: string): boolean {
  const b = r.bytes(what);
  if (b.length === 0) return false;
  if (b.length === 1 && b[0] === 1) return true;
  throw new WireError(`${what}: invalid boolean`);
}

function decodeGetBlockHeaders(payload: Uint8Array): GetBlockHeaders {
  const r = ListReader.whole(payload, "getBlockHeaders");
  const id = requestId(r);
  const q = r.list("getBlockHeaders.query");
  const o = q.bytes("query.origin");
  let origin: HeaderOrigin;
  // SPEC: geth HashOrNumber.DecodeRLP: 32 bytes are a hash, up to 8 a number, anything else invalid.
  if (o.length === 32) origin = o;
  else if (o.length <= 8) {
    if (o.length > 0 && o[0] === 0) throw new WireError("query.origin: integer has leading zero bytes");
    let n = 0n;
    for (const b of o) n = (n << 8n) | BigInt(b);
    origin = n;
  } else throw new WireError(`invalid input size ${o.length} for origin`);
  const amount = u64(q, "query.amount");
  const skip = u64(q, "query.skip");
  const reverse = readBool(q, "query.reverse");
  q.finish("getBlockHeaders.query");
  r.finish("getBlockHeaders");
  return { code: EthMsg.GetBlockHeaders, requestId: id, origin, amount, skip, reverse };
}

function decodeBlockHeaders(payload: Uint8Array): BlockHeaders {
  const r = ListReader.whole(payload, "blockHeaders");
  const id = requestId(r);
  const l = r.list("blockHeaders.headers");
  const headers: Uint8Array[] = [];
  const decoded: Header[] = [];
  while (l.hasMore()) {
    const it = l.item("blockHeaders.header");
    if (!it.list) throw new WireError("blockHeaders.header: expected a list");
    headers.push(it.raw);
    decoded.push(decodeHeader(it.raw));
  }
  r.finish("blockHeaders");
  return { code: EthMsg.BlockHeaders, requestId: id, headers, decoded };
}

function decodeBlockBodies(payload: Uint8Array): BlockBodies {
  const r = ListReader.whole(payload, "blockBodies");
  const id = requestId(r);
  const l = r.list("blockBodies.bodies");
  const bodies: Uint8Array[] = [];
  const decoded: BlockBody[] = [];
  while (l.hasMore()) {
    const it = l.item("blockBodies.body");
    if (!it.list) throw new WireError("blockBodies.body: expected a list");
    const body = decodeBody(it.raw);
    // Each tx must decode (geth decodes bodies into types.Transaction).
    for (const tx of body.transactions) decodeTx(tx);
    bodies.push(it.raw);
    decoded.push(body);
  }
  r.finish("blockBodies");
  return { code: EthMsg.BlockBodies, requestId: id, bodies, decoded };
}

function decodeNewPooledTransactionHashes(payload: Uint8Array): NewPooledTransactionHashes {
  const r = ListReader.whole(payload, "newPooledTransactionHashes");
  const types = r.bytes("announce.types");
  const sl = r.list("announce.sizes");
  const sizes: number[] = [];
  while (sl.hasMore()) sizes.push(Number(sl.bigint("announce.size", 4)));
  const hashes = readHashes(r, "announce.hashes");
  // SPEC (EIP-5793): exactly three elements of one length (geth handleNewPooledTransactionHashes).
  r.finish("newPooledTransactionHashes");
  if (types.length !== sizes.length || types.length !== hashes.length) {
    throw new WireError(`invalid len of fields: ${hashes.length} ${types.length} ${sizes.length}`);
  }
  return { code: EthMsg.NewPooledTransactionHashes, types, sizes, hashes };
}

/** One eth/68 receipt: a legacy list, or a byte string holding `type ‖ rlp([...])`. */
function readReceipt68(l: ListReader): Receipt {
  const it = l.item("receipt");
  if (it.list) return decodeReceipt(it.raw);
  if (it.payload.length < 2 || it.payload[0] >= 0x80) throw new WireError("receipt: not a typed receipt");
  return decodeReceipt(it.payload);
}

/** One eth/69 receipt: `[txType, postStateOrStatus, cumulativeGas, logs, deposit fields?]`, no bloom. */
function readReceipt69(l: ListReader): Receipt {
  const r = l.list("receipt");
  const type = r.safeInt("receipt.txType");
  if (type !== TxType.Legacy && !(type >= TxType.AccessList && type <= TxType.SetCode) && type !== TxType.Deposit) {
    throw new WireError(`receipt: unknown tx type ${type}`);
  }
  return readReceiptBody(r, type, false);
}

function decodeReceiptsMsg(version: EthVersion, payload: Uint8Array): Receipts {
  const r = ListReader.whole(payload, "receipts");
  const id = requestId(r);
  const outer = r.list("receipts.blocks");
  const receipts: Receipt[][] = [];
  const read = version === ETH68 ? readReceipt68 : readReceipt69;
  while (outer.hasMore()) {
    const l = outer.list("receipts.block");
    const block: Receipt[] = [];
    while (l.hasMore()) block.push(read(l));
    receipts.push(block);
  }
  r.finish("receipts");
  return { code: EthMsg.Receipts, requestId: id, receipts };
}

function decodeOrThrow(version: EthVersion, code: number, payload: Uint8Array): EthMessage | null {
  switch (code) {
    case EthMsg.Status:
      return decodeStatus(version, payload);
    case EthMsg.NewBlockHashes: {
      if (version !== ETH68) return null;
      const r = ListReader.whole(payload, "newBlockHashes");
      const entries: { hash: Uint8Array; number: number }[] = [];
      while (r.hasMore()) {
        const e = r.list("newBlockHashes.entry");
        const hash = e.fixed(32, "entry.hash");
        const number = e.safeInt("entry.number");
        e.finish("newBlockHashes.entry");
        entries.push({ hash, number });
      }
      return { code: EthMsg.NewBlockHashes, entries };
    }
    case EthMsg.Transactions:
      return { code: EthMsg.Transactions, txs: readTxList(ListReader.whole(payload, "transactions"), "transaction") };
    case EthMsg.GetBlockHeaders:
      return decodeGetBlockHeaders(payload);
    case EthMsg.BlockHeaders:
      return decodeBlockHeaders(payload);
    case EthMsg.GetBlockBodies:
      return readHashesRequest(EthMsg.GetBlockBodies, payload, "getBlockBodies");
    case EthMsg.BlockBodies:
      return decodeBlockBodies(payload);
    case EthMsg.NewBlock: {
      if (version !== ETH68) return null;
      const r = ListReader.whole(payload, "newBlock");
      const it = r.item("newBlock.block");
      if (!it.list) throw new WireError("newBlock.block: expected a list");
      const td = r.bigint("newBlock.td", 32);
      r.finish("newBlock");
      return { code: EthMsg.NewBlock, block: it.raw, td };
    }
    case EthMsg.NewPooledTransactionHashes:
      return decodeNewPooledTransactionHashes(payload);
    case EthMsg.GetPooledTransactions:
      return readHashesRequest(EthMsg.GetPooledTransactions, payload, "getPooledTransactions");
    case EthMsg.PooledTransactions: {
      const r = ListReader.whole(payload, "pooledTransactions");
      const id = requestId(r);
      const txs = readTxList(r.list("pooledTransactions.txs"), "pooledTransaction");
      r.finish("pooledTransactions");
      return { code: EthMsg.PooledTransactions, requestId: id, txs };
    }
    case EthMsg.GetReceipts:
      return readHashesRequest(EthMsg.GetReceipts, payload, "getReceipts");
    case EthMsg.Receipts:
      return decodeReceiptsMsg(version, payload);
    case EthMsg.BlockRangeUpdate: {
      if (version !== ETH69) return null;
      const r = ListReader.whole(payload, "blockRangeUpdate");
      const earliest = r.safeInt("blockRangeUpdate.earliest");
      const latest = r.safeInt("blockRangeUpdate.latest");
      const latestHash = r.fixed(32, "blockRangeUpdate.latestHash");
      r.finish("blockRangeUpdate");
      return { code: EthMsg.BlockRangeUpdate, earliest, latest, latestHash };
    }
    default:
      return null;
  }
}

/**
 * Decodes one `eth` message of `version`. Never throws: oversized input answers `message too long`,
 * a code the version does not define `invalid message code`, and bytes that do not decode
 * `invalid message: <detail>` (geth errMsgTooLarge, errInvalidMsgCode, errDecode).
 */
export function decodeEthMessage(version: EthVersion, code: number, payload: Uint8Array): EthMessage | EthDecodeError {
  if (payload.length > MAX_MESSAGE_SIZE) {
    return { error: true, code, reason: `message too long: ${payload.length} > ${MAX_MESSAGE_SIZE}` };
  }
  try {
    const m = decodeOrThrow(version, code, payload);
    if (m === null) return { error: true, code, reason: `invalid message code: ${code}` };
    return m;
  } catch (e) {
    if (e instanceof RlpError || e instanceof BlockError || e instanceof TxError || e instanceof WireError) {
      return { error: true, code, reason: `invalid message: code ${code}: ${e.message}` };
    }
    // Anything else is a bug in a decoder; still never let peer bytes crash the node.
    return { error: true, code, reason: `invalid message: code ${code}: ${String(e)}` };
  }
}
