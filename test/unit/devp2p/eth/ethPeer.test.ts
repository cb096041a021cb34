/**
 * The eth protocol over real chains: Status building and the EIP-2124 filter, serving from a
 * Blockchain within geth's limits, two EthPeers back to back over an in-memory session (handshake,
 * fork-id refusal, headers/bodies/receipts, garbage and lying peers dropped, timeouts and the
 * concurrency limit), and tx announce → fetch → pool.
 */
import { strict as assert } from "node:assert";
import { encodeHeader, headerHash } from "../../../../src/block/header.js";
import type { Blockchain } from "../../../../src/chain/blockchain.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { EthHandshakeError, EthPeer, EthRequestError } from "../../../../src/devp2p/eth/ethPeer.js";
import {
  decodeEthMessage,
  ETH68,
  ETH69,
  EthMsg,
  type EthVersion,
  encodeBlockHeaders,
  encodeStatus,
  isDecodeError,
} from "../../../../src/devp2p/eth/messages.js";
import { EthServer, MAX_HEADERS_SERVE } from "../../../../src/devp2p/eth/server.js";
import {
  FORKID_LOCAL_INCOMPATIBLE,
  FORKID_REMOTE_STALE,
  ForkFilter,
  StatusProvider,
} from "../../../../src/devp2p/eth/status.js";
import { TX_ARRIVE_TIMEOUT_MS, TxBroadcaster, TxFetcher, wireTxHash } from "../../../../src/devp2p/eth/txAnnounce.js";
import { DisconnectReason } from "../../../../src/devp2p/rlpx/p2pMessages.js";
import { crc32 } from "../../../../src/primitives/crc32.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import {
  blockRlp,
  extend,
  GENESIS,
  ManualTimers,
  type MemSession,
  newChain,
  sessionPair,
  settle,
  transfer,
} from "./fixtures.js";

function be32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n >>> 0);
  return b;
}

interface Side {
  chain: Blockchain;
  peer: EthPeer;
  session: MemSession;
}

function pair(
  version: EthVersion,
  a: Blockchain,
  b: Blockchain,
  extra: { timers?: ManualTimers; maxConcurrentRequests?: number } = {},
): [Side, Side] {
  const [sa, sb] = sessionPair();
  const mk = (chain: Blockchain, session: MemSession): Side => ({
    chain,
    session,
    peer: new EthPeer(
      { version, maxConcurrentRequests: extra.maxConcurrentRequests },
      {
        session,
        status: new StatusProvider(chain),
        server: new EthServer({ store: chain.store, pool: null }),
        timers: extra.timers,
      },
    ),
  });
  return [mk(a, sa), mk(b, sb)];
}

