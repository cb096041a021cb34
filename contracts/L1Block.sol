// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title L1Block (Opal predeploy at 0x4200000000000000000000000000000000000015)
/// @notice Holds the attributes of the L2 chain's current L1 origin. The first transaction of every
///         L2 block, a deposit from the depositor account, writes them here; the execution client
///         reads the fee parameters from this contract's storage to charge the L1 data fee and the
///         operator fee. Written for Opal against the public ABI and storage layout of the OP Stack
///         L1Block (op-stack.md §2.9, §3.3, §3.8); the layout below is consensus-relevant and must
///         not change:
///
///         slot 0: number u64 (offset 0) | timestamp u64 (offset 8)
///         slot 1: basefee
///         slot 2: hash
///         slot 3: sequenceNumber u64 (offset 0) | blobBaseFeeScalar u32 (8) | baseFeeScalar u32 (12)
///         slot 4: batcherHash
///         slot 5: l1FeeOverhead (Bedrock format only)
///         slot 6: l1FeeScalar (Bedrock format only)
///         slot 7: blobBaseFee
///         slot 8: operatorFeeConstant u64 (offset 0) | operatorFeeScalar u32 (8) | daFootprintGasScalar u16 (12)
contract L1Block {
    /// @notice Raised by the packed setters when the caller is not the depositor account.
    error NotDepositor();

    address private constant DEPOSITOR = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;

    /// @notice The placeholder address that stands for ether as the gas-paying token.
    address private constant ETHER = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    // ---- storage (order = layout; see the table above) ----

    uint64 public number;
    uint64 public timestamp;
    uint256 public basefee;
    bytes32 public hash;
    uint64 public sequenceNumber;
    uint32 public blobBaseFeeScalar;
    uint32 public baseFeeScalar;
    bytes32 public batcherHash;
    uint256 public l1FeeOverhead;
    uint256 public l1FeeScalar;
    uint256 public blobBaseFee;
    uint64 public operatorFeeConstant;
    uint32 public operatorFeeScalar;
    uint16 public daFootprintGasScalar;

    /// @notice The account allowed to write the L1 attributes.
    function DEPOSITOR_ACCOUNT() external pure returns (address) {
        return DEPOSITOR;
    }

    function version() external pure returns (string memory) {
        return "1.0.0+opal";
    }

    /// @notice This chain pays gas in ether: the token is the ether placeholder with 18 decimals.
    function gasPayingToken() external pure returns (address addr_, uint8 decimals_) {
        return (ETHER, 18);
    }

    function gasPayingTokenName() external pure returns (string memory) {
        return "Ether";
    }

    function gasPayingTokenSymbol() external pure returns (string memory) {
        return "ETH";
    }

    function isCustomGasToken() external pure returns (bool) {
        return false;
    }

    /// @notice Bedrock-format update (ABI-encoded arguments, selector 0x015d8eb9). Leaves the
    ///         Ecotone scalars, the blob base fee and the operator fee parameters as they were.
    function setL1BlockValues(
        uint64 _number,
        uint64 _timestamp,
        uint256 _basefee,
        bytes32 _hash,
        uint64 _sequenceNumber,
        bytes32 _batcherHash,
        uint256 _l1FeeOverhead,
        uint256 _l1FeeScalar
    ) external {
        require(msg.sender == DEPOSITOR, "L1Block: only the depositor account can set L1 block values");
        number = _number;
        timestamp = _timestamp;
        basefee = _basefee;
        hash = _hash;
        sequenceNumber = _sequenceNumber;
        batcherHash = _batcherHash;
        l1FeeOverhead = _l1FeeOverhead;
        l1FeeScalar = _l1FeeScalar;
    }

    /// @notice Ecotone-format update: no ABI arguments, the values are packed big-endian in the
    ///         calldata after the selector (op-stack.md §2.9):
    ///         [4,8) baseFeeScalar, [8,12) blobBaseFeeScalar, [12,20) sequenceNumber,
    ///         [20,28) timestamp, [28,36) number, [36,68) basefee, [68,100) blobBaseFee,
    ///         [100,132) hash, [132,164) batcherHash.
    function setL1BlockValuesEcotone() external {
        _writePacked();
    }

    /// @notice Isthmus-format update: the Ecotone layout, then [164,168) operatorFeeScalar and
    ///         [168,176) operatorFeeConstant. Clears the DA footprint scalar.
    function setL1BlockValuesIsthmus() external {
        _writePacked();
        assembly {
            // The 12 bytes at 164 read as one 96-bit number are scalar << 64 | constant: exactly
            // slot 8's constant (offset 0) and scalar (offset 8) fields.
            sstore(operatorFeeConstant.slot, shr(160, calldataload(164)))
        }
    }

    /// @notice Jovian-format update: the Isthmus layout, then [176,178) daFootprintGasScalar.
    function setL1BlockValuesJovian() external {
        _writePacked();
        assembly {
            let fees := shr(160, calldataload(164))
            let da := shr(240, calldataload(176))
            sstore(operatorFeeConstant.slot, or(shl(96, da), fees))
        }
    }

    /// @dev The fields shared by the packed formats. Each 16-byte group of the calldata, read as a
    ///      128-bit number, is already the slot word: [4,20) is baseFeeScalar << 96 |
    ///      blobBaseFeeScalar << 64 | sequenceNumber (slot 3) and [20,36) is timestamp << 64 |
    ///      number (slot 0).
    function _writePacked() private {
        if (msg.sender != DEPOSITOR) revert NotDepositor();
        assembly {
            sstore(sequenceNumber.slot, shr(128, calldataload(4)))
            sstore(number.slot, shr(128, calldataload(20)))
            sstore(basefee.slot, calldataload(36))
            sstore(blobBaseFee.slot, calldataload(68))
            sstore(hash.slot, calldataload(100))
            sstore(batcherHash.slot, calldataload(132))
        }
    }
}
