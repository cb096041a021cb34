/*
 * Keccak-f[1600] and Keccak-256 over it, written for Opal from the Keccak reference specification
 * (FIPS 202 §3 step mappings θ ρ π χ ι; Ethereum uses the original Keccak padding 0x01 rather than
 * SHA-3's 0x06). Lanes are little-endian 64-bit words.
 *
 * PERF: the 25 lanes live in locals, in two sets that rounds map onto each other (two rounds per
 * pass), so they stay in registers instead of going through a b[25] array each round; on x86-64 a
 * second copy is compiled for BMI1, whose ANDN does χ's (~x & y) in one instruction, and is chosen
 * at load when the CPU has it. One permutation: ~340 → ~255 ns here (bench/README.md `evm`).
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

/*
 * One round from lanes a<i> into lanes e<i> (lane i = x + 5y): θ's column parities c and mixes d;
 * then for each output row y, the five lanes b = ρ(a ^ d) that π brings there (π moves lane
 * (x, y) to (y, 2x + 3y), so row y gathers lanes (x + 3y, x), x = 0..4), χ on them, and ι.
 */
#define KECCAK_ROUND(a, e, rc)                                                                          \
  do {                                                                                                  \
    uint64_t c0 = a##00 ^ a##05 ^ a##10 ^ a##15 ^ a##20, c1 = a##01 ^ a##06 ^ a##11 ^ a##16 ^ a##21;    \
    uint64_t c2 = a##02 ^ a##07 ^ a##12 ^ a##17 ^ a##22, c3 = a##03 ^ a##08 ^ a##13 ^ a##18 ^ a##23;    \
    uint64_t c4 = a##04 ^ a##09 ^ a##14 ^ a##19 ^ a##24;                                               \
    uint64_t d0 = c4 ^ ROL(c1, 1), d1 = c0 ^ ROL(c2, 1), d2 = c1 ^ ROL(c3, 1), d3 = c2 ^ ROL(c4, 1);    \
    uint64_t d4 = c3 ^ ROL(c0, 1);                                                                      \
    uint64_t b0 = a##00 ^ d0, b1 = ROL(a##06 ^ d1, 44), b2 = ROL(a##12 ^ d2, 43);                       \
    uint64_t b3 = ROL(a##18 ^ d3, 21), b4 = ROL(a##24 ^ d4, 14);                                        \
    e##00 = b0 ^ (~b1 & b2) ^ (rc), e##01 = b1 ^ (~b2 & b3), e##02 = b2 ^ (~b3 & b4);                   \
    e##03 = b3 ^ (~b4 & b0), e##04 = b4 ^ (~b0 & b1);                                                   \
    b0 = ROL(a##03 ^ d3, 28), b1 = ROL(a##09 ^ d4, 20), b2 = ROL(a##10 ^ d0, 3);                        \
    b3 = ROL(a##16 ^ d1, 45), b4 = ROL(a##22 ^ d2, 61);                                                 \
    e##05 = b0 ^ (~b1 & b2), e##06 = b1 ^ (~b2 & b3), e##07 = b2 ^ (~b3 & b4);                          \
    e##08 = b3 ^ (~b4 & b0), e##09 = b4 ^ (~b0 & b1);                                                   \
    b0 = ROL(a##01 ^ d1, 1), b1 = ROL(a##07 ^ d2, 6), b2 = ROL(a##13 ^ d3, 25);                         \
    b3 = ROL(a##19 ^ d4, 8), b4 = ROL(a##20 ^ d0, 18);                                                  \
    e##10 = b0 ^ (~b1 & b2), e##11 = b1 ^ (~b2 & b3), e##12 = b2 ^ (~b3 & b4);                          \
    e##13 = b3 ^ (~b4 & b0), e##14 = b4 ^ (~b0 & b1);                                                   \
    b0 = ROL(a##04 ^ d4, 27), b1 = ROL(a##05 ^ d0, 36), b2 = ROL(a##11 ^ d1, 10);                       \
    b3 = ROL(a##17 ^ d2, 15), b4 = ROL(a##23 ^ d3, 56);                                                 \
    e##15 = b0 ^ (~b1 & b2), e##16 = b1 ^ (~b2 & b3), e##17 = b2 ^ (~b3 & b4);                          \
    e##18 = b3 ^ (~b4 & b0), e##19 = b4 ^ (~b0 & b1);                                                   \
    b0 = ROL(a##02 ^ d2, 62), b1 = ROL(a##08 ^ d3, 55), b2 = ROL(a##14 ^ d4, 39);                       \
    b3 = ROL(a##15 ^ d0, 41), b4 = ROL(a##21 ^ d1, 2);                                                  \
    e##20 = b0 ^ (~b1 & b2), e##21 = b1 ^ (~b2 & b3), e##22 = b2 ^ (~b3 & b4);                          \
    e##23 = b3 ^ (~b4 & b0), e##24 = b4 ^ (~b0 & b1);                                                   \
  } while (0)

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

static ALWAYS_INLINE void permute(uint64_t s[25]) {
  uint64_t a00 = s[0], a01 = s[1], a02 = s[2], a03 = s[3], a04 = s[4];
  uint64_t a05 = s[5], a06 = s[6], a07 = s[7], a08 = s[8], a09 = s[9];
  uint64_t a10 = s[10], a11 = s[11], a12 = s[12], a13 = s[13], a14 = s[14];
  uint64_t a15 = s[15], a16 = s[16], a17 = s[17], a18 = s[18], a19 = s[19];
  uint64_t a20 = s[20], a21 = s[21], a22 = s[22], a23 = s[23], a24 = s[24];
  uint64_t e00, e01, e02, e03, e04, e05, e06, e07, e08, e09, e10, e11, e12;
  uint64_t e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
  for (int round = 0; round < 24; round += 2) {
    KECCAK_ROUND(a, e, RC[round]);
    KECCAK_ROUND(e, a, RC[round + 1]);
  }
  s[0] = a00, s[1] = a01, s[2] = a02, s[3] = a03, s[4] = a04;
  s[5] = a05, s[6] = a06, s[7] = a07, s[8] = a08, s[9] = a09;
  s[10] = a10, s[11] = a11, s[12] = a12, s[13] = a13, s[14] = a14;
  s[15] = a15, s[16] = a16, s[17] = a17, s[18] = a18, s[19] = a19;
  s[20] = a20, s[21] = a21, s[22] = a22, s[23] = a23, s[24] = a24;
}

static void keccak_f1600_generic(uint64_t s[25]) { permute(s); }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("bmi"))) static void keccak_f1600_bmi(uint64_t s[25]) { permute(s); }

static void (*keccak_f1600)(uint64_t s[25]) = keccak_f1600_generic;

__attribute__((constructor)) static void keccak_pick(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("bmi")) keccak_f1600 = keccak_f1600_bmi;
}
#else
#define keccak_f1600 keccak_f1600_generic
#endif

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
  /* The last block: its whole lanes straight from the input, then the lane holding the tail and the
   * 0x01 pad byte, and the final 0x80 in the last lane of the rate (the state there is still zero
   * or absorbed, so XOR is the padding). */
  size_t full = len / 8;
  for (size_t i = 0; i < full; i++) s[i] ^= load64le(in + 8 * i);
  uint8_t last[8] = {0};
  memcpy(last, in + 8 * full, len - 8 * full);
  last[len - 8 * full] = 0x01;
  s[full] ^= load64le(last);
  s[RATE / 8 - 1] ^= 0x8000000000000000ULL;
  keccak_f1600(s);
  for (int i = 0; i < 4; i++) store64le(out + 8 * i, s[i]);
}
