#!/usr/bin/env node
// The postern binary: the compiled CLI (build with `npm run build` at the repository root).
import { run } from '../dist/entry.js';

await run(process.argv);
