/**
 * The source hash of a deposit transaction, `keccak256(bytes32(uint256(domain)) ‖ payload)`, with
 * one domain per origin so that no two kinds of deposit can share a hash (SPEC:
 * specs/protocol/deposits.md "Source hash computation"; op-node rollup/derive/deposit_source.go).
 * Every place that makes a deposit computes its source hash here:
 *
 * | domain | origin                           | payload (32 bytes)                               | made in                          |
 * |--------|----------------------------------|--------------------------------------------------|----------------------------------|
 * | 0      | user deposit (L1 portal log)     | keccak256(l1BlockHash ‖ bytes32(l1LogIndex))     | rollup/derive/depositLog.ts      |
 * | 1      | L1-attributes deposit            | keccak256(l1BlockHash ‖ bytes32(seqNumber))      | tx/l1InfoDeposit.ts              |
 * | 2      | network-upgrade deposit          | keccak256(utf8(intent))                          | rollup/derive/upgradeTxs.ts      |
 * | 4      | interop optimistic-block deposit | the invalidated block's output root              | rollup/interop/replacement.ts    |
 *
 * Domain 3 was the interop "deposits-complete" deposit (specs #370, 2024-09), dropped with the
 * deposit context before the interop upgrade transactions were specified (specs #630,
 * 2025-03-17, "remove deposit context"): no spec revision that has the interop upgrade
 * transactions defines it, so nothing here makes it. Domain 4 is in specs/interop/derivation.md
 * up to specs #900 (2026-04-09), which replaced the optimistic-block deposit with Holocene
 * replacement; Opal's interop follows the 2025-05 revision (see upgradeTxs.ts).
 */
import { keccak256 } from "../crypto/keccak.js";
import { concatBytes } from "../primitives/bytes.js";
import { bigintToBytes32 } from "../primitives/u256.js";

/** The source-hash domains in use (see the table above). */
export const DepositSourceDomain = {
  User: 0n,
  L1Info: 1n,
  Upgrade: 2n,
  InvalidatedBlock: 4n,
} as const;
export type DepositSourceDomain = (typeof DepositSourceDomain)[keyof typeof DepositSourceDomain];

/** keccak256(bytes32(uint256(domain)) ‖ payload). `payload` is the domain's 32-byte value. */
export function depositSourceHash(domain: DepositSourceDomain, payload: Uint8Array): Uint8Array {
  return keccak256(concatBytes(bigintToBytes32(domain), payload));
}
