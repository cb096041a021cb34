/** The `web3` namespace: geth's web3API (client version, keccak256 of the input). */
import { keccak256 } from "../crypto/keccak.js";
import { bytesToHex } from "../primitives/hex.js";
import { data } from "./params.js";
import { type AnyMethod, defineMethod } from "./registry.js";

export interface Web3Deps {
  readonly clientVersion: string;
}

export function web3Api(deps: Web3Deps): AnyMethod[] {
  return [
    defineMethod({ name: "web3_clientVersion", params: [], handler: () => deps.clientVersion }),
    defineMethod({ name: "web3_sha3", params: [data], handler: ([input]) => bytesToHex(keccak256(input)) }),
  ];
}
