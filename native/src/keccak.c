/*
 * Keccak-f[1600] and Keccak-256 over it, written for Opal from the Keccak reference specification
 * (FIPS 202 §3 step mappings θ ρ π χ ι; Ethereum uses the original Keccak padding 0x01 rather than
 * SHA-3's 0x06). Lanes are little-endian 64-bit words; the permutation is fully unrolled per round
 * by the compiler from the small loops below.
 */
#include "keccak.h"
#include <string.h>

static const uint64_t RC[24] = {
  0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
  0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
  0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
  0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
  0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
  0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

#define ROL(x, s) (((x) << (s)) | ((x) >> (64 - (s))))

static void keccak_f1600(uint64_t s[25]) {
  for (int round = 0; round < 24; round++) {
    uint64_t c0 = s[0] ^ s[5] ^ s[10] ^ s[15] ^ s[20];
    uint64_t c1 = s[1] ^ s[6] ^ s[11] ^ s[16] ^ s[21];
    uint64_t c2 = s[2] ^ s[7] ^ s[12] ^ s[17] ^ s[22];
    uint64_t c3 = s[3] ^ s[8] ^ s[13] ^ s[18] ^ s[23];
    uint64_t c4 = s[4] ^ s[9] ^ s[14] ^ s[19] ^ s[24];
    uint64_t d0 = c4 ^ ROL(c1, 1);
    uint64_t d1 = c0 ^ ROL(c2, 1);
    uint64_t d2 = c1 ^ ROL(c3, 1);
    uint64_t d3 = c2 ^ ROL(c4, 1);
    uint64_t d4 = c3 ^ ROL(c0, 1);

    /* θ, then ρ and π into b[] (b[y][2x+3y] = rot(a[x][y])) */
    uint64_t b[25];
    b[0] = s[0] ^ d0;
    b[10] = ROL(s[1] ^ d1, 1);
    b[20] = ROL(s[2] ^ d2, 62);
    b[5] = ROL(s[3] ^ d3, 28);
    b[15] = ROL(s[4] ^ d4, 27);
    b[16] = ROL(s[5] ^ d0, 36);
    b[1] = ROL(s[6] ^ d1, 44);
    b[11] = ROL(s[7] ^ d2, 6);
    b[21] = ROL(s[8] ^ d3, 55);
    b[6] = ROL(s[9] ^ d4, 20);
    b[7] = ROL(s[10] ^ d0, 3);
    b[17] = ROL(s[11] ^ d1, 10);
    b[2] = ROL(s[12] ^ d2, 43);
    b[12] = ROL(s[13] ^ d3, 25);
    b[22] = ROL(s[14] ^ d4, 39);
    b[23] = ROL(s[15] ^ d0, 41);
    b[8] = ROL(s[16] ^ d1, 45);
    b[18] = ROL(s[17] ^ d2, 15);
    b[3] = ROL(s[18] ^ d3, 21);
    b[13] = ROL(s[19] ^ d4, 8);
    b[14] = ROL(s[20] ^ d0, 18);
    b[24] = ROL(s[21] ^ d1, 2);
    b[9] = ROL(s[22] ^ d2, 61);
    b[19] = ROL(s[23] ^ d3, 56);
    b[4] = ROL(s[24] ^ d4, 14);

    /* χ */
    for (int y = 0; y < 25; y += 5) {
      uint64_t t0 = b[y], t1 = b[y + 1], t2 = b[y + 2], t3 = b[y + 3], t4 = b[y + 4];
      s[y] = t0 ^ (~t1 & t2);
      s[y + 1] = t1 ^ (~t2 & t3);
      s[y + 2] = t2 ^ (~t3 & t4);
      s[y + 3] = t3 ^ (~t4 & t0);
      s[y + 4] = t4 ^ (~t0 & t1);
    }
    /* ι */
    s[0] ^= RC[round];
  }
}

static inline uint64_t load64le(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline void store64le(uint8_t *p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  memcpy(p, &v, 8);
}

#define RATE 136

void opal_keccak256(const uint8_t *in, size_t len, uint8_t out[32]) {
  uint64_t s[25] = {0};
  while (len >= RATE) {
    for (int i = 0; i < RATE / 8; i++) s[i] ^= load64le(in + 8 * i);
    keccak_f1600(s);
    in += RATE;
    len -= RATE;
  }
  uint8_t block[RATE];
  memset(block, 0, RATE);
  memcpy(block, in, len);
  block[len] ^= 0x01;
  block[RATE - 1] ^= 0x80;
  for (int i = 0; i < RATE / 8; i++) s[i] ^= load64le(block + 8 * i);
  keccak_f1600(s);
  for (int i = 0; i < 4; i++) store64le(out + 8 * i, s[i]);
}
