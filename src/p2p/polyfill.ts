/**
 * The one place Opal patches the runtime: libp2p 3 (it-queue, mortice, yamux, ping, @libp2p/utils)
 * calls `Promise.withResolvers`, which Node 20 lacks (it arrived in Node 22). This module installs a
 * spec-shaped stand-in when the method is missing and does nothing on Node 22+. `host.ts` imports it
 * before it loads libp2p (dynamically), so nothing in libp2p can run first.
 */
interface WithResolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const P = Promise as unknown as { withResolvers?: <T>() => WithResolvers<T> };
if (typeof P.withResolvers !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function withResolvers<T>(this: PromiseConstructor): WithResolvers<T> {
      let resolve!: WithResolvers<T>["resolve"];
      let reject!: WithResolvers<T>["reject"];
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export const PROMISE_WITH_RESOLVERS_READY = true;
