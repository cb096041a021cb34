#!/usr/bin/env node
// Launcher of `opal-batcher` (bin/launch.js: the build when present, else the source through tsx).
import { launch } from "./launch.js";

await launch("opalBatcher");
