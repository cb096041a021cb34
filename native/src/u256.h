#ifndef OPAL_U256_H
#define OPAL_U256_H
#include <stdint.h>
/* r = (a · b) mod n, all four little-endian 64-bit limbs; r = 0 when n = 0. */
void opal_mulmod256(const uint64_t a[4], const uint64_t b[4], const uint64_t n[4], uint64_t r[4]);
#endif
