// The one file Piscina loads in every Opal worker thread, from the built node and from .ts sources.
//
// Why CommonJS: Piscina loads its file with require() first. On Node >= 20.19 require() of an ES
// module links and instantiates the whole module graph synchronously, and a worker terminated in that
// window (a pool destroyed, or the process exiting, while the worker still loads) aborts the whole
// process (V8 "IsGraphAsync must be used on an instantiated module"; seen in the crash suite's
// exec-import kind, and reproduced 2 in 80 by destroying pools at random points of their start-up).
// This file is plain CommonJS, so require() returns at once, and the real entry is loaded with
// import(), whose asynchronous loading a termination interrupts cleanly.
//
// Piscina awaits the `default` export when it is not a function, so exporting the load's promise
// keeps its order: the entry is loaded before the worker reports ready, on the worker's own event loop
// (an idle Piscina worker then blocks in Atomics.wait, so a load left for later would not progress).
// When the load settles this posts { opalWorkerLoaded: threadId } to the pool: PiscinaPool.destroy
// waits for it, so no worker is terminated while it loads (a native addon's init included).
//
// Under tsx (tests, benches) Node 20 does not register tsx's hooks in worker threads, so when
// workerData.tsx is set this registers tsx here before importing the .ts entry.
"use strict";
const { parentPort, threadId, workerData } = require("node:worker_threads");

async function load() {
  try {
    if (workerData.tsx === true) {
      const api = await import("tsx/esm/api");
      api.register();
    }
    const entry = await import(workerData.opalEntry);
    return entry.default;
  } finally {
    parentPort.postMessage({ opalWorkerLoaded: threadId });
  }
}

exports.__esModule = true;
exports.default = load();
