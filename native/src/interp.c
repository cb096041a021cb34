/*
 * The interpreter's native core: runs a stretch of EVM code on a stack of 256-bit words held as four
 * little-endian 64-bit limbs, for the opcodes that touch nothing but the stack, the frame's active
 * memory and the code (arithmetic, comparisons, bits, KECCAK256/MLOAD/MSTORE/MSTORE8 within active
 * memory, jumps, PUSH/DUP/SWAP/POP, PC/GAS/MSIZE). It stops *before* anything else: an opcode outside
 * that set or not defined by the fork (the per-fork mask), a stack bound, too little gas, a memory
 * access past the active size, a bad jump, a word read below the part of the stack it was given, a
 * jump beyond its budget (the TS loop reads the clock under a deadline every so many jumps).
 * Stopping is never a fault here: the TS loop (src/evm/evm.ts, the pure twin of this file) picks up
 * at that pc and runs the opcode, so every error, growth and fee is decided in one place.
 *
 * Semantics are the TS loop's, opcode for opcode (opcodes/arithmetic.ts, flow.ts, memory.ts).
 */
#include "interp.h"
#include <string.h>
#include "keccak.h"
#include "u256.h"

typedef unsigned __int128 u128;

#define W(i) (st + 4 * (size_t)(i))

static inline int is_zero(const uint64_t *a) { return (a[0] | a[1] | a[2] | a[3]) == 0; }

