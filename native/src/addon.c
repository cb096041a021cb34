/*
 * Opal's N-API addon: registration and argument checking only. The boundary passes bytes, never
 * strings (code-models §9.4): callers hand in Uint8Arrays and a caller-owned output buffer, and batch
 * work is one call over packed inputs.
 *
 *   keccak256(input: Uint8Array, out: Uint8Array): void             // writes 32 bytes at out[0..32)
 *   keccak256Batch(packed: Uint8Array, offsets: Uint32Array, out: Uint8Array): void
 *       // item i is packed[offsets[i] .. offsets[i+1]); writes 32*i .. 32*i+32 of out
 *   keccak256MemWord(mem: Uint8Array, offset: number, length: number): bigint
 *       // keccak-256 of mem[offset .. offset+length) as the 256-bit word its digest spells big-endian
 *   mulmod(a: bigint, b: bigint, n: bigint): bigint      // (a · b) mod n, words in [0, 2^256), 0 when n = 0
 *   evmRun(code, jumpdests, mem: Uint8Array, stack: bigint[], cfg: Int32Array, io: Float64Array): void
 *       // runs EVM code natively from io's pc/sp/gas/memSize/jump budget until an opcode it leaves
 *       // to the TS loop (interp.c); io gets the new pc, sp, gas, opcodes run and budget left
 *   sortedTrie(keys: Uint8Array, values: Uint8Array, offsets: Uint32Array, rows?: boolean, leafHashes?: boolean):
 *     Uint8Array | null
 *       // leaf i = keys[32i..32i+32) → values[offsets[i]..offsets[i+1]), keys strictly ascending
 *       // (else null): root (32 bytes) ‖ record count (u32 LE) ‖ per branch record, in HashBuilder's
 *       // order: path length (1), path nibbles, record length (u16 BE), record (trie.c)
 *   orderedTrieRoot(values: Uint8Array, offsets: Uint32Array, out: Uint8Array): void
 *       // root of the trie rlp(i) → values[offsets[i]..offsets[i+1]) (a block's txs, receipts or
 *       // withdrawals root) written to out[0..32) (trie.c)
 *   sortKeys32(keys: Uint8Array, order: Uint32Array): void
 *       // order[i] = the index of the i-th smallest key of keys[32i..32i+32), equal keys in input
 *       // order; order holds one entry per key (trie.c)
 *   limitMallocArenas(max: number): boolean
 *       // glibc only: mallopt(M_ARENA_MAX, max), the cap on malloc's per-thread arenas; true when
 *       // applied, false where the C library has no such knob (musl, macOS)
 */
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include "keccak.h"
#include "interp.h"
#include "trie.h"
#include "u256.h"

#define CHECK(call)                                                                                     \
  do {                                                                                                  \
    if ((call) != napi_ok) return NULL;                                                                 \
  } while (0)

static napi_value throw_type(napi_env env, const char *msg) {
  napi_throw_type_error(env, "ERR_OPAL_NATIVE_ARG", msg);
  return NULL;
}

/* Resolves a typed array argument to its bytes; element_size tells Uint8 (1) from Uint32 (4). */
static int typed_bytes(napi_env env, napi_value v, napi_typedarray_type want, uint8_t **data, size_t *count) {
  /* PERF: no napi_is_typedarray first (info fails on anything else) and no ArrayBuffer handle asked
   * for: ~20 ns less per call. */
  napi_typedarray_type type;
  size_t length;
  void *ptr;
  if (napi_get_typedarray_info(env, v, &type, &length, &ptr, NULL, NULL) != napi_ok) return 0;
  if (type != want) return 0;
  *data = (uint8_t *)ptr;
  *count = length;
  return 1;
}

static napi_value js_keccak256(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) return throw_type(env, "keccak256(input, out) needs two arguments");
  uint8_t *in, *out;
  size_t in_len, out_len;
  if (!typed_bytes(env, argv[0], napi_uint8_array, &in, &in_len)) return throw_type(env, "input must be a Uint8Array");
  if (!typed_bytes(env, argv[1], napi_uint8_array, &out, &out_len) || out_len < 32)
    return throw_type(env, "out must be a Uint8Array of at least 32 bytes");
  opal_keccak256(in, in_len, out);
  return NULL;
}

