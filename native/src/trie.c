/*
 * A trie root from leaves in ascending key order, with the branch records the stored trie keeps: the
 * native twin of HashBuilder (src/trie/hashBuilder.ts) fed only by addLeafBytes with 32-byte keys and
 * `updates` on (its fold, encodings and masks, line for line; `leafHashes` too), for a storage trie
 * built from nothing (stateRoot.ts freshStorageRoot) or a trie rebuilt whole from its rows
 * (rebuildFromRows). Nodes are hashed as they close; a 32-byte ref is 0xa0 ‖ hash.
 */
#include "trie.h"
#include <stdlib.h>
#include <string.h>
#include "keccak.h"

#define KEY_NIBBLES 64
#define SLOT 33
/* At most 16 children wait per depth, for 65 depths. */
#define MAX_STACK (16 * (KEY_NIBBLES + 2))

typedef struct {
  uint8_t key[KEY_NIBBLES];
  int key_len; /* nibbles of `key`: 64 for sorted tries, 2-10 for an index key rlp(i) */
  int has_key;
  const uint8_t *val;
  size_t val_len;
  uint8_t stack[MAX_STACK][SLOT];
  uint8_t stack_len[MAX_STACK];
  int sp;
  uint16_t state_masks[KEY_NIBBLES + 1];
  uint16_t tree_masks[KEY_NIBBLES + 1];
  uint16_t hash_masks[KEY_NIBBLES + 1];
  /* Per depth: children of the branch being assembled that are leaves hanging right below it. */
  uint16_t leaf_kids[KEY_NIBBLES + 1];
  /* Keep hashed leaf children's hashes in the records (the account trie's layout). */
  int leaf_hashes;
  int groups_len;
  int masks_len;
  uint8_t *node; /* encoding scratch */
  opal_bytes_t *out;
  long records;
  int oom;
} builder_t;

static size_t header_length(size_t len) {
  if (len < 56) return 1;
  size_t k = 0;
  for (size_t l = len; l > 0; l >>= 8) k++;
  return 1 + k;
}

static size_t write_header(uint8_t *o, size_t pos, size_t len, uint8_t base) {
  if (len < 56) {
    o[pos] = (uint8_t)(base + len);
    return pos + 1;
  }
  size_t k = 0;
  for (size_t l = len; l > 0; l >>= 8) k++;
  o[pos] = (uint8_t)(base + 55 + k);
  for (size_t i = k; i >= 1; i--) {
    o[pos + i] = (uint8_t)(len & 0xff);
    len >>= 8;
  }
  return pos + 1 + k;
}

/* RLP size of the hex-prefix path of n nibbles (a one-byte path is its own encoding). */
static size_t path_string_length(int n) {
  size_t cl = (size_t)(n >> 1) + 1;
  return cl == 1 ? 1 : header_length(cl) + cl;
}

static size_t write_path(uint8_t *o, size_t pos, const uint8_t *path, int start, int end, uint8_t flag) {
  int len = end - start;
  size_t cl = (size_t)(len >> 1) + 1;
  if (cl > 1) pos = write_header(o, pos, cl, 0x80);
  int i = start;
  if (len & 1)
    o[pos++] = (uint8_t)(flag | 0x10 | path[i++]);
  else
    o[pos++] = flag;
  for (; i < end; i += 2) o[pos++] = (uint8_t)((path[i] << 4) | path[i + 1]);
  return pos;
}

static int ensure(opal_bytes_t *b, size_t more) {
  if (b->len + more <= b->cap) return 1;
  size_t cap = b->cap < 4096 ? 4096 : b->cap;
  while (cap < b->len + more) cap *= 2;
  uint8_t *p = realloc(b->buf, cap);
  if (p == NULL) return 0;
  b->buf = p;
  b->cap = cap;
  return 1;
}

