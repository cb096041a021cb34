/**
 * Signing with the node's keys (src/rpc/eth/sign.ts), through the eth API as opal-exec builds it
 * (node/exec/execNode.ts `coreApis`) on a dev chain:
 * - EIP-712 against published vectors: the EIP's Mail example (encodeType, typeHash, hashStruct,
 *   domain separator, digest, and the Cow key's signature), MetaMask eth-sig-util's v4 fixtures
 *   (bytes, recursive types with missing structs, arrays of structs, a 2-D int array with negative
 *   values) and viem's `typedData.basic` / `typedData.complex` signed by anvil's account 0 (the
 *   domain type derived from the domain's fields; nested structs, a fixed string[3], uint8, bool);
 * - EIP-191: viem's "hello world" signature by anvil's account 0, for personal_sign and eth_sign;
 * - eth_signTransaction: viem's published EIP-1559 signature of anvil's account 0, geth's required
 *   fields and errors, a legacy tx signed with EIP-155; eth_fillTransaction: nonce, fees and gas
 *   filled, the unsigned tx's bytes;
 * - every signature recovers (ethers' recoverAddress / Transaction, not Opal's code) to the signer;
 *   an address without a key is geth's "unknown account"; without keys personal_sign and
 *   eth_signTypedData_v4 are not served.
 */
import { strict as assert } from "node:assert";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { decodeRlp, recoverAddress, Transaction, TypedDataEncoder } from "ethers";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { devAccounts, l1DevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { coreApis } from "../../../../src/node/exec/execNode.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { encodeType, hashStruct, parseTypedData, typedDataHash } from "../../../../src/rpc/eth/sign.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { TxPool } from "../../../../src/txpool/txPool.js";

const hexOf = (b: Uint8Array): string => `0x${Buffer.from(b).toString("hex")}`;
const keccakText = (s: string): Uint8Array => keccak_256(new TextEncoder().encode(s));
const utf8Hex = (s: string): string => hexOf(new TextEncoder().encode(s));

const ANVIL0 = devAccounts(1)[0]!;
const ANVIL0_ADDR = hexOf(ANVIL0.address);
/** EIP-712's example signer: the key keccak256("cow"), address 0xCD2a…D826. */
const COW_KEY = keccakText("cow");
const COW_ADDR = "0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826";

// ---- published vectors ----

/** EIP-712 (eips.ethereum.org/EIPS/eip-712, Example.js and its test). */
const MAIL = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  domain: {
    name: "Ether Mail",
    version: "1",
    chainId: 1,
    verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
  },
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
  },
};
const MAIL_VECTORS = {
  encodeType: "Mail(Person from,Person to,string contents)Person(string name,address wallet)",
  typeHash: "0xa0cedeb2dc280ba39b857546d74f5549c3a1d7bdc2dd96bf881f76108e23dac2",
  hashStruct: "0xc52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e",
  domainSeparator: "0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f",
  digest: "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2",
  signature:
    "0x4355c47d63924e8a72e509b65029052eb6c299d53a04e167c5775fd466751c9d07299936d304c153f6443dfa05f40ff007d72911b6f72307f996231605b915621c",
};

/** MetaMask eth-sig-util `signTypedData` V4 fixtures (as the typed data's JSON text, and the digest). */
const DOMAIN_TYPE =
  '"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}]';
const ETHER_MAIL =
  '"domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"}';
