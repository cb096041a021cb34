/**
 * Request limits of the rollup node's L1 client (op-node's `--l1.rpc-rate-limit`,
 * `--l1.rpc-max-batch-size`, `--l1.max-concurrency`):
 *
 * - `RateLimiter`: a token bucket with golang.org/x/time/rate's reservation semantics, as op-node
 *   uses it: `rate` tokens a second, at most `burst` in the bucket (op-node sets the burst to the
 *   batch size, so a batch of N costs N but may go out at once). A take reserves its tokens at once
 *   (the bucket may go below zero) and waits until the debt is repaid, so waiters are served in
 *   arrival order. Rate 0 disables it.
 * - `Semaphore`: at most `n` requests in flight, FIFO.
 */

export class RateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly rate: number,
    readonly burst: number,
    private readonly clock: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    if (!(rate >= 0) || !(burst >= 1)) throw new RangeError(`rate limiter: bad rate ${rate} or burst ${burst}`);
    this.tokens = burst;
    this.last = clock();
  }

  /** Waits until `n` tokens (n ≤ burst) are granted; rate 0 grants at once. */
  async take(n = 1): Promise<void> {
    if (this.rate === 0) return;
    if (n > this.burst) throw new RangeError(`rate limiter: ${n} requests exceed the burst of ${this.burst}`);
    const now = this.clock();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    this.tokens -= n;
    if (this.tokens < 0) await this.sleep((-this.tokens / this.rate) * 1000);
  }
}

export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new RangeError(`semaphore: bad limit ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Runs `f` once fewer than `limit` others run. */
  async run<T>(f: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    else this.active++;
    try {
      return await f();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.active--;
    }
  }
}