describe("devp2p/eth", function () {
  this.timeout(120_000);
  let source: Blockchain;

  before(() => {
    source = newChain();
    extend(source, 12, 2);
  });

  describe("status", () => {
    it("builds both forms from the chain: chain id as network id, genesis, fork id, block range", () => {
      const p = new StatusProvider(source);
      const s68 = p.status(ETH68);
      const s69 = p.status(ETH69);
      const genesis = source.store.canonicalHash(0)!;
      assert.equal(s68.networkId, 901n);
      assert.equal(bytesToHex(s68.genesis), bytesToHex(genesis));
      assert.ok(s68.form === ETH68 && bytesToHex(s68.head) === bytesToHex(source.headBlockHash));
      assert.ok(s69.form === ETH69 && s69.earliest === 0 && s69.latest === 12);
      // Every fork at genesis: the fork id is the bare CRC-32 of the genesis hash, no next fork.
      assert.equal(bytesToHex(s69.forkId.hash), bytesToHex(be32(crc32(genesis))));
      assert.equal(s69.forkId.next, 0);
      assert.equal(p.validate(ETH69, s69), null);
      assert.equal(p.validate(ETH68, s69)?.code, "PROTOCOL_VERSION_MISMATCH");
      assert.equal(p.validate(ETH68, { ...s68, networkId: 10n })?.message, "network ID mismatch: 10 (!= 901)");
      assert.match(
        p.validate(ETH68, { ...s68, genesis: new Uint8Array(32) })?.message ?? "",
        /^genesis mismatch: 0{64} \(!= /,
      );
      assert.equal(
        p.validate(ETH69, { ...s69, earliest: 5, latest: 4 })?.message,
        "invalid block range in status: earliest > latest",
      );
    });

    it("EIP-2124 filter: geth's rules 1a, 2, 3 and 4 (mainnet-like block forks)", () => {
      // EIP-2124's mainnet vectors: Frontier genesis with Homestead 1150000, DAO 1920000, Tangerine 2463000.
      const genesis = Uint8Array.from(
        Buffer.from("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3", "hex"),
      );
      const f = new ForkFilter(genesis, { blocks: [1150000, 1920000, 2463000], times: [] });
      const id = (hash: number, next: number) => ({ hash: be32(hash), next });
      // Local at Homestead (block 1150000+): same state, remote announces DAO → ok.
      assert.equal(f.check(id(0x97c2c34c, 1920000), 1500000, 0), null);
      // Rule 1a: remote announces a fork we already passed without knowing it.
      assert.equal(f.check(id(0x97c2c34c, 1400000), 1500000, 0), FORKID_LOCAL_INCOMPATIBLE);
      // Rule 2: remote is behind (Frontier) and knows Homestead next → ok; wrong next → stale.
      assert.equal(f.check(id(0xfc64ec04, 1150000), 2000000, 0), null);
      assert.equal(f.check(id(0xfc64ec04, 0), 2000000, 0), FORKID_REMOTE_STALE);
      // Rule 3: remote ahead (Tangerine) while we are at Homestead → ok (we are syncing).
      assert.equal(f.check(id(0x7a64da13, 0), 1500000, 0), null);
      // Rule 4: unknown checksum.
      assert.equal(f.check(id(0xafec6b27, 0), 1500000, 0), FORKID_LOCAL_INCOMPATIBLE);
    });
  });

  describe("server", () => {
    it("headers by number and hash, forward, reverse and with skip; unknown origins answer empty", () => {
      const s = new EthServer({ store: source.store, pool: null });
      const num = (rlps: Uint8Array[]) => rlps.map((r) => source.store.header(keccak256(r))!.number);
      assert.deepEqual(num(s.headers({ origin: 2n, amount: 4n, skip: 0n, reverse: false })), [2, 3, 4, 5]);
      assert.deepEqual(num(s.headers({ origin: 10n, amount: 4n, skip: 2n, reverse: true })), [10, 7, 4, 1]);
      const h5 = source.store.canonicalHash(5)!;
      assert.deepEqual(num(s.headers({ origin: h5, amount: 3n, skip: 1n, reverse: false })), [5, 7, 9]);
      assert.deepEqual(num(s.headers({ origin: h5, amount: 10n, skip: 0n, reverse: true })), [5, 4, 3, 2, 1, 0]);
      assert.deepEqual(num(s.headers({ origin: 11n, amount: 10n, skip: 0n, reverse: false })), [11, 12]);
      assert.equal(s.headers({ origin: new Uint8Array(32), amount: 1n, skip: 0n, reverse: false }).length, 0);
      assert.equal(s.headers({ origin: 2n ** 64n - 1n, amount: 1n, skip: 0n, reverse: false }).length, 0);
      assert.deepEqual(num(s.headers({ origin: 1n, amount: 5n, skip: 2n ** 64n - 1n, reverse: false })), [1]);
    });

    it(`caps headers at maxHeadersServe (${MAX_HEADERS_SERVE}) and skips unknown bodies/receipts`, () => {
      const long = newChain();
      extend(long, MAX_HEADERS_SERVE + 10, 0);
      const s = new EthServer({ store: long.store, pool: null });
      assert.equal(s.headers({ origin: 0n, amount: 5000n, skip: 0n, reverse: false }).length, MAX_HEADERS_SERVE);
      const hashes = [long.store.canonicalHash(3)!, new Uint8Array(32), long.store.canonicalHash(4)!];
      assert.equal(s.bodies(hashes).length, 2);
      assert.equal(s.receipts(ETH69, hashes).length, 2);
    });
  });

  describe("peers back to back", () => {
    for (const version of [ETH68, ETH69] as const) {
      it(`eth/${version}: handshake, then headers, bodies and receipts from a real chain`, async () => {
        const fresh = newChain();
        const [a, b] = pair(version, fresh, source);
        const [sa, sb] = await Promise.all([a.peer.handshake(), b.peer.handshake()]);
        assert.equal(sa.version, version);
        assert.equal(sb.version, version);
        if (version === ETH69) assert.equal(a.peer.range?.latest, 12);

        const hs = await a.peer.requestHeaders({ origin: 1, amount: 12 });
        assert.equal(hs.headers.length, 12);
        const hashes = hs.rlp.map((r) => keccak256(r));
        assert.equal(bytesToHex(hashes[11]), bytesToHex(source.headBlockHash));
        const back = await a.peer.requestHeaders({ origin: source.headBlockHash, amount: 3, reverse: true });
        assert.deepEqual(
          back.headers.map((h) => h.number),
          [12, 11, 10],
        );

        const bodies = await a.peer.requestBodies(hashes);
        assert.equal(bodies.bodies.length, 12);
        assert.equal(bodies.bodies[0].transactions.length, 3);
        const receipts = await a.peer.requestReceipts(hashes);
        assert.equal(receipts.length, 12);
        for (let i = 0; i < 12; i++) {
          const stored = source.store.receipts(hashes[i])!;
          assert.deepEqual(receipts[i], stored);
        }
        // The deposit receipt (Canyon+) keeps its nonce and version over the wire.
        assert.equal(receipts[0][0].type, 0x7e);
        assert.equal(receipts[0][0].depositReceiptVersion, 1);

        // What was fetched imports into the fresh chain.
        for (let n = 1; n <= 12; n++) {
          const r = fresh.insertBlock(blockRlp(source, n));
          assert.equal(r.status, "VALID", r.error ?? "");
          fresh.setHead(r.hash);
        }
        assert.equal(bytesToHex(fresh.head.stateRoot), bytesToHex(source.head.stateRoot));
        assert.equal(bytesToHex(headerHash(fresh.head)), bytesToHex(source.headBlockHash));
      });
    }

    it("a fork-id mismatch is refused with geth's reason", async () => {
      // Same genesis; we scheduled Interop at t=20 and passed it, the remote knows no such fork.
      const cfg = structuredClone(GENESIS) as { config: Record<string, unknown> };
      cfg.config.interopTime = 20;
      const ahead = newChain(cfg);
      extend(ahead, 8, 0); // head time 16 + 16 = 32 ≥ 20
      const other = newChain();
      assert.equal(bytesToHex(other.store.canonicalHash(0)!), bytesToHex(ahead.store.canonicalHash(0)!));
      const [a, b] = pair(ETH69, ahead, other);
      const ra = a.peer.handshake();
      const rb = b.peer.handshake();
      const refused = (want: string) => (e: unknown) => {
        assert.ok(e instanceof EthHandshakeError);
        assert.equal(e.reason, DisconnectReason.SubprotocolError);
        assert.equal(e.message, want);
        return true;
      };
      // Whichever side reads first disconnects; geth's texts on each side (rule 2 / rule 4).
      const results = await Promise.allSettled([ra, rb]);
      assert.ok(results.every((r) => r.status === "rejected"));
      const detail = a.session.disconnected?.detail ?? b.session.disconnected?.detail;
      assert.ok(
        detail === "fork ID rejected: remote needs update" ||
          detail === "fork ID rejected: local incompatible or needs update",
        detail,
      );
      if (a.session.disconnected !== null) await assert.rejects(ra, refused("fork ID rejected: remote needs update"));
      else await assert.rejects(rb, refused("fork ID rejected: local incompatible or needs update"));
    });

    it("a peer that never sends Status is dropped on the handshake timeout", async () => {
      const timers = new ManualTimers();
      const [sa] = sessionPair();
      const peer = new EthPeer(
        { version: ETH69 },
        { session: sa, status: new StatusProvider(source), server: null, timers },
      );
      const hs = peer.handshake();
      timers.fire(5000);
      await assert.rejects(
        hs,
        (e: unknown) => e instanceof EthHandshakeError && e.reason === DisconnectReason.PingTimeout,
      );
      assert.equal(sa.disconnected?.reason, DisconnectReason.PingTimeout);
    });

    /** A remote end we script by hand: it answers Status, then whatever `reply` returns. */
    async function scripted(
      reply: (code: number, payload: Uint8Array) => { code: number; payload: Uint8Array } | null,
      timers?: ManualTimers,
      maxConcurrentRequests?: number,
    ): Promise<{ peer: EthPeer; mine: MemSession; theirs: MemSession }> {
      const [mine, theirs] = sessionPair();
      const status = new StatusProvider(source);
      theirs.onMessage((code, payload) => {
        if (code === EthMsg.Status) {
          theirs.send(EthMsg.Status, encodeStatus(status.status(ETH69)));
          return;
        }
        const r = reply(code, payload);
        if (r !== null) theirs.send(r.code, r.payload);
      });
      const peer = new EthPeer(
        { version: ETH69, maxConcurrentRequests },
        { session: mine, status, server: null, timers },
      );
      await peer.handshake();
      return { peer, mine, theirs };
    }

    const requestIdOf = (code: number, payload: Uint8Array): bigint => {
      const m = decodeEthMessage(ETH69, code, payload);
      assert.ok(!isDecodeError(m) && "requestId" in m);
      return m.requestId;
    };

    it("a peer answering garbage is disconnected and the request fails", async () => {
      const { peer, mine } = await scripted((code, payload) => {
        const id = requestIdOf(code, payload);
        // [id, [0xdead]]: a header that is not a list.
        return { code: EthMsg.BlockHeaders, payload: encodeBlockHeaders(id, [Uint8Array.of(0x82, 0xde, 0xad)]) };
      });
      await assert.rejects(peer.requestHeaders({ origin: 1, amount: 1 }), EthRequestError);
      assert.equal(mine.disconnected?.reason, DisconnectReason.SubprotocolError);
      assert.match(mine.disconnected?.detail ?? "", /^invalid message: code 4/);
    });

    it("a peer lying about headers (wrong origin) is disconnected with the reason", async () => {
      const { peer, mine } = await scripted((code, payload) => {
        const id = requestIdOf(code, payload);
        return { code: EthMsg.BlockHeaders, payload: encodeBlockHeaders(id, [encodeHeader(source.head)]) };
      });
      await assert.rejects(peer.requestHeaders({ origin: 3, amount: 1 }), (e: unknown) => {
        return e instanceof EthRequestError && e.kind === "bad-response";
      });
      assert.equal(mine.disconnected?.detail, "headers response does not start at the requested origin");
    });

    it("unrequested responses drop the peer; timeouts reject and free the slot for queued requests", async () => {
      const timers = new ManualTimers();
      const { peer, mine, theirs } = await scripted(() => null, timers, 1);
      const first = peer.requestHeaders({ origin: 1, amount: 1 });
      const second = peer.requestHeaders({ origin: 2, amount: 1 });
      second.catch(() => undefined); // settles when the peer is dropped below
      await settle();
      const asked = () => mine.sent.filter((m) => m.code === EthMsg.GetBlockHeaders).length;
      assert.equal(asked(), 1, "concurrency limit 1: the second waits");
      timers.fire(1);
      await assert.rejects(first, (e: unknown) => e instanceof EthRequestError && e.kind === "timeout");
      await settle();
      assert.equal(asked(), 2, "the queued request went out when the slot freed");
      // A late answer to the timed-out request is ignored; a made-up id is not.
      const firstId = requestIdOf(
        EthMsg.GetBlockHeaders,
        mine.sent.filter((m) => m.code === EthMsg.GetBlockHeaders)[0].payload,
      );
      theirs.send(EthMsg.BlockHeaders, encodeBlockHeaders(firstId, []));
      await settle();
      assert.equal(mine.disconnected, null);
      theirs.send(EthMsg.BlockHeaders, encodeBlockHeaders(firstId + 1000n, []));
      await settle();
      assert.match((mine.disconnected as { detail: string } | null)?.detail ?? "", /^unrequested response/);
      await assert.rejects(second, (e: unknown) => e instanceof EthRequestError && e.kind === "closed");
    });

    it("post-merge block announcements drop an eth/68 peer", async () => {
      const [a, b] = pair(ETH68, newChain(), source);
      await Promise.all([a.peer.handshake(), b.peer.handshake()]);
      b.session.send(EthMsg.NewBlockHashes, Uint8Array.of(0xc0));
      await settle();
      assert.equal(a.session.disconnected?.detail, "block announcements disallowed");
    });
  });

  describe("tx propagation", () => {
    function gossipSide(chain: Blockchain, session: MemSession, now: () => number, disable = false) {
      const pool = new TxPool({}, { chain });
      const broadcaster = new TxBroadcaster({ disableTxPoolGossip: disable });
      const holder: { peer?: EthPeer } = {};
      const fetcher = new TxFetcher(
        { disableTxPoolGossip: disable },
        {
          now,
          isKnown: (h) => pool.has(h),
          addTxs: (txs) => pool.add(txs),
          fetchTxs: (_id, hashes) => holder.peer?.fetchPooledTxs(hashes),
          dropPeer: (_id, reason) => holder.peer?.misbehaved(reason),
        },
      );
      const txQueue = broadcaster.addPeer(session.id, (code, payload) => session.send(code, payload));
      holder.peer = new EthPeer(
        { version: ETH69, disableTxPoolGossip: disable },
        {
          session,
          status: new StatusProvider(chain),
          server: new EthServer({ store: chain.store, pool }),
          fetcher,
          txQueue,
        },
      );
      return { pool, broadcaster, fetcher, peer: holder.peer };
    }

    async function twoNodes(disableB = false) {
      let clock = 1_000;
      const now = () => clock;
      const a = newChain();
      extend(a, 1, 0);
      const b = newChain();
      b.setHead(b.insertBlock(blockRlp(a, 1)).hash);
      const [sa, sb] = sessionPair();
      const A = gossipSide(a, sa, now);
      const B = gossipSide(b, sb, now, disableB);
      await Promise.all([A.peer.handshake(), B.peer.handshake()]);
      return { A, B, advance: (ms: number) => (clock += ms), sa, sb };
    }

    it("a large tx is announced, fetched after the arrive timeout, and lands in the remote pool", async () => {
      const { A, B, advance } = await twoNodes();
      const big = transfer(0, new Uint8Array(5000)); // over 4 KiB: announced, never broadcast in full
      const [res] = await A.pool.add([big]);
      assert.equal(res.error, null);
      const p = A.pool.get(res.hash!)!;
      A.broadcaster.broadcast([{ hash: p.hash, type: p.tx.type, encoded: p.encoded, sender: p.sender }]);
      await settle();
      assert.equal(B.fetcher.stats.waiting, 1);
      assert.equal(B.pool.has(p.hash), false);
      advance(TX_ARRIVE_TIMEOUT_MS);
      B.fetcher.step();
      await settle();
      assert.equal(B.pool.has(p.hash), true);
      assert.deepEqual(B.fetcher.stats, { waiting: 0, queued: 0, fetching: 0, requests: 0 });
      assert.equal(bytesToHex(wireTxHash(encodeTx(big))), bytesToHex(p.hash));
    });

    it("a small tx goes in full to √n peers (here the one peer) and is not sent back", async () => {
      const { A, B, sb } = await twoNodes();
      const [res] = await A.pool.add([transfer(0)]);
      const p = A.pool.get(res.hash!)!;
      A.broadcaster.broadcast([{ hash: p.hash, type: p.tx.type, encoded: p.encoded }]);
      await settle();
      assert.equal(B.pool.has(p.hash), true);
      // B knows A has it (A sent it): B's broadcast skips A.
      B.broadcaster.broadcast([{ hash: p.hash, type: p.tx.type, encoded: p.encoded }]);
      assert.equal(sb.sent.filter((m) => m.code === EthMsg.Transactions).length, 0);
    });

    it("--rollup.disabletxpoolgossip: no tx in, none served, none out", async () => {
      const { A, B, sb, advance } = await twoNodes(true);
      const [res] = await A.pool.add([transfer(0)]);
      const p = A.pool.get(res.hash!)!;
      A.broadcaster.broadcast([{ hash: p.hash, type: p.tx.type, encoded: p.encoded }]);
      await settle();
      advance(TX_ARRIVE_TIMEOUT_MS);
      B.fetcher.step();
      await settle();
      assert.equal(B.pool.has(p.hash), false);
      const [own] = await B.pool.add([transfer(0)]);
      B.broadcaster.broadcast([{ hash: own.hash!, type: 2, encoded: B.pool.get(own.hash!)!.encoded }]);
      assert.equal(
        sb.sent.filter((m) => m.code === EthMsg.Transactions || m.code === EthMsg.NewPooledTransactionHashes).length,
        0,
      );
      // B serves no pooled txs even when asked (op-geth's NilPool).
      const served = await A.peer.requestPooledTxs([own.hash!]);
      assert.equal(served.length, 0);
      assert.equal(B.peer.closed, null);
    });
  });
});