/* Pushes the node node[0..total): embedded when shorter than 32 bytes, else by its hash. */
static void finish_node(builder_t *b, size_t total) {
  int s = b->sp++;
  if (total < 32) {
    memcpy(b->stack[s], b->node, total);
    b->stack_len[s] = (uint8_t)total;
    return;
  }
  b->stack[s][0] = 0xa0;
  opal_keccak256(b->node, total, b->stack[s] + 1);
  b->stack_len[s] = SLOT;
}

static void set_masks_len(builder_t *b, int n) {
  if (n > b->masks_len) {
    for (int i = b->masks_len; i < n; i++) b->tree_masks[i] = b->hash_masks[i] = 0;
  }
  b->masks_len = n;
}

static void encode_leaf(builder_t *b, const uint8_t *path, int start, int end) {
  size_t vlen = b->val_len;
  uint8_t first = vlen > 0 ? b->val[0] : 0;
  size_t vstr = (vlen == 1 && first < 0x80) ? 1 : header_length(vlen) + vlen;
  size_t payload = path_string_length(end - start) + vstr;
  size_t total = header_length(payload) + payload;
  uint8_t *o = b->node;
  size_t pos = write_header(o, 0, payload, 0xc0);
  pos = write_path(o, pos, path, start, end, 0x20);
  if (!(vlen == 1 && first < 0x80)) pos = write_header(o, pos, vlen, 0x80);
  memcpy(o + pos, b->val, vlen);
  finish_node(b, total);
}

static void encode_extension(builder_t *b, const uint8_t *path, int start, int end) {
  int top = b->sp - 1;
  size_t child = b->stack_len[top];
  size_t payload = path_string_length(end - start) + child;
  size_t total = header_length(payload) + payload;
  uint8_t *o = b->node;
  size_t pos = write_header(o, 0, payload, 0xc0);
  pos = write_path(o, pos, path, start, end, 0);
  memcpy(o + pos, b->stack[top], child);
  b->sp = top;
  finish_node(b, total);
}

static void record_update(builder_t *b, const uint8_t *path, int len, uint16_t mask, int first, uint16_t leaf_mask) {
  if (b->out == NULL) return; /* a root only (opal_ordered_trie_root) */
  uint16_t hash_mask = b->hash_masks[len], tree_mask = b->tree_masks[len];
  int n = __builtin_popcount(hash_mask);
  size_t rec = 6 + 32 * (size_t)n + (leaf_mask != 0 ? 2 : 0);
  opal_bytes_t *out = b->out;
  if (!ensure(out, 1 + (size_t)len + 2 + rec)) {
    b->oom = 1;
    return;
  }
  uint8_t *o = out->buf + out->len;
  *o++ = (uint8_t)len;
  memcpy(o, path, (size_t)len);
  o += len;
  *o++ = (uint8_t)(rec >> 8);
  *o++ = (uint8_t)(rec & 0xff);
  *o++ = (uint8_t)(mask >> 8);
  *o++ = (uint8_t)(mask & 0xff);
  *o++ = (uint8_t)(tree_mask >> 8);
  *o++ = (uint8_t)(tree_mask & 0xff);
  *o++ = (uint8_t)(hash_mask >> 8);
  *o++ = (uint8_t)(hash_mask & 0xff);
  for (int i = 0, j = first; i < 16; i++) {
    if (!(mask & (1u << i))) continue;
    if (hash_mask & (1u << i)) {
      memcpy(o, b->stack[j] + 1, 32);
      o += 32;
    }
    j++;
  }
  if (leaf_mask != 0) {
    *o++ = (uint8_t)(leaf_mask >> 8);
    *o++ = (uint8_t)(leaf_mask & 0xff);
  }
  out->len += 1 + (size_t)len + 2 + rec;
  b->records++;
}

