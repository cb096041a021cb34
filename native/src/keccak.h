/* Keccak-256 (the pre-FIPS padding used by Ethereum: 0x01 … 0x80, rate 136 bytes). */
#ifndef OPAL_KECCAK_H
#define OPAL_KECCAK_H
#include <stddef.h>
#include <stdint.h>

void opal_keccak256(const uint8_t *in, size_t len, uint8_t out[32]);

#endif
