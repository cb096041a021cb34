/**
 * JSON shapes, for the edges that read or write JSON text (RPC answers, genesis and rollup config
 * files, supervisor events). `JsonValue` is any value `JSON.parse` can return; `JsonObject` is a
 * parsed object whose fields are still unchecked (`unknown`) until a reader validates each one.
 */

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

/** A JSON object whose field values have not been checked yet. */
export type JsonObject = Record<string, unknown>;