static void encode_branch(builder_t *b, const uint8_t *path, int len) {
  uint16_t mask = b->state_masks[len];
  int count = __builtin_popcount(mask);
  int first = b->sp - count;
  size_t payload = 1 + (size_t)(16 - count);
  for (int i = first; i < b->sp; i++) payload += b->stack_len[i];
  size_t total = header_length(payload) + payload;
  uint8_t *o = b->node;
  size_t pos = write_header(o, 0, payload, 0xc0);
  for (int i = 0, j = first; i < 16; i++) {
    if (mask & (1u << i)) {
      memcpy(o + pos, b->stack[j], b->stack_len[j]);
      pos += b->stack_len[j];
      j++;
    } else {
      o[pos++] = 0x80;
    }
  }
  o[pos] = 0x80;
  uint16_t bit = len > 0 ? (uint16_t)(1u << path[len - 1]) : 0;
  if (len > 0 && total >= 32) b->hash_masks[len - 1] |= bit;
  uint16_t leaf_mask = 0;
  if (b->leaf_hashes) {
    uint16_t kids = b->leaf_kids[len] & mask;
    for (int i = 0, j = first; i < 16; i++) {
      if (!(mask & (1u << i))) continue;
      if ((kids & (1u << i)) && b->stack_len[j] == SLOT) leaf_mask |= (uint16_t)(1u << i);
      j++;
    }
    b->hash_masks[len] |= leaf_mask;
  }
  if (b->tree_masks[len] != 0 || b->hash_masks[len] != 0) {
    if (len > 0) b->tree_masks[len - 1] |= bit;
    record_update(b, path, len, mask, first, leaf_mask);
  }
  b->sp = first;
  finish_node(b, total);
}

/* HashBuilder.fold for a current item that is a leaf. */
static void fold(builder_t *b, int succ_len, int cpl_full) {
  const uint8_t *cur = b->key;
  int cur_len = b->key_len;
  int build_extensions = 0;
  for (;;) {
    int preceding_exists = b->groups_len > 0;
    int preceding_len = preceding_exists ? b->groups_len - 1 : 0;
    int cpl = cpl_full < cur_len ? cpl_full : cur_len;
    int len = preceding_len > cpl ? preceding_len : cpl;
    if (b->groups_len <= len) {
      for (int i = b->groups_len; i <= len; i++) b->state_masks[i] = b->leaf_kids[i] = 0;
      b->groups_len = len + 1;
    }
    b->state_masks[len] |= (uint16_t)(1u << cur[len]);
    if (b->masks_len < cur_len) set_masks_len(b, cur_len);
    int len_from = succ_len > 0 || preceding_exists ? len + 1 : len;
    if (!build_extensions) {
      encode_leaf(b, cur, len_from, cur_len);
      if (len_from == len + 1) b->leaf_kids[len] |= (uint16_t)(1u << cur[len]);
    }
    if (build_extensions && len_from < cur_len) {
      if (len_from > 0) {
        uint16_t flag = (uint16_t)(1u << cur[len_from - 1]);
        b->hash_masks[len_from - 1] &= (uint16_t)~flag;
        if (b->tree_masks[cur_len - 1] != 0) b->tree_masks[len_from - 1] |= flag;
      }
      encode_extension(b, cur, len_from, cur_len);
      set_masks_len(b, len_from);
    }
    if (preceding_len <= cpl && succ_len > 0) return;
    if (succ_len > 0 || preceding_exists) encode_branch(b, cur, len);
    b->groups_len = len;
    set_masks_len(b, len);
    if (preceding_len == 0) return;
    cur_len = preceding_len;
    while (b->groups_len > 0 && b->state_masks[b->groups_len - 1] == 0) b->groups_len--;
    build_extensions = 1;
  }
}

static const uint8_t EMPTY_ROOT[32] = {0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45,
                                       0xe6, 0x92, 0xc0, 0xf8, 0x6e, 0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c,
                                       0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21};

