/* The interpreter's native core (interp.c): a stretch of EVM code on a 256-bit limb stack. */
#ifndef OPAL_INTERP_H
#define OPAL_INTERP_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *code;
  size_t code_len;
  /* One byte per code byte, 1 at a valid JUMPDEST. */
  const uint8_t *jumpdests;
  /* The frame's memory; only [0, mem_size) (the active size) is read or written. */
  uint8_t *mem;
  size_t mem_size;
  /* Slot i is limbs stack[4i .. 4i+4), least significant first; slots below `lo` are not loaded. */
  uint64_t *stack;
  int lo;
  /* The fork's tables, 256 entries each: constant gas, least stack, largest stack, runs here (0/1). */
  const int32_t *cfg;
  /* In: where to start. Out: where it stopped (the opcode at pc not run). */
  size_t pc;
  int sp;
  int64_t gas;
  /* In/out: JUMP/JUMPI it may still run (stopping before the next one at 0). */
  int64_t jumps;
  /* In/out: no slot below this index was written (it only goes down). */
  int low;
  /* Out: opcodes run. */
  uint64_t ops;
} opal_evm_run_t;

void opal_evm_run(opal_evm_run_t *r);

#endif