const V4_VECTORS: readonly { name: string; json: string; digest: string }[] = [
  {
    name: "bytes",
    json: `{"types":{${DOMAIN_TYPE},"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"},{"name":"payload","type":"bytes"}]},"primaryType":"Mail",${ETHER_MAIL},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!","payload":"0x25192142931f380985072cdd991e37f65cf8253ba7a0e675b54163a1d133b8ca"}}`,
    digest: "0xb4aaf457227fec401db772ec22d2095d1235ee5d0833f56f59108c9ffc90fb4b",
  },
  {
    name: "recursive types, missing structs",
    json: `{"types":{${DOMAIN_TYPE},"Person":[{"name":"name","type":"string"},{"name":"mother","type":"Person"},{"name":"father","type":"Person"}]},"domain":{"name":"Family Tree","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},"primaryType":"Person","message":{"name":"Jon","mother":{"name":"Lyanna","father":{"name":"Rickard"}},"father":{"name":"Rhaegar","father":{"name":"Aeris II"}}}}`,
    digest: "0x807773b9faa9879d4971b43856c4d60c2da15c6f8c062bd9d33afefb756de19c",
  },
  {
    name: "arrays of structs and addresses",
    json: `{"types":{${DOMAIN_TYPE},"Person":[{"name":"name","type":"string"},{"name":"wallets","type":"address[]"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person[]"},{"name":"contents","type":"string"}],"Group":[{"name":"name","type":"string"},{"name":"members","type":"Person[]"}]},${ETHER_MAIL},"primaryType":"Mail","message":{"from":{"name":"Cow","wallets":["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826","0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"]},"to":[{"name":"Bob","wallets":["0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB","0xB0BdaBea57B0BDABeA57b0bdABEA57b0BDabEa57","0xB0B0b0b0b0b0B000000000000000000000000000"]}],"contents":"Hello, Bob!"}}`,
    digest: "0xa85c2e2b118698e88db68a8105b794a8cc7cec074e89ef991cb4f5f533819cc2",
  },
  {
    name: "a 2-D int array with negative values",
    json: `{"types":{${DOMAIN_TYPE},"Person":[{"name":"name","type":"string"},{"name":"wallets","type":"address[]"},{"name":"logo_matrix","type":"int[][]"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person[]"},{"name":"contents","type":"string"}],"Group":[{"name":"name","type":"string"},{"name":"members","type":"Person[]"}]},${ETHER_MAIL},"primaryType":"Mail","message":{"from":{"name":"Cow","wallets":["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826","0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"],"logo_matrix":[[0,255],[-255,-1]]},"to":[{"name":"Bob","wallets":["0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB","0xB0BdaBea57B0BDABeA57b0bdABEA57b0BDabEa57","0xB0B0b0b0b0b0B000000000000000000000000000"],"logo_matrix":[[0,0],[0,0]]}],"contents":"Hello, Bob!"}}`,
    digest: "0x5370bb332dbe5d922832f1654d01b5d42cbbfd7bb999e939836f4a40a12a8bd4",
  },
];

/** viem src/_test/constants.ts `typedData` (no EIP712Domain type: derived from the domain). */
const VIEM_BASIC = {
  domain: {
    name: "Ether Mail",
    version: "1",
    chainId: 1,
    verifyingContract: "0x0000000000000000000000000000000000000000",
  },
  types: { Person: MAIL.types.Person, Mail: MAIL.types.Mail },
  primaryType: "Mail",
  message: MAIL.message,
};
/** viem's test: signTypedData(basic) by accounts[0] (anvil's first key), local and json-rpc alike. */
const VIEM_BASIC_SIGNATURE =
  "0x32f3d5975ba38d6c2fba9b95d5cbed1febaa68003d3d588d51f2de522ad54117760cfc249470a75232552e43991f53953a3d74edf6944553c6bef2469bb9e5921b";
const VIEM_COMPLEX = {
  domain: {
    name: "Ether Mail 🥵",
    version: "1.1.1",
    chainId: 1,
    verifyingContract: "0x0000000000000000000000000000000000000000",
  },
  types: {
    Name: [
      { name: "first", type: "string" },
      { name: "last", type: "string" },
    ],
    Person: [
      { name: "name", type: "Name" },
      { name: "wallet", type: "address" },
      { name: "favoriteColors", type: "string[3]" },
      { name: "foo", type: "uint256" },
      { name: "age", type: "uint8" },
      { name: "isCool", type: "bool" },
    ],
    Mail: [
      { name: "timestamp", type: "uint256" },
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
      { name: "hash", type: "bytes" },
    ],
  },
  primaryType: "Mail",
  // viem sends bigints as decimal strings.
  message: {
    timestamp: "1234567890",
    contents: "Hello, Bob! 🖤",
    hash: "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef",
    from: {
      name: { first: "Cow", last: "Burns" },
      wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826",
      age: 69,
      foo: "123123123123123123",
      favoriteColors: ["red", "green", "blue"],
      isCool: false,
    },
    to: {
      name: { first: "Bob", last: "Builder" },
      wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB",
      age: 70,
      foo: "123123123123123123",
      favoriteColors: ["orange", "yellow", "green"],
      isCool: true,
    },
  },
};
/** viem's tests: the digest of `complex` (sign.test.ts) and its signature by accounts[0] (verifyTypedData.test.ts). */
const VIEM_COMPLEX_DIGEST = "0x9a74cb859ad30835ffb2da406423233c212cf6dd78e6c2c98b0c9289568954ae";
const VIEM_COMPLEX_SIGNATURE =
  "0xc4d8bcda762d35ea79d9542b23200f46c2c1899db15bf929bbacaf609581db0831538374a01206517edd934e474212a0f1e2d62e9a01cd64f1cf94ea2e0988491c";
