#!/usr/bin/env node
// Compiled entry; run `npm run build` first.
require('../dist/gateway.main.js');