/* The finished trie's root: its one node's hash (hashed here when the node is embedded-sized). */
static void write_root(const builder_t *b, uint8_t root[32]) {
  if (b->sp == 0)
    memcpy(root, EMPTY_ROOT, 32);
  else if (b->stack_len[b->sp - 1] == SLOT)
    memcpy(root, b->stack[b->sp - 1] + 1, 32);
  else
    opal_keccak256(b->stack[b->sp - 1], b->stack_len[b->sp - 1], root);
}

/*
 * A zeroed builder whose scratch fits any node of these leaves: a branch is at most 533 bytes, a
 * leaf its path (at most 34 bytes with headers), the value and the value's header. NULL when out of
 * memory. `out` NULL builds the root only.
 */
static builder_t *new_builder(size_t n, const uint32_t *offs, opal_bytes_t *out) {
  size_t max_val = 0;
  for (size_t i = 0; i < n; i++) {
    size_t l = offs[i + 1] - offs[i];
    if (l > max_val) max_val = l;
  }
  builder_t *b = calloc(1, sizeof(builder_t));
  if (b == NULL) return NULL;
  b->node = malloc(600 + max_val + 16);
  if (b->node == NULL) {
    free(b);
    return NULL;
  }
  b->out = out;
  return b;
}

/*
 * The fold of opal_sorted_trie and opal_sorted_trie_rows: leaf i's key is the 32 bytes at
 * keys + stride * i; with `wrap` its value is rlp(vals[offs[i]..offs[i+1])) (a storage word, at most
 * 55 bytes), else those bytes as they are.
 */
static long sorted_trie(const uint8_t *keys, size_t stride, size_t n, const uint8_t *vals, const uint32_t *offs,
                        int wrap, int leaf_hashes, uint8_t root[32], opal_bytes_t *out) {
  for (size_t i = 1; i < n; i++) {
    if (memcmp(keys + stride * (i - 1), keys + stride * i, 32) >= 0) return -1;
  }
  builder_t *b = new_builder(n, offs, out);
  if (b == NULL) return -2;
  b->key_len = KEY_NIBBLES;
  b->leaf_hashes = leaf_hashes;
  uint8_t next[KEY_NIBBLES];
  uint8_t wrapped[64];
  for (size_t i = 0; i < n && !b->oom; i++) {
    const uint8_t *k = keys + stride * i;
    for (int j = 0; j < 32; j++) {
      next[2 * j] = k[j] >> 4;
      next[2 * j + 1] = k[j] & 15;
    }
    if (b->has_key) {
      int cpl = 0;
      while (cpl < KEY_NIBBLES && b->key[cpl] == next[cpl]) cpl++;
      /* The previous leaf is encoded here, from the value set below on its turn. */
      fold(b, KEY_NIBBLES, cpl);
    }
    memcpy(b->key, next, KEY_NIBBLES);
    b->has_key = 1;
    const uint8_t *v = vals + offs[i];
    size_t vlen = offs[i + 1] - offs[i];
    if (wrap) {
      size_t w = 0;
      if (!(vlen == 1 && v[0] < 0x80)) wrapped[w++] = (uint8_t)(0x80 + vlen);
      memcpy(wrapped + w, v, vlen);
      b->val = wrapped;
      b->val_len = w + vlen;
    } else {
      b->val = v;
      b->val_len = vlen;
    }
  }
  if (b->has_key && !b->oom) fold(b, 0, 0);
  long records = b->records;
  int oom = b->oom;
  if (!oom) write_root(b, root);
  free(b->node);
  free(b);
  return oom ? -2 : records;
}

long opal_sorted_trie(const uint8_t *keys, size_t n, const uint8_t *vals, const uint32_t *offs, int leaf_hashes,
                      uint8_t root[32], opal_bytes_t *out) {
  return sorted_trie(keys, 32, n, vals, offs, 0, leaf_hashes, root, out);
}

