// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @dev The L1Block views this contract reads (contracts/L1Block.sol).
interface IL1BlockFees {
    function basefee() external view returns (uint256);
    function blobBaseFee() external view returns (uint256);
    function baseFeeScalar() external view returns (uint32);
    function blobBaseFeeScalar() external view returns (uint32);
    function l1FeeOverhead() external view returns (uint256);
    function l1FeeScalar() external view returns (uint256);
    function operatorFeeScalar() external view returns (uint32);
    function operatorFeeConstant() external view returns (uint64);
}

/// @title GasPriceOracle (Opal predeploy at 0x420000000000000000000000000000000000000F)
/// @notice Fee estimates for L2 transactions from the L1 attributes in the L1Block predeploy, with
///         the public ABI of the OP Stack GasPriceOracle (op-stack.md §3.8). Written for Opal.
///
///         `getL1Fee` takes the *unsigned* RLP/EIP-2718 encoding of a transaction and adds a
///         signature's worth of bytes, as the OP Stack oracle does:
///         - Bedrock (no flag set): `(calldataGas(data) + 68*16 + overhead) * l1BaseFee * scalar / 1e6`;
///         - Ecotone: `(calldataGas(data) + 68*16) * (16*l1BaseFee*baseFeeScalar + blobBaseFee*blobBaseFeeScalar) / 16e6`;
///         - Fjord+: `max(100e6, 836500*(flzLen(data) + 68) - 42585600) * (16*l1BaseFee*baseFeeScalar
///           + blobBaseFee*blobBaseFeeScalar) / 1e12`, flzLen the FastLZ level-1 compressed length.
///         The execution client charges the same formulas on the *signed* encoding without the
///         padding (op-stack.md §3.3), so the two agree exactly when the signature adds exactly
///         68 non-zero bytes (Bedrock/Ecotone) or 68 bytes of FastLZ output (Fjord), and whenever
///         both Fjord sizes fall under the 100-byte minimum.
///
///         Storage: slot 0 holds the fork flags isEcotone (offset 0), isFjord (1), isIsthmus (2),
///         isJovian (3). Each is set once, by the depositor account, in fork order.
contract GasPriceOracle {
    uint256 public constant DECIMALS = 6;

    address private constant DEPOSITOR = 0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001;
    IL1BlockFees private constant L1_BLOCK = IL1BlockFees(0x4200000000000000000000000000000000000015);

    /// @dev Fjord size model: estimatedSize * 1e6 = max(MIN_SIZE * 1e6, FLZ_COEF * flzLen + INTERCEPT).
    uint256 private constant FLZ_COEF = 836_500;
    uint256 private constant FLZ_INTERCEPT_NEG = 42_585_600;
    uint256 private constant MIN_SIZE_SCALED = 100_000_000;
    /// @dev The bytes a signature adds to an unsigned encoding, by the oracle's convention.
    uint256 private constant SIGNATURE_PADDING = 68;

    bool public isEcotone;
    bool public isFjord;
    bool public isIsthmus;
    bool public isJovian;

    function version() external pure returns (string memory) {
        return "1.0.0+opal";
    }

    // ---- fork flags ----

    function setEcotone() external {
        require(msg.sender == DEPOSITOR, "GasPriceOracle: only the depositor account can set isEcotone flag");
        require(!isEcotone, "GasPriceOracle: Ecotone already active");
        isEcotone = true;
    }

    function setFjord() external {
        require(msg.sender == DEPOSITOR, "GasPriceOracle: only the depositor account can set isFjord flag");
        require(isEcotone, "GasPriceOracle: Fjord can only be activated after Ecotone");
        require(!isFjord, "GasPriceOracle: Fjord already active");
        isFjord = true;
    }

    function setIsthmus() external {
        require(msg.sender == DEPOSITOR, "GasPriceOracle: only the depositor account can set isIsthmus flag");
        require(isFjord, "GasPriceOracle: Isthmus can only be activated after Fjord");
        require(!isIsthmus, "GasPriceOracle: Isthmus already active");
        isIsthmus = true;
    }

    function setJovian() external {
        require(msg.sender == DEPOSITOR, "GasPriceOracle: only the depositor account can set isJovian flag");
        require(isIsthmus, "GasPriceOracle: Jovian can only be activated after Isthmus");
        require(!isJovian, "GasPriceOracle: Jovian already active");
        isJovian = true;
    }

    // ---- plain views ----

    function decimals() external pure returns (uint256) {
        return DECIMALS;
    }

    /// @notice The L2 base fee.
    function gasPrice() external view returns (uint256) {
        return block.basefee;
    }

    /// @notice The L2 base fee.
    function baseFee() external view returns (uint256) {
        return block.basefee;
    }

    function l1BaseFee() public view returns (uint256) {
        return L1_BLOCK.basefee();
    }

    function blobBaseFee() public view returns (uint256) {
        return L1_BLOCK.blobBaseFee();
    }

    function baseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.baseFeeScalar();
    }

    function blobBaseFeeScalar() public view returns (uint32) {
        return L1_BLOCK.blobBaseFeeScalar();
    }

    /// @notice The Bedrock fee overhead; gone from Ecotone on.
    function overhead() public view returns (uint256) {
        require(!isEcotone, "GasPriceOracle: overhead() is deprecated");
        return L1_BLOCK.l1FeeOverhead();
    }

    /// @notice The Bedrock fee scalar; gone from Ecotone on.
    function scalar() public view returns (uint256) {
        require(!isEcotone, "GasPriceOracle: scalar() is deprecated");
        return L1_BLOCK.l1FeeScalar();
    }

    // ---- fees ----

    /// @notice The L1 data fee of a transaction, given its unsigned encoding (see the contract notes).
    function getL1Fee(bytes memory _data) external view returns (uint256) {
        if (isFjord) return _fjordFee(_flzLength(_data) + SIGNATURE_PADDING);
        uint256 gas = _paddedCalldataGas(_data);
        if (isEcotone) return (gas * _feePerByteScaled()) / (16 * 10 ** DECIMALS);
        return ((gas + L1_BLOCK.l1FeeOverhead()) * L1_BLOCK.basefee() * L1_BLOCK.l1FeeScalar()) / 10 ** DECIMALS;
    }

    /// @notice Deprecated L1 gas figure of an unsigned encoding: from Fjord the modelled size
    ///         times 16; before, the padded calldata gas (plus the overhead before Ecotone).
    function getL1GasUsed(bytes memory _data) external view returns (uint256) {
        if (isFjord) return (_fjordSizeScaled(_flzLength(_data) + SIGNATURE_PADDING) * 16) / 1e6;
        uint256 gas = _paddedCalldataGas(_data);
        if (isEcotone) return gas;
        return gas + L1_BLOCK.l1FeeOverhead();
    }

    /// @notice Fjord+: an upper bound of the L1 fee of a transaction whose unsigned encoding is
    ///         `_unsignedTxSize` bytes, taking the FastLZ length as `n + n/255 + 16` for n = size + 68.
    function getL1FeeUpperBound(uint256 _unsignedTxSize) external view returns (uint256) {
        require(isFjord, "GasPriceOracle: getL1FeeUpperBound only supports Fjord");
        uint256 n = _unsignedTxSize + SIGNATURE_PADDING;
        return _fjordFee(n + n / 255 + 16);
    }

    /// @notice The operator fee for `_gasUsed` gas: 0 before Isthmus;
    ///         Isthmus: `gas * operatorFeeScalar / 1e6 + operatorFeeConstant` (saturating at 2^256-1);
    ///         Jovian: `gas * operatorFeeScalar * 100 + operatorFeeConstant`.
    function getOperatorFee(uint256 _gasUsed) external view returns (uint256) {
        if (!isIsthmus) return 0;
        uint256 feeScalar = L1_BLOCK.operatorFeeScalar();
        uint256 feeConstant = L1_BLOCK.operatorFeeConstant();
        if (isJovian) return _gasUsed * feeScalar * 100 + feeConstant;
        uint256 scaled;
        unchecked {
            scaled = (feeScalar == 0 || _gasUsed <= type(uint256).max / feeScalar)
                ? (_gasUsed * feeScalar) / 1e6
                : type(uint256).max / 1e6;
            uint256 sum = scaled + feeConstant;
            return sum < scaled ? type(uint256).max : sum;
        }
    }

    // ---- internals ----

    /// @dev 16*l1BaseFee*baseFeeScalar + blobBaseFee*blobBaseFeeScalar: the Ecotone/Fjord price
    ///      of one byte, times 1e6.
    function _feePerByteScaled() private view returns (uint256) {
        return 16 * uint256(L1_BLOCK.baseFeeScalar()) * L1_BLOCK.basefee()
            + uint256(L1_BLOCK.blobBaseFeeScalar()) * L1_BLOCK.blobBaseFee();
    }

    function _fjordSizeScaled(uint256 flzLen) private pure returns (uint256) {
        uint256 size = FLZ_COEF * flzLen;
        // size - 42585600 < 100e6  <=>  size < 142585600 (no signed arithmetic needed).
        if (size < MIN_SIZE_SCALED + FLZ_INTERCEPT_NEG) return MIN_SIZE_SCALED;
        return size - FLZ_INTERCEPT_NEG;
    }

    function _fjordFee(uint256 flzLen) private view returns (uint256) {
        return (_fjordSizeScaled(flzLen) * _feePerByteScaled()) / 1e12;
    }

    /// @dev 4 gas per zero byte, 16 per other byte, plus 68 non-zero bytes for the signature.
    function _paddedCalldataGas(bytes memory data) private pure returns (uint256 gas) {
        gas = SIGNATURE_PADDING * 16;
        uint256 len = data.length;
        for (uint256 i = 0; i < len; ++i) {
            gas += data[i] == 0 ? 4 : 16;
        }
    }

    /// @dev Length of the FastLZ level-1 compression of `data`, computed without producing it.
    ///      Step for step the reference length routine of the OP Stack execution clients (and
    ///      Opal's src/executor/op/fastLz.ts): an 8192-entry table of the last position of each
    ///      hash of a 3-byte little-endian window (unset entries read as position 0), hash
    ///      `(v * 2654435769 mod 2^32) >> 19`, no match starting in the last 13 bytes, literal runs
    ///      in blocks of 32, match lengths split every 262, and a match scan that counts the first
    ///      mismatching byte.
    function _flzLength(bytes memory data) private pure returns (uint256 n) {
        assembly {
            let src := add(data, 0x20)
            let len := mload(data)
            // The table: 8192 big-endian 4-byte positions past the free memory pointer, zeroed by
            // copying from beyond the end of calldata (which reads as zeros); 32 more bytes so the
            // last entry's 32-byte word is zero too. Nothing is allocated: the table is dead once
            // this returns.
            let table := mload(0x40)
            calldatacopy(table, calldatasize(), 0x8020)

            function u24(p, i) -> v {
                let w := mload(add(p, i))
                v := or(or(byte(0, w), shl(8, byte(1, w))), shl(16, byte(2, w)))
            }
            /// Address of the table entry of window value v.
            function entryOf(t, v) -> e {
                e := add(t, shl(2, and(shr(19, and(mul(v, 2654435769), 0xffffffff)), 0x1fff)))
            }
            function getPos(e) -> pos {
                pos := shr(224, mload(e))
            }
            function setPos(e, pos) {
                mstore(e, or(shl(224, pos), shr(32, shl(32, mload(e)))))
            }
            function literals(r) -> out {
                let rest := mod(r, 32)
                out := mul(33, div(r, 32))
                if rest { out := add(out, add(rest, 1)) }
            }
            function matchBytes(l) -> out {
                let m := sub(l, 1)
                out := add(mul(3, div(m, 262)), 2)
                if iszero(lt(mod(m, 262), 6)) { out := add(out, 1) }
            }

            let ipLimit := 0
            if iszero(lt(len, 13)) { ipLimit := sub(len, 13) }
            let anchor := 0
            let ip := 2
            for {} lt(ip, ipLimit) {} {
                // Find the next position whose window repeats within the last 0x1fff bytes.
                let ref := 0
                for {} 1 {} {
                    let seq := u24(src, ip)
                    let e := entryOf(table, seq)
                    ref := getPos(e)
                    setPos(e, ip)
                    let distance := sub(ip, ref)
                    if iszero(lt(ip, ipLimit)) { break }
                    ip := add(ip, 1)
                    if and(iszero(gt(distance, 0x1fff)), eq(seq, u24(src, ref))) { break }
                }
                if iszero(lt(ip, ipLimit)) { break }
                ip := sub(ip, 1)
                if gt(ip, anchor) { n := add(n, literals(sub(ip, anchor))) }
                // Match length as the reference counts it: index of the first difference + 1,
                // or the whole span up to ipLimit + 9.
                let p := add(ref, 3)
                let q := add(ip, 3)
                let span := sub(add(ipLimit, 9), q)
                let l := span
                for { let k := 0 } lt(k, span) { k := add(k, 1) } {
                    if iszero(eq(byte(0, mload(add(src, add(p, k)))), byte(0, mload(add(src, add(q, k)))))) {
                        l := add(k, 1)
                        break
                    }
                }
                n := add(n, matchBytes(l))
                let next := add(ip, l)
                setPos(entryOf(table, u24(src, next)), next)
                next := add(next, 1)
                setPos(entryOf(table, u24(src, next)), next)
                ip := add(next, 1)
                anchor := ip
            }
            n := add(n, literals(sub(len, anchor)))
        }
    }
}
