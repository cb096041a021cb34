/**
 * JSON-RPC error objects, shaped and worded as go-ethereum's `rpc/errors.go` emits them:
 * `{"code":…,"message":…}` plus `data` only when present. One table of codes; transports and
 * handlers throw `RpcError`, anything else a handler throws is mapped by `toRpcError`.
 */

/** Error codes, as geth numbers them (`rpc/errors.go`, `internal/ethapi/errors.go`). */
export const RpcErrorCode = {
  /** JSON could not be parsed (HTTP body, WebSocket frame). */
  ParseError: -32700,
  /** Envelope is not a call: wrong `jsonrpc`, missing method, empty or too large batch. */
  InvalidRequest: -32600,
  /** Unknown method, disabled namespace, unknown subscription, notifications over HTTP. */
  MethodNotFound: -32601,
  /** Positional parameter decoding failed. */
  InvalidParams: -32602,
  /** Handler crashed or its result could not be serialized (geth: errcodePanic / errcodeMarshalError). */
  Internal: -32603,
  /** Any handler error without a code of its own (geth: errcodeDefault). */
  Server: -32000,
  /** Request timed out (geth: errcodeTimeout). */
  Timeout: -32002,
  /** Batch response exceeded `batchResponseMaxSize` (geth: errcodeResponseTooLarge). */
  ResponseTooLarge: -32003,
  /**
   * A WebSocket connection holds its limit of subscriptions. geth has no such limit; the code and
   * text are jsonrpsee's (reth `--rpc.max-subscriptions-per-connection`): TOO_MANY_SUBSCRIPTIONS.
   */
  TooManySubscriptions: -32006,
  /** EVM revert; `data` carries the revert bytes as hex (geth: `revertError`). */
  ExecutionReverted: 3,
} as const;

/** The JSON shape of an error member, exactly the fields geth writes. */
export interface RpcErrorJson {
  code: number;
  message: string;
  data?: unknown;
}

export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  toJSON(): RpcErrorJson {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static parse(message = "parse error"): RpcError {
    return new RpcError(RpcErrorCode.ParseError, message);
  }

  static invalidRequest(message = "invalid request"): RpcError {
    return new RpcError(RpcErrorCode.InvalidRequest, message);
  }

  /** geth `methodNotFoundError`. */
  static methodNotFound(method: string): RpcError {
    return new RpcError(RpcErrorCode.MethodNotFound, `the method ${method} does not exist/is not available`);
  }

  /** geth `ErrNotificationsUnsupported`: `*_subscribe` on a transport without push (HTTP). */
  static notificationsUnsupported(): RpcError {
    return new RpcError(RpcErrorCode.MethodNotFound, "notifications not supported");
  }

  /** geth `subscriptionNotFoundError`: the name is quoted with Go's %q. */
  static subscriptionNotFound(namespace: string, name: string): RpcError {
    return new RpcError(
      RpcErrorCode.MethodNotFound,
      `no ${JSON.stringify(name)} subscription in ${namespace} namespace`,
    );
  }

  /** geth `ErrSubscriptionNotFound` (an errors.New, hence the default code). */
  static subscriptionIdNotFound(): RpcError {
    return new RpcError(RpcErrorCode.Server, "subscription not found");
  }

  static invalidParams(message: string): RpcError {
    return new RpcError(RpcErrorCode.InvalidParams, message);
  }

  static internal(message: string): RpcError {
    return new RpcError(RpcErrorCode.Internal, message);
  }

  static server(message: string): RpcError {
    return new RpcError(RpcErrorCode.Server, message);
  }

  static responseTooLarge(): RpcError {
    return new RpcError(RpcErrorCode.ResponseTooLarge, "response too large");
  }

  static batchTooLarge(): RpcError {
    return new RpcError(RpcErrorCode.InvalidRequest, "batch too large");
  }

  /** jsonrpsee's TOO_MANY_SUBSCRIPTIONS error, with its `data` text. */
  static tooManySubscriptions(limit: number): RpcError {
    return new RpcError(
      RpcErrorCode.TooManySubscriptions,
      "Too many subscriptions on the connection",
      `Exceeded max limit of ${limit}`,
    );
  }

  /** geth DoCall past `--rpc.evmtimeout`: "execution aborted (timeout = 5s)", Go's duration text. */
  static executionAborted(timeoutMs: number): RpcError {
    const d = timeoutMs % 1000 === 0 || timeoutMs >= 1000 ? `${timeoutMs / 1000}s` : `${timeoutMs}ms`;
    return new RpcError(RpcErrorCode.Server, `execution aborted (timeout = ${d})`);
  }

  static emptyBatch(): RpcError {
    return new RpcError(RpcErrorCode.InvalidRequest, "empty batch");
  }

  /**
   * geth `revertError`: message "execution reverted" or "execution reverted: <reason>" when the
   * revert data ABI-decodes to `Error(string)`; `data` is the raw revert bytes, `0x`-hex.
   */
  static executionReverted(dataHex: string, reason?: string): RpcError {
    const message = reason === undefined || reason === "" ? "execution reverted" : `execution reverted: ${reason}`;
    return new RpcError(RpcErrorCode.ExecutionReverted, message, dataHex);
  }
}

/**
 * Maps whatever a handler threw to an error object. `RpcError` passes through. Programming errors
 * (TypeError, RangeError, ReferenceError) are geth's recovered panic: -32603 "method handler
 * crashed", without leaking the message. Any other `Error` is geth's default: -32000 with its message.
 */
export function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e;
  if (e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError) {
    return RpcError.internal("method handler crashed");
  }
  if (e instanceof Error) return RpcError.server(e.message);
  return RpcError.server(String(e));
}
