// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title OptimismPortal (Opal devnet L1 deposit contract)
/// @notice The L1 entry point of user deposits: each accepted deposit emits one
///         `TransactionDeposited` event, which the rollup node turns into a deposit transaction of
///         the L2 epoch whose L1 origin holds it. Written for Opal's local devnet against the
///         deposit-contract interface of the OP specs (protocol/deposits.md "Deposit Contract",
///         "Address Aliasing"); it is not OP's audited portal: it has no proxy, no withdrawals,
///         no pause and no guaranteed-gas-market resource metering (the L2 gas of deposits is not
///         charged on L1). The ether sent with a deposit stays in this contract.
///
///         No storage: the contract is stateless, so a genesis alloc needs only its runtime code.
contract OptimismPortal {
    /// @notice Version 0 `opaqueData` =
    ///         abi.encodePacked(uint256 mint, uint256 value, uint64 gasLimit, bool isCreation, bytes data).
    ///         `from` is the L2 sender (aliased when the L1 caller is a contract); `to` is zero for a
    ///         contract creation.
    event TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData);

    /// @notice A contract creation deposit must have a zero target.
    error BadTarget();
    /// @notice The gas limit is under `minimumGasLimit(_data.length)`.
    error GasLimitTooLow();
    /// @notice The data is longer than `MAX_DATA_SIZE` bytes.
    error LargeCalldata();

    /// @notice Version of the `TransactionDeposited` encoding.
    uint256 public constant DEPOSIT_VERSION = 0;

    /// @notice L2 gas limit of a deposit made by sending ether to this contract.
    uint64 public constant RECEIVE_DEFAULT_GAS_LIMIT = 100_000;

    /// @notice Largest deposit data, in bytes.
    uint256 public constant MAX_DATA_SIZE = 120_000;

    /// @notice Added (mod 2^160) to the address of a contract caller: its L2 alias.
    uint160 private constant ALIAS_OFFSET = uint160(0x1111000000000000000000000000000000001111);

    /// @notice Sending ether to the portal deposits it to the sender's own address on L2, as a call
    ///         with no data and `RECEIVE_DEFAULT_GAS_LIMIT` gas.
    receive() external payable {
        depositTransaction(msg.sender, msg.value, RECEIVE_DEFAULT_GAS_LIMIT, false, bytes(""));
    }

    /// @notice The smallest L2 gas limit a deposit with `_byteCount` bytes of data may ask for.
    function minimumGasLimit(uint64 _byteCount) public pure returns (uint64) {
        return _byteCount * 40 + 21_000;
    }

    /// @notice Accepts a deposit of ether and data and emits a `TransactionDeposited` event for the
    ///         rollup node. The whole `msg.value` is minted to `from` on L2, of which `_value` goes
    ///         to `_to` (the rest stays with `from`).
    /// @param _to         Target address on L2 (zero for a contract creation).
    /// @param _value      Ether value to send to the target on L2.
    /// @param _gasLimit   L2 gas limit of the deposit.
    /// @param _isCreation Whether the deposit creates a contract (then `_data` is its init code).
    /// @param _data       Calldata, or init code of a contract creation.
    function depositTransaction(address _to, uint256 _value, uint64 _gasLimit, bool _isCreation, bytes memory _data)
        public
        payable
    {
        if (_isCreation && _to != address(0)) revert BadTarget();
        if (_data.length > MAX_DATA_SIZE) revert LargeCalldata();
        if (_gasLimit < minimumGasLimit(uint64(_data.length))) revert GasLimitTooLow();

        // A contract caller is aliased so that it cannot act as the L2 account of the same address.
        address from = msg.sender;
        if (msg.sender != tx.origin) {
            unchecked {
                from = address(uint160(msg.sender) + ALIAS_OFFSET);
            }
        }

        bytes memory opaqueData = abi.encodePacked(msg.value, _value, _gasLimit, _isCreation, _data);
        emit TransactionDeposited(from, _to, DEPOSIT_VERSION, opaqueData);
    }
}