/** viem's tests: signMessage("hello world") by accounts[0], and its EIP-191 hash. */
const HELLO_SIGNATURE =
  "0xa461f509887bd19e312c0c58467ce8ff8e300d3c1a90b608a760c5b80318eaf15fe57c96f9175d6cd4daad4663763baa7e78836e067d0163e9a2ccf2ff753f5b1b";
const HELLO_HASH = "0xd9eba16ed0ecae432b71fe008c98cc872bb4cc214d3220a36f365326cf807d68";
/**
 * viem's tests: accounts[0] signing {chainId 1, nonce 0, maxFeePerGas 20 gwei, tip 0, gas 21000, to
 * accounts[1], 1 ether} as EIP-1559.
 */
const VIEM_1559_RAW =
  "0x02f86f0180808504a817c8008252089470997970c51812dc3a010c7d01b50e0d17dc79c8880de0b6b3a764000080c001a0f40a2d2ae9638056cafbe9083c7125edc8555e0e715db0984dd859a5c6dfac57a020f36fd0b32bef4d6d75c62f220e59c5fb60c244ca3b361e750985ee5c3a0931";

// ---- a dev chain's eth API ----

interface Node {
  readonly chain: Blockchain;
  readonly d: Dispatcher;
}

function node(keys: readonly { address: Uint8Array; privateKey: Uint8Array }[], chainId = 1337): Node {
  const g = l1DevGenesis(30_000_000n);
  (g.config as Record<string, unknown>).chainId = chainId;
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
  const pool = new TxPool({}, { chain });
  const apis = coreApis({
    chain,
    pool,
    networkId: BigInt(chainId),
    clientVersion: "opal/test",
    gasCap: 50_000_000n,
    txFeeCap: 1,
    evmTimeoutMs: 5000,
    devAccounts: keys,
    forwardRawTx: null,
  });
  return { chain, d: new Registry(apis.methods).forApis(["eth", "net", "web3"]) };
}

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

async function rpc(
  n: Node,
  method: string,
  params: unknown[],
): Promise<{ result?: any; error?: { code: number; message: string } }> {
  const text = await n.d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), HTTP);
  return JSON.parse(text as string);
}