static napi_value js_keccak256_batch(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) return throw_type(env, "keccak256Batch(packed, offsets, out) needs three arguments");
  uint8_t *packed, *out, *offs_raw;
  size_t packed_len, out_len, n_offs;
  if (!typed_bytes(env, argv[0], napi_uint8_array, &packed, &packed_len))
    return throw_type(env, "packed must be a Uint8Array");
  if (!typed_bytes(env, argv[1], napi_uint32_array, &offs_raw, &n_offs) || n_offs < 1)
    return throw_type(env, "offsets must be a non-empty Uint32Array");
  if (!typed_bytes(env, argv[2], napi_uint8_array, &out, &out_len)) return throw_type(env, "out must be a Uint8Array");
  const uint32_t *offs = (const uint32_t *)offs_raw;
  size_t n = n_offs - 1;
  if (out_len < n * 32) return throw_type(env, "out is shorter than 32 bytes per item");
  /* Validate every range before hashing anything, so a bad offset never reads out of bounds. */
  for (size_t i = 0; i < n; i++) {
    if (offs[i] > offs[i + 1] || offs[i + 1] > packed_len) return throw_type(env, "offsets are not ascending within packed");
  }
  for (size_t i = 0; i < n; i++) opal_keccak256(packed + offs[i], offs[i + 1] - offs[i], out + 32 * i);
  return NULL;
}

/*
 * The EVM's KECCAK256: hashes a slice of frame memory and pushes the digest as a bigint word.
 * PERF: one call straight on the memory array (no copy into a scratch buffer in JS), and the word
 * built here from four 64-bit limbs (one allocation, where joining four BigUint64s in JS is seven).
 */

/* Digest bytes → the 256-bit word they spell big-endian (limb i = bytes 24-8i .. 32-8i). */
static napi_value digest_word(napi_env env, const uint8_t *d) {
  uint64_t words[4];
  for (int i = 0; i < 4; i++) {
    const uint8_t *p = d + 24 - 8 * i;
    uint64_t w = 0;
    for (int j = 0; j < 8; j++) w = (w << 8) | p[j];
    words[i] = w;
  }
  napi_value out;
  CHECK(napi_create_bigint_words(env, 0, 4, words, &out));
  return out;
}

static napi_value js_keccak256_mem_word(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *mem;
  size_t mem_len;
  uint32_t off, n;
  if (argc < 3 || !typed_bytes(env, argv[0], napi_uint8_array, &mem, &mem_len) ||
      napi_get_value_uint32(env, argv[1], &off) != napi_ok || napi_get_value_uint32(env, argv[2], &n) != napi_ok)
    return throw_type(env, "keccak256MemWord(mem, offset, length) needs a Uint8Array and two numbers");
  if ((size_t)off + n > mem_len) return throw_type(env, "offset + length exceeds mem");
  uint8_t d[32];
  opal_keccak256(mem + off, n, d);
  return digest_word(env, d);
}

/* A bigint argument of at most 256 bits (non-negative) as four little-endian limbs; 0 on a bad argument. */
static int word_arg(napi_env env, napi_value v, uint64_t w[4]) {
  int sign = 0;
  size_t count = 4;
  w[0] = w[1] = w[2] = w[3] = 0;
  if (napi_get_value_bigint_words(env, v, &sign, &count, w) != napi_ok) return 0;
  return sign == 0 && count <= 4;
}

static napi_value js_mulmod(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint64_t a[4], b[4], n[4], r[4];
  if (argc < 3 || !word_arg(env, argv[0], a) || !word_arg(env, argv[1], b) || !word_arg(env, argv[2], n))
    return throw_type(env, "mulmod(a, b, n) needs three bigints in [0, 2^256)");
  opal_mulmod256(a, b, n, r);
  napi_value out;
  CHECK(napi_create_bigint_words(env, 0, 4, r, &out));
  return out;
}

/*
 * evmRun's stack: the top EVM_WINDOW bigints are read into limbs, run, and the slots from the lowest
 * one written up to the new top are written back as bigints. One per thread (worker threads run
 * their own EVMs; a run never re-enters JS).
 */
#define EVM_WINDOW 32
static _Thread_local uint64_t evm_stack[1024 * 4];

enum { IO_PC, IO_SP, IO_GAS, IO_MEM_SIZE, IO_OPS, IO_JUMPS, IO_LEN };

