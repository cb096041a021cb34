/*
 * Opal's N-API addon: registration and argument checking only. The boundary passes bytes, never
 * strings (code-models §9.4): callers hand in Uint8Arrays and a caller-owned output buffer, and batch
 * work is one call over packed inputs.
 *
 *   keccak256(input: Uint8Array, out: Uint8Array): void             // writes 32 bytes at out[0..32)
 *   keccak256Batch(packed: Uint8Array, offsets: Uint32Array, out: Uint8Array): void
 *       // item i is packed[offsets[i] .. offsets[i+1]); writes 32*i .. 32*i+32 of out
 *   keccak256ScratchInit(buf: Uint8Array): number       // registers a buffer (≥ 32 bytes): its slot
 *   keccak256Scratch(slot: number, length: number): void // hashes buf[32 .. 32+length) into buf[0 .. 32)
 *   keccak256ScratchWord(slot: number, length: number): bigint // the same, also returned as a word
 */
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include "keccak.h"

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
  bool is_ta = false;
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta) return 0;
  napi_typedarray_type type;
  size_t length;
  void *ptr;
  napi_value ab;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, &length, &ptr, &ab, &offset) != napi_ok) return 0;
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
 * The scratch form, for the EVM's KECCAK256 opcode: one small hash per call, where the cost of the
 * call itself (resolving two typed arrays, allocating a subarray in JS) exceeds the permutation's.
 * A buffer is registered once and gets a slot number; a call then passes the slot and the input
 * length: the input is at buf[32 .. 32+len) and the digest goes to buf[0 .. 32). Slots live in the
 * env's instance data, so each thread has its own; several per env, because one thread may load the
 * JS module more than once (a CommonJS and an ESM copy under a loader), each with its own buffer.
 */
#define SCRATCH_SLOTS 16

typedef struct {
  uint8_t *data[SCRATCH_SLOTS];
  size_t len[SCRATCH_SLOTS];
  napi_ref ref[SCRATCH_SLOTS];
  uint32_t used;
} scratch_t;

static void scratch_free(napi_env env, void *data, void *hint) {
  scratch_t *s = (scratch_t *)data;
  for (uint32_t i = 0; i < s->used; i++) napi_delete_reference(env, s->ref[i]);
  free(s);
}

static scratch_t *scratch_of(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok) return NULL;
  if (data != NULL) return (scratch_t *)data;
  scratch_t *s = (scratch_t *)calloc(1, sizeof(scratch_t));
  if (s == NULL) return NULL;
  if (napi_set_instance_data(env, s, scratch_free, NULL) != napi_ok) {
    free(s);
    return NULL;
  }
  return s;
}

static napi_value js_keccak256_scratch_init(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint8_t *data;
  size_t len;
  if (argc < 1 || !typed_bytes(env, argv[0], napi_uint8_array, &data, &len) || len < 32)
    return throw_type(env, "keccak256ScratchInit(buf) needs a Uint8Array of at least 32 bytes");
  scratch_t *s = scratch_of(env);
  if (s == NULL) return throw_type(env, "cannot keep scratch buffers");
  if (s->used == SCRATCH_SLOTS) return throw_type(env, "too many scratch buffers");
  uint32_t slot = s->used;
  /* The reference keeps the buffer (and so its bytes) alive as long as the env. */
  CHECK(napi_create_reference(env, argv[0], 1, &s->ref[slot]));
  s->data[slot] = data;
  s->len[slot] = len;
  s->used = slot + 1;
  napi_value out;
  CHECK(napi_create_uint32(env, slot, &out));
  return out;
}

/* Hashes the scratch buffer named by the call's (slot, length); returns its bytes, NULL after a throw. */
static uint8_t *scratch_hash(napi_env env, napi_callback_info info, const char *usage) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  uint32_t slot, n;
  if (argc < 2 || napi_get_value_uint32(env, argv[0], &slot) != napi_ok ||
      napi_get_value_uint32(env, argv[1], &n) != napi_ok) {
    throw_type(env, usage);
    return NULL;
  }
  void *data = NULL;
  CHECK(napi_get_instance_data(env, &data));
  scratch_t *s = (scratch_t *)data;
  if (s == NULL || slot >= s->used) {
    throw_type(env, "unknown scratch slot");
    return NULL;
  }
  if ((size_t)n > s->len[slot] - 32) {
    throw_type(env, "length exceeds the scratch buffer");
    return NULL;
  }
  opal_keccak256(s->data[slot] + 32, n, s->data[slot]);
  return s->data[slot];
}

static napi_value js_keccak256_scratch(napi_env env, napi_callback_info info) {
  scratch_hash(env, info, "keccak256Scratch(slot, length) needs two numbers");
  return NULL;
}

/*
 * PERF: the EVM's KECCAK256 pushes the digest as a bigint word; building it here from four 64-bit
 * limbs is one allocation, where reading four BigUint64s back in JS and joining them is seven.
 */
static napi_value js_keccak256_scratch_word(napi_env env, napi_callback_info info) {
  const uint8_t *d = scratch_hash(env, info, "keccak256ScratchWord(slot, length) needs two numbers");
  if (d == NULL) return NULL;
  uint64_t words[4]; /* least significant first: limb i is digest bytes 24-8i .. 32-8i, big-endian */
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

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"keccak256", NULL, js_keccak256, NULL, NULL, NULL, napi_default, NULL},
    {"keccak256Batch", NULL, js_keccak256_batch, NULL, NULL, NULL, napi_default, NULL},
    {"keccak256ScratchInit", NULL, js_keccak256_scratch_init, NULL, NULL, NULL, napi_default, NULL},
    {"keccak256Scratch", NULL, js_keccak256_scratch, NULL, NULL, NULL, napi_default, NULL},
    {"keccak256ScratchWord", NULL, js_keccak256_scratch_word, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
