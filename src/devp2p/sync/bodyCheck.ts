/**
 * Does a body a peer sent belong to its header? The commitments a header makes to its body — the
 * tx root, the ommers hash, the withdrawals root (none before Shanghai; an empty list on OP, whose
 * root from Isthmus is the L2ToL1MessagePasser storage root, checked at execution) — checked before
 * execution, so a lying peer is told apart from an invalid block (geth downloader `queue.DeliverBodies`
 * hash checks, reth `validate_body_against_header`). Returns null or the mismatch.
 */
import type { BlockBody } from "../../block/block.js";
import { encodeHeader, type Header } from "../../block/header.js";
import { encodeWithdrawal } from "../../block/withdrawal.js";
import { keccak256 } from "../../crypto/keccak.js";
import { equalBytes } from "../../primitives/bytes.js";
import { encodeRlpListOfEncoded } from "../../rlp/encode.js";
import { type ChainConfig, rulesAt } from "../../spec/chainConfig.js";
import { OpFork } from "../../spec/forks.js";
import { orderedTrieRoot } from "../../trie/orderedRoot.js";

export function bodyMismatch(cfg: ChainConfig, header: Header, body: BlockBody): string | null {
  if (!equalBytes(orderedTrieRoot(body.transactions), header.transactionsRoot)) return "transactions root";
  if (!equalBytes(keccak256(encodeRlpListOfEncoded(body.ommers.map(encodeHeader))), header.ommersHash)) {
    return "ommers hash";
  }
  if (header.withdrawalsRoot === null) return body.withdrawals === null ? null : "withdrawals before Shanghai";
  if (body.withdrawals === null) return "withdrawals missing";
  if (cfg.optimism !== null) {
    if (body.withdrawals.length > 0) return "withdrawals on L2";
    const op = rulesAt(cfg, header.number, header.timestamp).op;
    if (op !== null && op >= OpFork.Isthmus) return null;
  }
  return equalBytes(orderedTrieRoot(body.withdrawals.map(encodeWithdrawal)), header.withdrawalsRoot)
    ? null
    : "withdrawals root";
}