static napi_value js_evm_run(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *code, *jumpdests, *mem, *cfg_raw, *io_raw;
  size_t code_len, jd_len, mem_len, cfg_len, io_len;
  if (argc < 6 || !typed_bytes(env, argv[0], napi_uint8_array, &code, &code_len) ||
      !typed_bytes(env, argv[1], napi_uint8_array, &jumpdests, &jd_len) ||
      !typed_bytes(env, argv[2], napi_uint8_array, &mem, &mem_len) ||
      !typed_bytes(env, argv[4], napi_int32_array, &cfg_raw, &cfg_len) ||
      !typed_bytes(env, argv[5], napi_float64_array, &io_raw, &io_len) || jd_len < code_len || cfg_len < 1024 ||
      io_len < IO_LEN)
    return throw_type(env, "evmRun(code, jumpdests, mem, stack, cfg, io) needs Uint8Arrays, an array, Int32Array, Float64Array");
  double *io = (double *)io_raw;
  double pc = io[IO_PC], sp = io[IO_SP], gas = io[IO_GAS], mem_size = io[IO_MEM_SIZE], jumps = io[IO_JUMPS];
  if (!(pc >= 0 && sp >= 0 && sp <= 1024 && gas >= 0 && gas < 9007199254740992.0 && mem_size >= 0 &&
        mem_size <= (double)mem_len && jumps >= 0 && jumps < 9007199254740992.0))
    return throw_type(env, "evmRun: io holds a bad pc, sp, gas, memory size or jump budget");
  opal_evm_run_t r;
  r.code = code;
  r.code_len = code_len;
  r.jumpdests = jumpdests;
  r.mem = mem;
  r.mem_size = (size_t)mem_size;
  r.stack = evm_stack;
  r.cfg = (const int32_t *)cfg_raw;
  r.pc = (size_t)pc;
  r.sp = (int)sp;
  r.gas = (int64_t)gas;
  r.jumps = (int64_t)jumps;
  r.lo = r.sp > EVM_WINDOW ? r.sp - EVM_WINDOW : 0;
  r.low = r.sp;
  for (int i = r.lo; i < r.sp; i++) {
    napi_value v;
    CHECK(napi_get_element(env, argv[3], (uint32_t)i, &v));
    if (!word_arg(env, v, evm_stack + 4 * i)) return throw_type(env, "evmRun: a stack slot is not a word");
  }
  opal_evm_run(&r);
  int from = r.low > r.lo ? r.low : r.lo;
  for (int i = from; i < r.sp; i++) {
    napi_value v;
    CHECK(napi_create_bigint_words(env, 0, 4, evm_stack + 4 * i, &v));
    CHECK(napi_set_element(env, argv[3], (uint32_t)i, v));
  }
  io[IO_PC] = (double)r.pc;
  io[IO_SP] = (double)r.sp;
  io[IO_GAS] = (double)r.gas;
  io[IO_OPS] = (double)r.ops;
  io[IO_JUMPS] = (double)r.jumps;
  return NULL;
}

static napi_value js_sorted_trie(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  bool rows = false;
  bool leaf_hashes = false;
  if (argc >= 4) CHECK(napi_get_value_bool(env, argv[3], &rows));
  if (argc >= 5) CHECK(napi_get_value_bool(env, argv[4], &leaf_hashes));
  if (rows && leaf_hashes) return throw_type(env, "sortedTrie: packed rows are storage leaves, never leaf-hashed");
  uint8_t *keys, *vals, *offs_raw;
  size_t keys_len, vals_len, n_offs;
  if (argc < 3 || !typed_bytes(env, argv[0], napi_uint8_array, &keys, &keys_len) ||
      !typed_bytes(env, argv[1], napi_uint8_array, &vals, &vals_len) ||
      !typed_bytes(env, argv[2], napi_uint32_array, &offs_raw, &n_offs) || n_offs < 1)
    return throw_type(env, "sortedTrie(keys, values, offsets) needs two Uint8Arrays and a non-empty Uint32Array");
  const uint32_t *offs = (const uint32_t *)offs_raw;
  size_t n = n_offs - 1;
  if (keys_len != (rows ? 64 : 32) * n)
    return throw_type(env, rows ? "sortedTrie: rows must hold 64 bytes per offset pair"
                                : "sortedTrie: keys must hold 32 bytes per offset pair");
  for (size_t i = 0; i < n; i++) {
    if (offs[i] > offs[i + 1] || offs[i + 1] > vals_len)
      return throw_type(env, "sortedTrie: offsets are not ascending within values");
    if (rows && (offs[i + 1] == offs[i] || offs[i + 1] - offs[i] > 55))
      return throw_type(env, "sortedTrie: a row's value must hold 1 to 55 bytes");
  }
  uint8_t root[32];
  opal_bytes_t recs = {NULL, 0, 0};
  long count = rows ? opal_sorted_trie_rows(keys, n, vals, offs, root, &recs)
                    : opal_sorted_trie(keys, n, vals, offs, leaf_hashes ? 1 : 0, root, &recs);
  if (count < 0) {
    free(recs.buf);
    if (count == -1) {
      napi_value null_value;
      CHECK(napi_get_null(env, &null_value));
      return null_value;
    }
    napi_throw_error(env, "ERR_OPAL_NATIVE_OOM", "sortedTrie: out of memory");
    return NULL;
  }
  size_t size = 36 + recs.len;
  void *data;
  napi_value ab, result;
  if (napi_create_arraybuffer(env, size, &data, &ab) != napi_ok) {
    free(recs.buf);
    return NULL;
  }
  uint8_t *o = (uint8_t *)data;
  memcpy(o, root, 32);
  uint32_t c = (uint32_t)count;
  o[32] = (uint8_t)c;
  o[33] = (uint8_t)(c >> 8);
  o[34] = (uint8_t)(c >> 16);
  o[35] = (uint8_t)(c >> 24);
  if (recs.len > 0) memcpy(o + 36, recs.buf, recs.len);
  free(recs.buf);
  CHECK(napi_create_typedarray(env, napi_uint8_array, size, ab, 0, &result));
  return result;
}

