#!/usr/bin/env node
// The `paysys-sandbox` command. A committed shim, so installing the workspace before a build
// can link the command (it would otherwise point at a dist/ file that does not exist yet).
import "../dist/cli.js";
