import { strict as assert } from "node:assert";
import { Fork } from "../../../src/spec/forks.js";
import { calldataTokens, floorDataGas, intrinsicGas } from "../../../src/tx/intrinsicGas.js";
import { accessListTx, blobTx, depositTx, feeMarketTx, KEY_A, legacy, setCodeTx, TO } from "./builders.js";

const data = Uint8Array.of(0, 0, 1, 2, 3); // 2 zero, 3 non-zero

describe("tx/intrinsicGas", () => {
  it("call: 21000 + 4/zero + 68/non-zero, 16/non-zero from Istanbul (EIP-2028)", () => {
    const tx = legacy({ data });
    assert.equal(intrinsicGas(tx, Fork.Frontier), 21000 + 2 * 4 + 3 * 68);
    assert.equal(intrinsicGas(tx, Fork.Petersburg), 21000 + 2 * 4 + 3 * 68);
    assert.equal(intrinsicGas(tx, Fork.Istanbul), 21000 + 2 * 4 + 3 * 16);
    assert.equal(intrinsicGas(legacy({ data: new Uint8Array(0) }), Fork.Cancun), 21000);
  });

  it("creation: +32000 from Homestead, +2 per initcode word from Shanghai (EIP-3860)", () => {
    const create = legacy({ to: null, data: new Uint8Array(33).fill(1) });
    const words = 2;
    assert.equal(intrinsicGas(create, Fork.Frontier), 21000 + 33 * 68);
    assert.equal(intrinsicGas(create, Fork.Homestead), 53000 + 33 * 68);
    assert.equal(intrinsicGas(create, Fork.Paris), 53000 + 33 * 16);
    assert.equal(intrinsicGas(create, Fork.Shanghai), 53000 + 33 * 16 + 2 * words);
    assert.equal(intrinsicGas(legacy({ to: null, data: new Uint8Array(32) }), Fork.Shanghai), 53000 + 32 * 4 + 2);
    assert.equal(intrinsicGas(legacy({ to: null, data: new Uint8Array(0) }), Fork.Shanghai), 53000);
  });

  it("access list: 2400 per address, 1900 per storage key (EIP-2930)", () => {
    const tx = accessListTx({
      accessList: [
        { address: TO, storageKeys: [KEY_A, KEY_A] },
        { address: TO, storageKeys: [] },
      ],
    });
    assert.equal(intrinsicGas(tx, Fork.Berlin), 21000 + 2 * 2400 + 2 * 1900);
    assert.equal(intrinsicGas(feeMarketTx({ accessList: [], data: new Uint8Array(0) }), Fork.London), 21000);
    assert.equal(intrinsicGas(blobTx(), Fork.Cancun), 21000);
  });

  it("EIP-7702: 25000 per authorization", () => {
    const one = setCodeTx();
    const auth = one.authorizationList[0];
    assert.equal(intrinsicGas(one, Fork.Prague), 21000 + 25000);
    assert.equal(intrinsicGas(setCodeTx({ authorizationList: [auth, auth, auth] }), Fork.Prague), 21000 + 75000);
  });

  it("deposits use the same formula (charged in execution)", () => {
    assert.equal(intrinsicGas(depositTx(), Fork.Cancun), 21000 + 4 * 16);
  });

  it("EIP-7623 floor: 21000 + 10 × (zero + 4 × non-zero)", () => {
    assert.equal(calldataTokens(data), 2 + 12);
    assert.equal(floorDataGas(legacy({ data })), 21000 + 140);
    assert.equal(floorDataGas(legacy({ data: new Uint8Array(0) })), 21000);
    // Creation cost is not part of the floor.
    assert.equal(floorDataGas(legacy({ to: null, data })), 21000 + 140);
  });
});
