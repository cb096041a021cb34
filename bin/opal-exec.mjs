#!/usr/bin/env node
// Launcher of `opal-exec` (bin/launch.mjs: the build when present, else the source through tsx).
import { launch } from "./launch.js";

await launch("opalExec");
