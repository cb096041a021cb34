/**
 * RLP encode/decode of a block: a header and 200 EIP-1559 transfers from the eth-transfers workload
 * (about a mainnet-sized block), against @ethereumjs/rlp as the library baseline.
 */
import { RLP } from "@ethereumjs/rlp";
import { hexToBytes } from "../../src/primitives/hex.js";
import { decodeRlp, type RlpItem } from "../../src/rlp/decode.js";
import { encodeRlp, type RlpInput } from "../../src/rlp/encode.js";
import { type BenchRow, loadWorkload, measure } from "../lib.js";

export async function run(): Promise<BenchRow[]> {
  const w = loadWorkload("eth-transfers");
  const txs = w.blocks[0]!.transactions.slice(0, 200).map(hexToBytes);
  // A Cancun header's shape: 20 fields of their real widths.
  const header: RlpInput = [
    new Uint8Array(32).fill(1),
    new Uint8Array(32).fill(2),
    new Uint8Array(20).fill(3),
    new Uint8Array(32).fill(4),
    new Uint8Array(32).fill(5),
    new Uint8Array(32).fill(6),
    new Uint8Array(256),
    new Uint8Array(0),
    Uint8Array.of(0x01, 0x2c, 0x4a, 0x11),
    Uint8Array.of(0x01, 0xc9, 0xc3, 0x80),
    Uint8Array.of(0x00, 0xe4, 0xe1, 0xc0).subarray(1),
    Uint8Array.of(0x65, 0x53, 0xf1, 0x02),
    new Uint8Array(0),
    new Uint8Array(32).fill(7),
    new Uint8Array(8),
    Uint8Array.of(0x34, 0x27, 0x70, 0xc0),
    new Uint8Array(32).fill(8),
    new Uint8Array(0),
    new Uint8Array(0),
    new Uint8Array(32).fill(9),
  ];
  // In a block body a typed tx is a byte string holding type ‖ payload.
  const block: RlpInput = [header, txs, [], []];
  const bytes = encodeRlp(block);
  const toInput = (i: RlpItem): RlpInput => (Array.isArray(i) ? i.map(toInput) : i);
  const decoded = toInput(decodeRlp(bytes));

  return measure("rlp", [
    { name: `encode block, 200 txs, ${bytes.length} B (opal)`, fn: () => encodeRlp(decoded) },
    {
      name: "encode block (@ethereumjs/rlp)",
      fn: () => RLP.encode(decoded as Uint8Array),
      baselineOf: `encode block, 200 txs, ${bytes.length} B (opal)`,
    },
    { name: `decode block, 200 txs, ${bytes.length} B (opal)`, fn: () => decodeRlp(bytes) },
    {
      name: "decode block (@ethereumjs/rlp)",
      fn: () => RLP.decode(bytes),
      baselineOf: `decode block, 200 txs, ${bytes.length} B (opal)`,
    },
  ]);
}
