/**
 * Which payloads each Engine API method version serves, by the fork of the payload's (or payload
 * attributes') timestamp, and the error outside that window: execution-apis src/engine shanghai.md,
 * cancun.md, prague.md and osaka.md (each fork's methods and its "Update the methods of previous
 * forks"), with the codes and texts of geth eth/catalyst/api.go (v1.17.5: the `checkFork` lists of
 * ForkchoiceUpdatedV1–V3, NewPayloadV2–V4 and GetPayloadV2–V5). Opal knows no fork after Osaka, so
 * Osaka here also stands for the blob-parameter-only forks BPO1–BPO5, which geth lists beside it.
 *
 * OP chains map their forks onto L1's (Canyon Shanghai, Ecotone Cancun, Isthmus Prague, Karst Osaka)
 * and call getPayloadV4 from Isthmus on and V5 from Karst (rollup/engine/engineClient.ts). op-reth
 * keeps serving getPayloadV4 after Karst: its OpChainSpec schedules no Ethereum Osaka (SPEC: op-reth
 * crates/chainspec/src/lib.rs `From<Genesis>` maps only Shanghai/Cancun/Prague to OP forks, mantle-v2
 * c19ebc83), so reth's `validate_payload_timestamp` never sees `is_osaka` there and its "V4 getPayload
 * after Osaka" refusal does not fire. So on OP chains getPayloadV4 serves Isthmus and every later fork.
 */
import { Fork } from "../spec/forks.js";

/** An Engine API refusal: code, message and geth's `data.err` when it gives one. */
export interface WindowError {
  readonly code: number;
  readonly message: string;
  readonly data?: { readonly err: string };
}

const UNSUPPORTED_FORK = -38005;
const INVALID_PARAMS = -32602;

/** geth `unsupportedForkErr(msg)`: "Unsupported fork" with the reason in `data.err`. */
function unsupported(err: string): WindowError {
  return { code: UNSUPPORTED_FORK, message: "Unsupported fork", data: { err } };
}

/** geth `paramsErr(msg)`, worded as Opal words every -32602 of the engine: "invalid params: …". */
function invalidParams(detail: string): WindowError {
  return { code: INVALID_PARAMS, message: `invalid params: ${detail}` };
}

const within = (fork: Fork, from: Fork, to: Fork): boolean => fork >= from && fork <= to;

/**
 * engine_forkchoiceUpdatedV1–V3 with payload attributes whose timestamp falls in `fork` (checked
 * after the attribute fields, as geth does). V1 answers geth's -32602, V2 and V3 -38005.
 */
export function forkchoiceWindowError(version: number, fork: Fork): WindowError | null {
  switch (version) {
    case 1:
      // SPEC: geth ForkchoiceUpdatedV1: checkFork(Paris, Shanghai) → paramsErr.
      return within(fork, Fork.Paris, Fork.Shanghai) ? null : invalidParams("fcuV1 called post-shanghai");
    case 2:
      // SPEC: cancun.md "Update the methods of previous forks": fcuV2 refuses Cancun and later.
      return within(fork, Fork.Paris, Fork.Shanghai)
        ? null
        : unsupported("fcuV2 must only be called with paris or shanghai payloads");
    default:
      // SPEC: cancun.md fcuV3 (Cancun), prague.md "Cancun or Prague"; geth adds Osaka and the BPOs.
      return within(fork, Fork.Cancun, Fork.Osaka)
        ? null
        : unsupported("fcuV3 must only be called for cancun/prague/osaka payloads");
  }
}

/**
 * engine_newPayloadV1–V4 for a payload of `fork`. V1 has no window (geth checks only its fields); V2
 * after Cancun is geth's -32602 (the spec asks -38005 there; geth, the client op-geth follows,
 * answers invalid params, before its field checks); V3 serves Cancun, V4 Prague and Osaka (Osaka
 * defines no newPayloadV5: SPEC osaka.md).
 */
export function newPayloadWindowError(version: number, fork: Fork): WindowError | null {
  switch (version) {
    case 1:
      return null;
    case 2:
      return fork >= Fork.Cancun ? invalidParams("can't use newPayloadV2 post-cancun") : null;
    case 3:
      return fork === Fork.Cancun ? null : unsupported("newPayloadV3 must only be called for cancun payloads");
    default:
      return within(fork, Fork.Prague, Fork.Osaka)
        ? null
        : unsupported("newPayloadV4 must only be called for prague/osaka payloads");
  }
}

/**
 * engine_getPayloadV1–V5 for a built payload of `fork`: geth's bare -38005 (no `data`). V1 has no
 * window; V2 serves Paris and Shanghai, V3 Cancun, V4 Prague (osaka.md: refused from Osaka on; on OP
 * chains every fork from Isthmus, see above), V5 Osaka.
 */
export function getPayloadWindowError(version: number, fork: Fork, op: boolean): WindowError | null {
  let ok: boolean;
  switch (version) {
    case 1:
      ok = true;
      break;
    case 2:
      ok = within(fork, Fork.Paris, Fork.Shanghai);
      break;
    case 3:
      ok = fork === Fork.Cancun;
      break;
    case 4:
      ok = op ? fork >= Fork.Prague : fork === Fork.Prague;
      break;
    default:
      ok = fork >= Fork.Osaka;
  }
  return ok ? null : { code: UNSUPPORTED_FORK, message: "Unsupported fork" };
}

/**
 * The payload id versions (its first byte, the forkchoiceUpdated version that started the build)
 * each getPayload version takes; geth refuses any other with a bare -38005 before it looks the id
 * up (SPEC: geth getPayload `payloadID.Is(versions...)`: V1 PayloadV1, V2 PayloadV1/V2, V3–V5
 * PayloadV3).
 */
export function payloadIdVersionOk(version: number, idVersion: number): boolean {
  if (version === 1) return idVersion === 1;
  if (version === 2) return idVersion === 1 || idVersion === 2;
  return idVersion === 3;
}
