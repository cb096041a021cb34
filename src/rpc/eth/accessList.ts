/**
 * eth_createAccessList (geth internal/ethapi/api.go `AccessList`): the call runs with the
 * access-list tracer (evm/tracers/accessListTracer.ts) seeded with the list so far, until a run
 * adds nothing; the sender, the recipient (the new contract's address for a creation), the fork's
 * precompiles and the authorities of valid EIP-7702 authorizations never enter it as addresses.
 */

import { keccak256 } from "../../crypto/keccak.js";
import { createAddress } from "../../evm/evm.js";
import { precompileTable } from "../../evm/precompiles/table.js";
import { AccessListTracer } from "../../evm/tracers/accessListTracer.js";
import { type CallMessage, callOnce } from "../../executor/simulate.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { MAX_U64 } from "../../primitives/u256.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { addressToBigint, bigintToAddress } from "../../state/worldState.js";
import { recoverAuthority } from "../../tx/authorization.js";
import type { Authorization } from "../../tx/tx.js";
import { RpcError } from "../errors.js";
import { qty } from "../format.js";
import type { BlockSelector } from "../params.js";
import type { EthBackend } from "./backend.js";
import { callMessage, checkFeeArgs, type TxArgs } from "./callArgs.js";

/**
 * Runs before "access list did not converge" (Opal's bound; geth loops until the request's context
 * ends). The list only grows, and each entry it gains raises the next run's intrinsic gas (EIP-2930:
 * 2400 per address, 1900 per key), so a call settles or is refused for gas within a few rounds.
 */
const MAX_ROUNDS = 16;

/** geth `params.CallNewAccountGas`: geth refuses more authorizations than the gas could pay this for each. */
const CALL_NEW_ACCOUNT_GAS = 25_000n;

export function createAccessList(
  be: EthBackend,
  args: TxArgs,
  sel: BlockSelector,
  stateOv: unknown,
): Record<string, JsonValue> {
  const feeErr = checkFeeArgs(args);
  if (feeErr !== null) throw RpcError.server(feeErr);
  const st = be.overridden(be.stateAt(sel), stateOv);
  const env = be.callEnv(st.header);
  const gas = be.callGas(args, st.header);
  const from = args.from ?? new Uint8Array(20);
  const nonce = args.nonce ?? new KvStateReader(st.view).account(keccak256(from))?.nonce ?? 0n;
  const to = args.to ?? bigintToAddress(createAddress(from, nonce));
  const excluded = new Set<bigint>([addressToBigint(from), addressToBigint(to)]);
  for (const id of precompileTable(env.rules).keys()) excluded.add(BigInt(id));
  const auths = args.authorizationList ?? [];
  if (BigInt(auths.length) > gas / CALL_NEW_ACCOUNT_GAS) {
    throw RpcError.server("insufficient gas to process all authorizations");
  }
  for (const a of auths) {
    const authority = validAuthority(a, env.chainId);
    if (authority !== null) excluded.add(authority);
  }
  let prev = new AccessListTracer(args.accessList ?? [], excluded);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const list = prev.accessList();
    const msg: CallMessage = { ...callMessage(args, gas), accessList: list };
    const tracer = new AccessListTracer(list, excluded);
    const r = callOnce(st.view, msg, gas, env, 0, tracer);
    if (typeof r === "string") {
      throw RpcError.server(
        `failed to apply transaction: err: ${be.rejectMessage(r, st.view, msg, gas, env)} (supplied gas ${gas})`,
      );
    }
    if (tracer.equals(prev)) {
      const out: Record<string, JsonValue> = {
        accessList: list.map((e) => ({
          address: bytesToHex(e.address),
          storageKeys: e.storageKeys.map((k) => bytesToHex(k)),
        })),
        gasUsed: qty(r.gasUsed),
      };
      if (r.status !== 1) out.error = r.error ?? "execution reverted";
      return out;
    }
    prev = tracer;
  }
  throw RpcError.server("access list did not converge");
}

/**
 * The authority of an authorization the tx would apply as far as geth's eth_createAccessList checks
 * (chain id 0 or the chain's, a nonce that can be bumped, a signature that recovers), else null.
 */
function validAuthority(a: Authorization, chainId: bigint): bigint | null {
  if ((a.chainId !== 0n && a.chainId !== chainId) || a.nonce >= MAX_U64) return null;
  const authority = recoverAuthority(a);
  return authority === null ? null : addressToBigint(authority);
}
