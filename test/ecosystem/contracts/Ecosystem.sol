// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// The ecosystem tests' contracts (test/ecosystem/). Compiled by compile.mjs beside this file into
/// compiled.ts; nothing compiles at test time.

/// A value, its setter and an event; and two reads whose answers the tests recompute on their own.
contract Store {
    uint256 public value;

    event ValueSet(address indexed setter, uint256 indexed previous, uint256 value);

    constructor(uint256 initial) {
        value = initial;
    }

    function set(uint256 v) external {
        emit ValueSet(msg.sender, value, v);
        value = v;
    }

    /// `a * b mod m` without overflow (a 512-bit product), and keccak256(abi.encode(value, tag)).
    function mix(uint256 a, uint256 b, uint256 m, string calldata tag)
        external
        view
        returns (uint256 product, bytes32 digest)
    {
        product = mulmod(a, b, m);
        digest = keccak256(abi.encode(value, tag));
    }

    /// The call's context: its sender, the chain, the block it runs in, the sender's balance there.
    function context() external view returns (address sender, uint256 chainId, uint256 number, uint256 balance) {
        return (msg.sender, block.chainid, block.number, msg.sender.balance);
    }
}

/// A reason string and a custom error, in a call and in a write.
contract Reverter {
    error Unauthorized(address caller, uint256 code);

    uint256 public writes;

    function ok() external pure returns (uint256) {
        return 7;
    }

    function failWithReason() external pure {
        revert("Reverter: reason string");
    }

    function failWithCustomError() external view {
        revert Unauthorized(msg.sender, 42);
    }

    function writeOrRevert(uint256 v) external {
        require(v != 0, "Reverter: zero");
        writes += v;
    }
}
