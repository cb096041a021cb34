#!/usr/bin/env node
// Launcher of `opal-devnet` (bin/launch.js: the build when present, else the source through tsx).
import { launch } from "./launch.js";

await launch("opalDevnet");