/* -1, 0, 1 as a is below, equal to or above b (unsigned). */
static inline int cmp_u(const uint64_t *a, const uint64_t *b) {
  for (int i = 3; i >= 0; i--) {
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/* Two's-complement order: a negative word (top bit set) is below every non-negative one. */
static inline int cmp_s(const uint64_t *a, const uint64_t *b) {
  int na = (int)(a[3] >> 63), nb = (int)(b[3] >> 63);
  if (na != nb) return na ? -1 : 1;
  return cmp_u(a, b);
}

static inline void set_small(uint64_t *r, uint64_t v) {
  r[0] = v;
  r[1] = r[2] = r[3] = 0;
}

/* The shift amount of SHL/SHR/SAR and BYTE's index: 256 (out of range) when it does not fit. */
static inline unsigned small_index(const uint64_t *a) {
  return (a[1] | a[2] | a[3]) != 0 || a[0] > 256 ? 256u : (unsigned)a[0];
}

/* r = x << s (s < 256), r may be x. */
static void shl(const uint64_t *x, unsigned s, uint64_t *r) {
  unsigned limbs = s >> 6, bits = s & 63;
  uint64_t t[4];
  for (int i = 3; i >= 0; i--) {
    int from = i - (int)limbs;
    uint64_t v = from >= 0 ? x[from] << bits : 0;
    if (bits != 0 && from - 1 >= 0) v |= x[from - 1] >> (64 - bits);
    t[i] = v;
  }
  memcpy(r, t, sizeof t);
}

/* r = x >> s (s < 256), filling with `fill` (0 or all ones) from the top, r may be x. */
static void shr(const uint64_t *x, unsigned s, uint64_t fill, uint64_t *r) {
  unsigned limbs = s >> 6, bits = s & 63;
  uint64_t t[4];
  for (int i = 0; i < 4; i++) {
    unsigned from = (unsigned)i + limbs;
    uint64_t lo = from < 4 ? x[from] : fill;
    uint64_t hi = from + 1 < 4 ? x[from + 1] : fill;
    t[i] = bits == 0 ? lo : (lo >> bits) | (hi << (64 - bits));
  }
  memcpy(r, t, sizeof t);
}

/* Big-endian 32 bytes ↔ limbs. */
static inline uint64_t be64(const uint8_t *p) {
  uint64_t w = 0;
  for (int j = 0; j < 8; j++) w = (w << 8) | p[j];
  return w;
}
static inline void put_be64(uint8_t *p, uint64_t w) {
  for (int j = 7; j >= 0; j--) {
    p[j] = (uint8_t)w;
    w >>= 8;
  }
}

/* The offset word of a memory access of `len` bytes when it lies in [0, mem_size); else -1. */
static inline int64_t mem_at(const uint64_t *o, uint64_t len, size_t mem_size) {
  if ((o[1] | o[2] | o[3]) != 0 || o[0] > mem_size || len > mem_size - o[0]) return -1;
  return (int64_t)o[0];
}

void opal_evm_run(opal_evm_run_t *r) {
  const uint8_t *code = r->code;
  const size_t n = r->code_len;
  const uint8_t *jumpdests = r->jumpdests;
  uint8_t *mem = r->mem;
  const size_t mem_size = r->mem_size;
  const int32_t *gas_t = r->cfg, *min_t = r->cfg + 256, *max_t = r->cfg + 512, *mask = r->cfg + 768;
  uint64_t *st = r->stack;
  const int lo = r->lo;
  size_t pc = r->pc;
  int sp = r->sp, low = r->low;
  int64_t gas = r->gas, jumps = r->jumps;
  uint64_t ops = 0;
  for (;;) {
    const uint8_t op = pc < n ? code[pc] : 0;
    if (!mask[op] || sp < min_t[op] || sp > max_t[op] || sp - min_t[op] < lo) break;
    int64_t g = gas - gas_t[op];
    if (g < 0) break;
    switch (op) {
      case 0x01: { /* ADD */
        const uint64_t *a = W(sp - 1);
        uint64_t *b = W(sp - 2);
        u128 c = 0;
        for (int i = 0; i < 4; i++) {
          c += (u128)a[i] + b[i];
          b[i] = (uint64_t)c;
          c >>= 64;
        }
        sp--;
        break;
      }
      case 0x02: { /* MUL: the low 256 bits */
        const uint64_t *a = W(sp - 1);
        uint64_t *b = W(sp - 2);
        uint64_t p[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; i++) {
          if (a[i] == 0) continue;
          uint64_t carry = 0;
          for (int j = 0; i + j < 4; j++) {
            u128 t = (u128)a[i] * b[j] + p[i + j] + carry;
            p[i + j] = (uint64_t)t;
            carry = (uint64_t)(t >> 64);
          }
        }
        memcpy(b, p, sizeof p);
        sp--;
        break;
      }
      case 0x03: { /* SUB: top − second */
        const uint64_t *a = W(sp - 1);
        uint64_t *b = W(sp - 2);
        uint64_t borrow = 0;
        for (int i = 0; i < 4; i++) {
          uint64_t x = a[i], y = b[i];
          uint64_t d = x - y - borrow;
          borrow = (x < y) || (x - y < borrow);
          b[i] = d;
        }
        sp--;
        break;
      }
      case 0x04:   /* DIV */
      case 0x06: { /* MOD */
        const uint64_t *a = W(sp - 1);
        uint64_t *b = W(sp - 2);
        uint64_t t[4];
        if ((a[1] | a[2] | a[3] | b[1] | b[2] | b[3]) == 0) {
          set_small(t, b[0] == 0 ? 0 : op == 0x04 ? a[0] / b[0] : a[0] % b[0]);
        } else if (op == 0x04) {
          opal_divmod256(a, b, t, NULL);
        } else {
          opal_divmod256(a, b, NULL, t);
        }
        memcpy(b, t, sizeof t);
        sp--;
        break;
      }
      case 0x08:   /* ADDMOD */
      case 0x09: { /* MULMOD */
        const uint64_t *a = W(sp - 1), *b = W(sp - 2);
        uint64_t *m = W(sp - 3);
        uint64_t t[4];
        if (op == 0x08) opal_addmod256(a, b, m, t);
        else opal_mulmod256(a, b, m, t);
        memcpy(m, t, sizeof t);
        sp -= 2;
        break;
      }
      case 0x10: /* LT */
      case 0x11: /* GT */
      case 0x12: /* SLT */
      case 0x13: /* SGT */
      case 0x14: { /* EQ */
        const uint64_t *a = W(sp - 1);
        uint64_t *b = W(sp - 2);
        int c = op <= 0x11 ? cmp_u(a, b) : op <= 0x13 ? cmp_s(a, b) : 0;
        uint64_t v = op == 0x14 ? (uint64_t)(cmp_u(a, b) == 0) : (op == 0x10 || op == 0x12) ? c < 0 : c > 0;
        set_small(b, v);
        sp--;
        break;
      }
      case 0x15: { /* ISZERO */
        uint64_t *a = W(sp - 1);
        set_small(a, is_zero(a));
        break;
      }
      case 0x16:
      case 0x17:
      case 0x18: { /* AND OR XOR */
        const uint64_t *a = W(sp - 1);
        uint64_t *b = W(sp - 2);
        for (int i = 0; i < 4; i++) b[i] = op == 0x16 ? a[i] & b[i] : op == 0x17 ? a[i] | b[i] : a[i] ^ b[i];
        sp--;
        break;
      }
      case 0x19: { /* NOT */
        uint64_t *a = W(sp - 1);
        for (int i = 0; i < 4; i++) a[i] = ~a[i];
        break;
      }
      case 0x1a: { /* BYTE: byte i of x, counted from the most significant */
        unsigned i = small_index(W(sp - 1));
        uint64_t *x = W(sp - 2);
        uint64_t v = 0;
        if (i < 32) {
          unsigned from_low = 31 - i;
          v = (x[from_low >> 3] >> (8 * (from_low & 7))) & 0xff;
        }
        set_small(x, v);
        sp--;
        break;
      }
      case 0x1b:   /* SHL */
      case 0x1c:   /* SHR */
      case 0x1d: { /* SAR */
        unsigned s = small_index(W(sp - 1));
        uint64_t *x = W(sp - 2);
        uint64_t fill = op == 0x1d && (x[3] >> 63) ? ~(uint64_t)0 : 0;
        if (s >= 256) {
          x[0] = x[1] = x[2] = x[3] = op == 0x1d ? fill : 0;
        } else if (op == 0x1b) {
          shl(x, s, x);
        } else {
          shr(x, s, fill, x);
        }
        sp--;
        break;
      }
      case 0x20: { /* KECCAK256 within active memory */
        const uint64_t *o = W(sp - 1), *l = W(sp - 2);
        if ((l[1] | l[2] | l[3]) != 0 || l[0] > mem_size) goto stop;
        int64_t at = mem_at(o, l[0], mem_size);
        if (at < 0) goto stop;
        int64_t cost = 6 * (int64_t)((l[0] + 31) >> 5);
        if (g < cost) goto stop;
        g -= cost;
        uint8_t d[32];
        opal_keccak256(mem + at, (size_t)l[0], d);
        uint64_t *out = W(sp - 2);
        for (int i = 0; i < 4; i++) out[i] = be64(d + 24 - 8 * i);
        sp--;
        break;
      }
      case 0x50: /* POP */
        sp--;
        break;
      case 0x51: { /* MLOAD */
        uint64_t *o = W(sp - 1);
        int64_t at = mem_at(o, 32, mem_size);
        if (at < 0) goto stop;
        for (int i = 0; i < 4; i++) o[i] = be64(mem + at + 24 - 8 * i);
        break;
      }
      case 0x52: { /* MSTORE */
        int64_t at = mem_at(W(sp - 1), 32, mem_size);
        if (at < 0) goto stop;
        const uint64_t *v = W(sp - 2);
        for (int i = 0; i < 4; i++) put_be64(mem + at + 24 - 8 * i, v[i]);
        sp -= 2;
        break;
      }
      case 0x53: { /* MSTORE8 */
        int64_t at = mem_at(W(sp - 1), 1, mem_size);
        if (at < 0) goto stop;
        mem[at] = (uint8_t)W(sp - 2)[0];
        sp -= 2;
        break;
      }
      case 0x56: { /* JUMP */
        const uint64_t *d = W(sp - 1);
        if (jumps <= 0 || (d[1] | d[2] | d[3]) != 0 || d[0] >= n || jumpdests[d[0]] != 1) goto stop;
        jumps--;
        pc = (size_t)d[0];
        sp--;
        gas = g;
        ops++;
        if (sp - 1 < low) low = sp - 1;
        continue;
      }
      case 0x57: { /* JUMPI */
        const uint64_t *d = W(sp - 1);
        if (jumps <= 0) goto stop;
        if (!is_zero(W(sp - 2))) {
          if ((d[1] | d[2] | d[3]) != 0 || d[0] >= n || jumpdests[d[0]] != 1) goto stop;
          jumps--;
          pc = (size_t)d[0];
          sp -= 2;
          gas = g;
          ops++;
          if (sp - 1 < low) low = sp - 1;
          continue;
        }
        jumps--;
        sp -= 2;
        break;
      }
      case 0x58: /* PC */
        set_small(W(sp), pc);
        sp++;
        break;
      case 0x59: /* MSIZE */
        set_small(W(sp), mem_size);
        sp++;
        break;
      case 0x5a: /* GAS, after its own charge */
        set_small(W(sp), (uint64_t)g);
        sp++;
        break;
      case 0x5b: /* JUMPDEST */
        break;
      case 0x5f: /* PUSH0 */
        set_small(W(sp), 0);
        sp++;
        break;
      case 0x60: case 0x61: case 0x62: case 0x63: case 0x64: case 0x65: case 0x66: case 0x67:
      case 0x68: case 0x69: case 0x6a: case 0x6b: case 0x6c: case 0x6d: case 0x6e: case 0x6f:
      case 0x70: case 0x71: case 0x72: case 0x73: case 0x74: case 0x75: case 0x76: case 0x77:
      case 0x78: case 0x79: case 0x7a: case 0x7b: case 0x7c: case 0x7d: case 0x7e: case 0x7f: {
        /* The immediate big-endian; bytes past the end of the code read as zero. */
        const unsigned len = op - 0x5f;
        uint64_t *w = W(sp);
        w[0] = w[1] = w[2] = w[3] = 0;
        for (unsigned j = 0; j < len; j++) {
          size_t at = pc + 1 + j;
          uint64_t b = at < n ? code[at] : 0;
          unsigned bit = 8 * (len - 1 - j);
          w[bit >> 6] |= b << (bit & 63);
        }
        sp++;
        pc += len;
        break;
      }
      case 0x80: case 0x81: case 0x82: case 0x83: case 0x84: case 0x85: case 0x86: case 0x87:
      case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8c: case 0x8d: case 0x8e: case 0x8f:
        memcpy(W(sp), W(sp - (op - 0x7f)), 32);
        sp++;
        break;
      case 0x90: case 0x91: case 0x92: case 0x93: case 0x94: case 0x95: case 0x96: case 0x97:
      case 0x98: case 0x99: case 0x9a: case 0x9b: case 0x9c: case 0x9d: case 0x9e: case 0x9f: {
        uint64_t *a = W(sp - 1), *b = W(sp - 1 - (op - 0x8f));
        uint64_t t[4];
        memcpy(t, a, 32);
        memcpy(a, b, 32);
        memcpy(b, t, 32);
        if (sp - 1 - (op - 0x8f) < low) low = sp - 1 - (op - 0x8f);
        break;
      }
      default:
        goto stop;
    }
    pc++;
    gas = g;
    ops++;
    if (sp - 1 < low) low = sp - 1;
  }
stop:
  r->pc = pc;
  r->sp = sp;
  r->gas = gas;
  r->jumps = jumps;
  r->low = low;
  r->ops = ops;
}
