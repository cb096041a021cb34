/* Merkle-Patricia trie roots: stored branch records from sorted 32-byte keys, index-keyed lists (trie.c). */
#ifndef OPAL_TRIE_H
#define OPAL_TRIE_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  uint8_t *buf;
  size_t len;
  size_t cap;
} opal_bytes_t;

/*
 * Leaf i has key keys[32i .. 32i+32) and value vals[offs[i] .. offs[i+1]); keys strictly ascending.
 * Writes the root to root[0..32) and appends each storable branch (HashBuilder's `updates`, in its
 * order) to out as: path length (1 byte), the path's nibbles, record length (2 bytes BE), the record
 * (branchNodeCompact.ts; with `leaf_hashes`, the hashed leaf children's hashes and the leaf mask
 * too: the account trie's layout). Returns the number of records, -1 when the keys are not strictly
 * ascending, -2 when out of memory.
 */
long opal_sorted_trie(const uint8_t *keys, size_t n, const uint8_t *vals, const uint32_t *offs, int leaf_hashes,
                      uint8_t root[32], opal_bytes_t *out);
/*
 * opal_sorted_trie of a new contract's packed storage rows: row i is 64 bytes (hashed address ‖ the
 * leaf's key), its value the raw storage word vals[offs[i]..offs[i+1]) (1..55 bytes), which the
 * leaf holds RLP-encoded.
 */
long opal_sorted_trie_rows(const uint8_t *rows, size_t n, const uint8_t *vals, const uint32_t *offs, uint8_t root[32],
                           opal_bytes_t *out);

/*
 * Root of the trie keyed by rlp(i) whose leaf i is vals[offs[i] .. offs[i+1]) (a block's transactions,
 * receipts or withdrawals root; orderedRoot.ts). Returns 0, or -2 when out of memory.
 */
int opal_ordered_trie_root(const uint8_t *vals, size_t n, const uint32_t *offs, uint8_t root[32]);

/*
 * Writes to order[0..n) the permutation that sorts the 32-byte keys keys[32i .. 32i+32) ascending,
 * equal keys in input order (a stable merge sort over indexes). Returns 0, or -2 when out of memory.
 */
int opal_sort_keys32(const uint8_t *keys, size_t n, uint32_t *order);

#endif
