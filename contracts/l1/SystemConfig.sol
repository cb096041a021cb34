// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title SystemConfig (Opal devnet L1 system configuration)
/// @notice The L2 chain's system configuration on L1. Every change emits a `ConfigUpdate` event
///         that the rollup node applies during derivation (specs protocol/system-config.md "System
///         Config Updates" and the holocene, isthmus and jovian system-config.md). Written for
///         Opal's local devnet: no proxy, no initializer (the devnet genesis holds this contract
///         with its storage already set, see src/rollup/l1Contracts.ts), no resource config and
///         no gas-limit bounds. Not OP's audited contract, but the same event encodings, the same
///         setter and getter signatures and the same unsafe-block-signer slot.
///
///         ConfigUpdate payloads (version 0; `data` is abi.encode(bytes payload)):
///           0 BATCHER              abi.encode(bytes32 batcherHash)
///           1 FEE_SCALARS          abi.encode(uint256 overhead, uint256 scalar)
///           2 GAS_LIMIT            abi.encode(uint64 gasLimit)
///           3 UNSAFE_BLOCK_SIGNER  abi.encode(address signer)
///           4 EIP_1559_PARAMS      abi.encode(uint256(denominator) << 32 | elasticity)
///           5 OPERATOR_FEE_PARAMS  abi.encode(uint256(scalar) << 64 | constant)
///           6 MIN_BASE_FEE         abi.encode(uint64 minBaseFee)
///           7 DA_FOOTPRINT_GAS_SCALAR abi.encode(uint16 daFootprintGasScalar)
contract SystemConfig {
    enum UpdateType {
        BATCHER,
        FEE_SCALARS,
        GAS_LIMIT,
        UNSAFE_BLOCK_SIGNER,
        EIP_1559_PARAMS,
        OPERATOR_FEE_PARAMS,
        MIN_BASE_FEE,
        DA_FOOTPRINT_GAS_SCALAR
    }

    /// @notice A change of the system configuration, for the rollup node.
    event ConfigUpdate(uint256 indexed version, UpdateType indexed updateType, bytes data);

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    /// @notice The caller is not the owner.
    error NotOwner();
    /// @notice A legacy scalar must leave its top byte (the Ecotone scalar version) zero.
    error ScalarExceedsMax();
    /// @notice EIP-1559 denominator and elasticity must both be at least 1.
    error InvalidEip1559Params();
    /// @notice The new owner is the zero address.
    error ZeroOwner();

    /// @notice Version of the `ConfigUpdate` encoding.
    uint256 public constant VERSION = 0;

    /// @notice Storage slot of the unsafe block signer: keccak256("systemconfig.unsafeblocksigner").
    ///         The rollup node reads it from L1 state, not from the events.
    bytes32 public constant UNSAFE_BLOCK_SIGNER_SLOT = keccak256("systemconfig.unsafeblocksigner");

    // ---- storage (a genesis alloc writes it: the generated module takes the layout from solc) ----

    /// @notice The account allowed to change the configuration.
    address public owner;
    /// @notice Versioned hash of the batcher: the batcher address, left-padded (version 0).
    bytes32 public batcherHash;
    /// @notice Pre-Ecotone L1 fee overhead (0 once set by `setGasConfigEcotone`).
    uint256 public overhead;
    /// @notice L1 fee scalar; from Ecotone the versioned scalar holding both Ecotone scalars.
    uint256 public scalar;
    /// @notice L2 block gas limit.
    uint64 public gasLimit;
    /// @notice Ecotone base fee scalar.
    uint32 public basefeeScalar;
    /// @notice Ecotone blob base fee scalar.
    uint32 public blobbasefeeScalar;
    /// @notice Holocene EIP-1559 denominator (0 = the chain config's value).
    uint32 public eip1559Denominator;
    /// @notice Holocene EIP-1559 elasticity (0 = the chain config's value).
    uint32 public eip1559Elasticity;
    /// @notice Isthmus operator fee scalar.
    uint32 public operatorFeeScalar;
    /// @notice Isthmus operator fee constant.
    uint64 public operatorFeeConstant;
    /// @notice Jovian minimum base fee, in wei.
    uint64 public minBaseFee;
    /// @notice Jovian DA footprint gas scalar.
    uint16 public daFootprintGasScalar;
    /// @notice The L1 address batches are sent to.
    address public batchInbox;
    /// @notice The L1 block at which the rollup's derivation starts.
    uint256 public startBlock;

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    function version() external pure returns (string memory) {
        return "1.0.0+opal";
    }

    /// @notice The account allowed to sign unsafe L2 blocks for the p2p network.
    function unsafeBlockSigner() external view returns (address addr_) {
        bytes32 slot = UNSAFE_BLOCK_SIGNER_SLOT;
        assembly {
            addr_ := sload(slot)
        }
    }

    function transferOwnership(address _newOwner) external onlyOwner {
        if (_newOwner == address(0)) revert ZeroOwner();
        emit OwnershipTransferred(owner, _newOwner);
        owner = _newOwner;
    }

    /// @notice Sets the batcher (type 0). Derivation takes the address from the low 20 bytes and
    ///         skips an update whose upper 12 bytes are not zero.
    function setBatcherHash(bytes32 _batcherHash) external onlyOwner {
        batcherHash = _batcherHash;
        emit ConfigUpdate(VERSION, UpdateType.BATCHER, abi.encode(_batcherHash));
    }

    /// @notice Sets the pre-Ecotone overhead and scalar (type 1). The scalar's top byte is the
    ///         Ecotone scalar version and must be zero here.
    function setGasConfig(uint256 _overhead, uint256 _scalar) external onlyOwner {
        if (_scalar >> 248 != 0) revert ScalarExceedsMax();
        overhead = _overhead;
        scalar = _scalar;
        emit ConfigUpdate(VERSION, UpdateType.FEE_SCALARS, abi.encode(_overhead, _scalar));
    }

    /// @notice Sets the Ecotone fee scalars (type 1): overhead 0 and the version-1 scalar
    ///         (1 << 248) | (blobbasefeeScalar << 32) | basefeeScalar.
    function setGasConfigEcotone(uint32 _basefeeScalar, uint32 _blobbasefeeScalar) external onlyOwner {
        basefeeScalar = _basefeeScalar;
        blobbasefeeScalar = _blobbasefeeScalar;
        uint256 versioned = (uint256(0x01) << 248) | (uint256(_blobbasefeeScalar) << 32) | uint256(_basefeeScalar);
        overhead = 0;
        scalar = versioned;
        emit ConfigUpdate(VERSION, UpdateType.FEE_SCALARS, abi.encode(uint256(0), versioned));
    }

    /// @notice Sets the L2 block gas limit (type 2).
    function setGasLimit(uint64 _gasLimit) external onlyOwner {
        gasLimit = _gasLimit;
        emit ConfigUpdate(VERSION, UpdateType.GAS_LIMIT, abi.encode(_gasLimit));
    }

    /// @notice Sets the unsafe block signer (type 3), kept at `UNSAFE_BLOCK_SIGNER_SLOT`.
    function setUnsafeBlockSigner(address _unsafeBlockSigner) external onlyOwner {
        bytes32 slot = UNSAFE_BLOCK_SIGNER_SLOT;
        assembly {
            sstore(slot, _unsafeBlockSigner)
        }
        emit ConfigUpdate(VERSION, UpdateType.UNSAFE_BLOCK_SIGNER, abi.encode(_unsafeBlockSigner));
    }

    /// @notice Sets the Holocene EIP-1559 parameters (type 4), both at least 1.
    function setEIP1559Params(uint32 _denominator, uint32 _elasticity) external onlyOwner {
        if (_denominator == 0 || _elasticity == 0) revert InvalidEip1559Params();
        eip1559Denominator = _denominator;
        eip1559Elasticity = _elasticity;
        emit ConfigUpdate(
            VERSION, UpdateType.EIP_1559_PARAMS, abi.encode((uint256(_denominator) << 32) | uint256(_elasticity))
        );
    }

    /// @notice Sets the Isthmus operator fee parameters (type 5).
    function setOperatorFeeScalars(uint32 _operatorFeeScalar, uint64 _operatorFeeConstant) external onlyOwner {
        operatorFeeScalar = _operatorFeeScalar;
        operatorFeeConstant = _operatorFeeConstant;
        emit ConfigUpdate(
            VERSION,
            UpdateType.OPERATOR_FEE_PARAMS,
            abi.encode((uint256(_operatorFeeScalar) << 64) | uint256(_operatorFeeConstant))
        );
    }

    /// @notice Sets the Jovian minimum base fee (type 6).
    function setMinBaseFee(uint64 _minBaseFee) external onlyOwner {
        minBaseFee = _minBaseFee;
        emit ConfigUpdate(VERSION, UpdateType.MIN_BASE_FEE, abi.encode(_minBaseFee));
    }

    /// @notice Sets the Jovian DA footprint gas scalar (type 7).
    function setDAFootprintGasScalar(uint16 _daFootprintGasScalar) external onlyOwner {
        daFootprintGasScalar = _daFootprintGasScalar;
        emit ConfigUpdate(VERSION, UpdateType.DA_FOOTPRINT_GAS_SCALAR, abi.encode(_daFootprintGasScalar));
    }
}