async function ok(n: Node, method: string, params: unknown[]): Promise<any> {
  const r = await rpc(n, method, params);
  assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r.error)}`);
  return r.result;
}

const KEYS = [
  ...devAccounts(2),
  { address: Uint8Array.from(Buffer.from(COW_ADDR.slice(2), "hex")), privateKey: COW_KEY },
];
const UNKNOWN = `0x${"12".repeat(20)}`;

describe("rpc/eth sign: EIP-712 hashing against published vectors", () => {
  it("the EIP's Mail example: encodeType, typeHash, hashStruct, domain separator, digest", () => {
    const t = parseTypedData(MAIL);
    assert.equal(encodeType("Mail", t.types), MAIL_VECTORS.encodeType);
    assert.equal(hexOf(keccakText(encodeType("Mail", t.types))), MAIL_VECTORS.typeHash);
    assert.equal(hexOf(hashStruct("Mail", t.message, t.types)), MAIL_VECTORS.hashStruct);
    assert.equal(hexOf(hashStruct("EIP712Domain", t.domain, t.types)), MAIL_VECTORS.domainSeparator);
    assert.equal(hexOf(typedDataHash(t)), MAIL_VECTORS.digest);
  });

  for (const v of V4_VECTORS) {
    it(`eth-sig-util v4: ${v.name}`, () => {
      assert.equal(hexOf(typedDataHash(parseTypedData(v.json))), v.digest);
    });
  }

  it("viem's complex typed data (derived domain type, nested structs, string[3], uint8, bool, bytes)", () => {
    assert.equal(hexOf(typedDataHash(parseTypedData(VIEM_COMPLEX))), VIEM_COMPLEX_DIGEST);
  });

  it("ethers' TypedDataEncoder agrees on viem's basic typed data (domain type derived from its fields)", () => {
    const mine = hexOf(typedDataHash(parseTypedData(VIEM_BASIC)));
    assert.equal(mine, TypedDataEncoder.hash(VIEM_BASIC.domain, VIEM_BASIC.types, VIEM_BASIC.message));
  });

  it("refuses malformed typed data: an unknown type, a wrong fixed-array length, an out-of-range integer, a missing atomic value", () => {
    const bad = (mutate: (t: any) => void): void => {
      const t = JSON.parse(JSON.stringify(VIEM_COMPLEX));
      mutate(t);
      assert.throws(() => typedDataHash(parseTypedData(t)));
    };
    bad((t) => {
      t.types.Mail[0].type = "uint257";
    });
    bad((t) => {
      t.message.from.favoriteColors.pop();
    });
    bad((t) => {
      t.message.from.age = 256;
    });
    bad((t) => {
      delete t.message.contents;
    });
    bad((t) => {
      t.primaryType = "Nope";
    });
  });
});

describe("rpc/eth sign: the dev keys sign over the eth API", () => {
  const n = node(KEYS);

  it("eth_accounts lists the keys the node holds", async () => {
    assert.deepEqual(
      await ok(n, "eth_accounts", []),
      KEYS.map((k) => hexOf(k.address)),
    );
  });

  it("eth_signTypedData_v4: the EIP's Cow signature; viem's signatures by anvil's account 0 (object and text forms)", async () => {
    assert.equal(await ok(n, "eth_signTypedData_v4", [COW_ADDR, MAIL]), MAIL_VECTORS.signature);
    assert.equal(await ok(n, "eth_signTypedData_v4", [ANVIL0_ADDR, JSON.stringify(VIEM_BASIC)]), VIEM_BASIC_SIGNATURE);
    const sig = await ok(n, "eth_signTypedData_v4", [ANVIL0_ADDR, JSON.stringify(VIEM_COMPLEX)]);
    assert.equal(sig, VIEM_COMPLEX_SIGNATURE);
    assert.equal(recoverAddress(VIEM_COMPLEX_DIGEST, sig).toLowerCase(), ANVIL0_ADDR);
    for (const v of V4_VECTORS) {
      const s = await ok(n, "eth_signTypedData_v4", [ANVIL0_ADDR, v.json]);
      assert.equal(recoverAddress(v.digest, s).toLowerCase(), ANVIL0_ADDR, v.name);
    }
  });

  it("personal_sign and eth_sign: viem's 'hello world' signature by anvil's account 0 (v 27/28)", async () => {
    const data = utf8Hex("hello world");
    const personal = await ok(n, "personal_sign", [data, ANVIL0_ADDR]);
    assert.equal(personal, HELLO_SIGNATURE);
    assert.equal(await ok(n, "eth_sign", [ANVIL0_ADDR, data]), HELLO_SIGNATURE);
    assert.equal(recoverAddress(HELLO_HASH, personal).toLowerCase(), ANVIL0_ADDR);
    const other = await ok(n, "personal_sign", [utf8Hex("opal"), hexOf(KEYS[1]!.address)]);
    assert.ok(other.endsWith("1b") || other.endsWith("1c"));
  });

  it("an address without a key: geth's 'unknown account' from every signing method", async () => {
    const tx = {
      from: UNKNOWN,
      to: ANVIL0_ADDR,
      gas: "0x5208",
      maxFeePerGas: "0x3b9aca00",
      maxPriorityFeePerGas: "0x1",
      nonce: "0x0",
    };
    for (const [method, params] of [
      ["eth_sign", [UNKNOWN, "0x01"]],
      ["personal_sign", ["0x01", UNKNOWN]],
      ["eth_signTypedData_v4", [UNKNOWN, MAIL]],
      ["eth_signTransaction", [tx]],
    ] as const) {
      assert.deepEqual(
        (await rpc(n, method, params as unknown as unknown[])).error,
        { code: -32000, message: "unknown account" },
        method,
      );
    }
  });
});

describe("rpc/eth sign: eth_signTransaction and eth_fillTransaction (geth SignTransaction, FillTransaction)", () => {
  it("signs viem's EIP-1559 vector byte for byte on chain 1; answers {raw, tx} in geth's shape", async () => {
    const n = node(KEYS, 1);
    const to = hexOf(devAccounts(2)[1]!.address);
    const r = await ok(n, "eth_signTransaction", [
      {
        from: ANVIL0_ADDR,
        to,
        value: "0xde0b6b3a7640000",
        gas: "0x5208",
        maxFeePerGas: "0x4a817c800",
        maxPriorityFeePerGas: "0x0",
        nonce: "0x0",
      },
    ]);
    assert.equal(r.raw, VIEM_1559_RAW);
    const parsed = Transaction.from(r.raw);
    assert.equal(parsed.from?.toLowerCase(), ANVIL0_ADDR);
    assert.deepEqual(r.tx, {
      type: "0x2",
      chainId: "0x1",
      nonce: "0x0",
      to,
      gas: "0x5208",
      gasPrice: null,
      maxPriorityFeePerGas: "0x0",
      maxFeePerGas: "0x4a817c800",
      value: "0xde0b6b3a7640000",
      input: "0x",
      accessList: [],
      v: `0x${parsed.signature!.yParity.toString(16)}`,
      r: `0x${BigInt(parsed.signature!.r).toString(16)}`,
      s: `0x${BigInt(parsed.signature!.s).toString(16)}`,
      yParity: `0x${parsed.signature!.yParity.toString(16)}`,
      hash: hexOf(keccak_256(Buffer.from(r.raw.slice(2), "hex"))),
    });
  });

  it("a gasPrice makes a legacy tx, signed with EIP-155 (chain id in v)", async () => {
    const n = node(KEYS);
    const r = await ok(n, "eth_signTransaction", [
      { from: ANVIL0_ADDR, to: UNKNOWN, gas: "0x5208", gasPrice: "0x3b9aca00", nonce: "0x7", value: "0x1" },
    ]);
    const parsed = Transaction.from(r.raw);
    assert.equal(parsed.type, 0);
    assert.equal(parsed.chainId, 1337n);
    assert.equal(parsed.nonce, 7);
    assert.equal(parsed.from?.toLowerCase(), ANVIL0_ADDR);
    assert.equal(r.tx.type, "0x0");
    assert.equal(r.tx.chainId, "0x539");
    assert.equal(r.tx.maxFeePerGas, null);
    assert.equal("accessList" in r.tx, false);
    assert.equal("yParity" in r.tx, false);
    assert.equal(BigInt(r.tx.v), 1337n * 2n + 35n + BigInt(parsed.signature!.yParity));
  });

  it("geth's refusals: gas, fees and nonce required; the chain id must be the node's; the fee cap", async () => {
    const n = node(KEYS);
    const base = {
      from: ANVIL0_ADDR,
      to: UNKNOWN,
      gas: "0x5208",
      maxFeePerGas: "0x3b9aca00",
      maxPriorityFeePerGas: "0x1",
      nonce: "0x0",
    };
    const err = async (over: Record<string, unknown>, drop?: string): Promise<string | undefined> => {
      const args: Record<string, unknown> = { ...base, ...over };
      if (drop !== undefined) delete args[drop];
      return (await rpc(n, "eth_signTransaction", [args])).error?.message;
    };
    assert.equal(await err({}, "gas"), "gas not specified");
    assert.equal(await err({}, "maxFeePerGas"), "missing gasPrice or maxFeePerGas/maxPriorityFeePerGas");
    assert.equal(await err({}, "nonce"), "nonce not specified");
    assert.equal(await err({ chainId: "0x5" }), "chainId does not match node's (have=5, want=1337)");
    assert.equal(
      await err({ maxFeePerGas: "0x1", maxPriorityFeePerGas: "0x2" }),
      "maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)",
    );
    assert.equal(await err({ maxFeePerGas: "0x0", maxPriorityFeePerGas: "0x0" }), "maxFeePerGas must be non-zero");
    // 1,000,000 gas at 10,000 gwei: 10 ether over the default 1 ether cap.
    assert.equal(
      await err({ gas: "0xf4240", maxFeePerGas: "0x9184e72a000" }),
      "tx fee (10.00 ether) exceeds the configured cap (1.00 ether)",
    );
  });

  it("eth_fillTransaction fills nonce, fees and gas and answers the unsigned tx; no key needed", async () => {
    const n = node([]);
    const from = hexOf(devAccounts(2)[1]!.address);
    const r = await ok(n, "eth_fillTransaction", [{ from, to: ANVIL0_ADDR, value: "0x1" }]);
    const head = n.chain.head;
    const tip = BigInt(await ok(n, "eth_maxPriorityFeePerGas", []));
    assert.equal(r.tx.type, "0x2");
    assert.equal(r.tx.nonce, "0x0");
    assert.equal(r.tx.gas, "0x5208", "a plain transfer estimates 21000");
    assert.equal(BigInt(r.tx.maxPriorityFeePerGas), tip);
    assert.equal(BigInt(r.tx.maxFeePerGas), tip + 2n * head.baseFeePerGas!);
    assert.equal(r.tx.chainId, "0x539");
    assert.deepEqual([r.tx.v, r.tx.r, r.tx.s], ["0x0", "0x0", "0x0"]);
    // The raw bytes: ethers' unsigned EIP-1559 encoding of the same fields, plus geth's three zero
    // signature items; the tx's hash is theirs.
    const unsigned = Transaction.from({
      type: 2,
      chainId: 1337n,
      nonce: 0,
      to: ANVIL0_ADDR,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: BigInt(r.tx.maxFeePerGas),
      maxPriorityFeePerGas: tip,
      data: "0x",
      accessList: [],
    }).unsignedSerialized;
    assert.equal(r.raw.slice(0, 4), "0x02");
    assert.deepEqual(decodeRlp(`0x${r.raw.slice(4)}`), [
      ...(decodeRlp(`0x${unsigned.slice(4)}`) as string[]),
      "0x",
      "0x",
      "0x",
    ]);
    assert.equal(r.tx.hash, hexOf(keccak_256(Buffer.from(r.raw.slice(2), "hex"))));
    assert.equal(
      (await rpc(n, "eth_fillTransaction", [{ from: UNKNOWN, value: "0x1" }])).error?.message,
      "contract creation without any data provided",
    );
    // geth ToTransaction: a gas price makes a legacy tx, with an access list an EIP-2930 one.
    const legacy = await ok(n, "eth_fillTransaction", [{ from, to: ANVIL0_ADDR, gasPrice: "0x3b9aca00" }]);
    assert.equal(legacy.tx.type, "0x0");
    const list = [{ address: ANVIL0_ADDR, storageKeys: [] }];
    const al = await ok(n, "eth_fillTransaction", [
      { from, to: ANVIL0_ADDR, gasPrice: "0x3b9aca00", accessList: list },
    ]);
    assert.equal(al.tx.type, "0x1");
    assert.equal(al.raw.slice(0, 4), "0x01");
    assert.equal(al.tx.gasPrice, "0x3b9aca00");
    // A key-less node serves neither personal_sign nor eth_signTypedData_v4; eth_sign finds no key.
    assert.equal((await rpc(n, "personal_sign", ["0x01", UNKNOWN])).error?.code, -32601);
    assert.equal((await rpc(n, "eth_signTypedData_v4", [UNKNOWN, MAIL])).error?.code, -32601);
    assert.equal((await rpc(n, "eth_sign", [UNKNOWN, "0x01"])).error?.message, "unknown account");
  });
});