static napi_value js_ordered_trie_root(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *vals, *offs_raw, *out;
  size_t vals_len, n_offs, out_len;
  if (argc < 3 || !typed_bytes(env, argv[0], napi_uint8_array, &vals, &vals_len) ||
      !typed_bytes(env, argv[1], napi_uint32_array, &offs_raw, &n_offs) || n_offs < 1 ||
      !typed_bytes(env, argv[2], napi_uint8_array, &out, &out_len) || out_len < 32)
    return throw_type(env, "orderedTrieRoot(values, offsets, out) needs a Uint8Array, a non-empty Uint32Array and 32 bytes out");
  const uint32_t *offs = (const uint32_t *)offs_raw;
  size_t n = n_offs - 1;
  for (size_t i = 0; i < n; i++) {
    if (offs[i] > offs[i + 1] || offs[i + 1] > vals_len)
      return throw_type(env, "orderedTrieRoot: offsets are not ascending within values");
  }
  if (opal_ordered_trie_root(vals, n, offs, out) != 0) {
    napi_throw_error(env, "ERR_OPAL_NATIVE_OOM", "orderedTrieRoot: out of memory");
    return NULL;
  }
  return NULL;
}

static napi_value js_sort_keys32(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *keys, *order_raw;
  size_t keys_len, n;
  if (argc < 2 || !typed_bytes(env, argv[0], napi_uint8_array, &keys, &keys_len) ||
      !typed_bytes(env, argv[1], napi_uint32_array, &order_raw, &n))
    return throw_type(env, "sortKeys32(keys, order) needs a Uint8Array and a Uint32Array");
  if (keys_len != 32 * n) return throw_type(env, "sortKeys32: keys must hold 32 bytes per order entry");
  if (opal_sort_keys32(keys, n, (uint32_t *)order_raw) != 0) {
    napi_throw_error(env, "ERR_OPAL_NATIVE_OOM", "sortKeys32: out of memory");
    return NULL;
  }
  return NULL;
}

/*
 * glibc gives each thread that finds the arenas busy a new one, up to 8 per core, and keeps every
 * page an arena ever held; a process with worker threads and RocksDB's background threads then
 * grows by arenas it seldom reuses. The cap takes effect for arenas made after the call, so the
 * loader makes it at its first import, before the pools start (glibc computes its limit lazily, when
 * the ninth arena would be made).
 */
static napi_value js_limit_malloc_arenas(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t max = 0;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &max) != napi_ok || max < 1)
    return throw_type(env, "limitMallocArenas: max must be a positive integer");
  bool applied = false;
#if defined(__GLIBC__)
  applied = mallopt(M_ARENA_MAX, max) == 1;
#endif
  napi_value out;
  CHECK(napi_get_boolean(env, applied, &out));
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"keccak256", NULL, js_keccak256, NULL, NULL, NULL, napi_default, NULL},
    {"keccak256Batch", NULL, js_keccak256_batch, NULL, NULL, NULL, napi_default, NULL},
    {"keccak256MemWord", NULL, js_keccak256_mem_word, NULL, NULL, NULL, napi_default, NULL},
    {"mulmod", NULL, js_mulmod, NULL, NULL, NULL, napi_default, NULL},
    {"evmRun", NULL, js_evm_run, NULL, NULL, NULL, napi_default, NULL},
    {"sortedTrie", NULL, js_sorted_trie, NULL, NULL, NULL, napi_default, NULL},
    {"orderedTrieRoot", NULL, js_ordered_trie_root, NULL, NULL, NULL, napi_default, NULL},
    {"sortKeys32", NULL, js_sort_keys32, NULL, NULL, NULL, napi_default, NULL},
    {"limitMallocArenas", NULL, js_limit_malloc_arenas, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