long opal_sorted_trie_rows(const uint8_t *rows, size_t n, const uint8_t *vals, const uint32_t *offs, uint8_t root[32],
                           opal_bytes_t *out) {
  return sorted_trie(rows + 32, 64, n, vals, offs, 1, 0, root, out);
}

/* The nibbles of rlp(i) into nib; returns how many (2 per byte). */
static int index_key(size_t i, uint8_t *nib) {
  uint8_t k[9];
  int len = 1;
  if (i == 0) {
    k[0] = 0x80;
  } else if (i < 128) {
    k[0] = (uint8_t)i;
  } else {
    int bytes = 0;
    for (size_t v = i; v > 0; v >>= 8) bytes++;
    k[0] = (uint8_t)(0x80 + bytes);
    size_t v = i;
    for (int j = bytes; j >= 1; j--, v >>= 8) k[j] = (uint8_t)(v & 0xff);
    len = bytes + 1;
  }
  for (int j = 0; j < len; j++) {
    nib[2 * j] = k[j] >> 4;
    nib[2 * j + 1] = k[j] & 15;
  }
  return 2 * len;
}

int opal_ordered_trie_root(const uint8_t *vals, size_t n, const uint32_t *offs, uint8_t root[32]) {
  builder_t *b = new_builder(n, offs, NULL);
  if (b == NULL) return -2;
  uint8_t next[KEY_NIBBLES];
  /* Byte order of the keys: rlp(1..127) are 0x01..0x7f, rlp(0) is 0x80, rlp(i >= 128) is
   * 0x80+len ‖ big-endian i, so ascending in i. */
  size_t small = n < 128 ? n : 128;
  for (size_t k = 1; k <= n; k++) {
    size_t i = k < small ? k : (k == small ? 0 : k - 1);
    int next_len = index_key(i, next);
    if (b->has_key) {
      int m = next_len < b->key_len ? next_len : b->key_len;
      int cpl = 0;
      while (cpl < m && b->key[cpl] == next[cpl]) cpl++;
      fold(b, next_len, cpl);
    }
    memcpy(b->key, next, (size_t)next_len);
    b->key_len = next_len;
    b->has_key = 1;
    b->val = vals + offs[i];
    b->val_len = offs[i + 1] - offs[i];
  }
  if (b->has_key) fold(b, 0, 0);
  write_root(b, root);
  free(b->node);
  free(b);
  return 0;
}

/* Merges order runs [lo, mid) and [mid, hi) of src into dst: the left run's key first when equal. */
static void merge_keys32(const uint8_t *keys, const uint32_t *src, uint32_t *dst, size_t lo, size_t mid,
                         size_t hi) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) {
    if (memcmp(keys + 32 * (size_t)src[j], keys + 32 * (size_t)src[i], 32) < 0)
      dst[k++] = src[j++];
    else
      dst[k++] = src[i++];
  }
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
}

int opal_sort_keys32(const uint8_t *keys, size_t n, uint32_t *order) {
  for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  if (n < 2) return 0;
  /* Runs of 16 by insertion, then bottom-up merges between order and a scratch copy. */
  const size_t RUN = 16;
  for (size_t lo = 0; lo < n; lo += RUN) {
    size_t hi = lo + RUN < n ? lo + RUN : n;
    for (size_t i = lo + 1; i < hi; i++) {
      uint32_t x = order[i];
      size_t j = i;
      while (j > lo && memcmp(keys + 32 * (size_t)order[j - 1], keys + 32 * (size_t)x, 32) > 0) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = x;
    }
  }
  if (n <= RUN) return 0;
  uint32_t *tmp = (uint32_t *)malloc(n * sizeof(uint32_t));
  if (tmp == NULL) return -2;
  uint32_t *src = order, *dst = tmp;
  for (size_t w = RUN; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n;
      size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
      merge_keys32(keys, src, dst, lo, mid, hi);
    }
    uint32_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != order) memcpy(order, src, n * sizeof(uint32_t));
  free(tmp);
  return 0;
}
