/** The batches crashChild.ts writes and crash.test.ts checks: batch i holds PER_TABLE keys i‖j per table. */
export const PER_TABLE = 200;

export function crashKey(batch: number, j: number): Uint8Array {
  const k = new Uint8Array(8);
  const view = new DataView(k.buffer);
  view.setUint32(0, batch);
  view.setUint32(4, j);
  return k;
}

export function crashValue(batch: number, j: number): Uint8Array {
  const v = new Uint8Array(32);
  for (let i = 0; i < 32; i++) v[i] = (batch * 7 + j * 13 + i) & 0xff;
  return v;
}
