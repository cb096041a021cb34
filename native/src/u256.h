#ifndef OPAL_U256_H
#define OPAL_U256_H
#include <stdint.h>
/* r = (a · b) mod n, all four little-endian 64-bit limbs; r = 0 when n = 0. */
void opal_mulmod256(const uint64_t a[4], const uint64_t b[4], const uint64_t n[4], uint64_t r[4]);
/* q = a / b, r = a mod b (either may be NULL); both 0 when b = 0. */
void opal_divmod256(const uint64_t a[4], const uint64_t b[4], uint64_t q[4], uint64_t r[4]);
/* r = (a + b) mod n (the 257-bit sum reduced); r = 0 when n = 0. */
void opal_addmod256(const uint64_t a[4], const uint64_t b[4], const uint64_t n[4], uint64_t r[4]);
#endif
