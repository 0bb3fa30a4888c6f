#!/usr/bin/env node
// The postern binary: the compiled CLI (build with `npm run build` at the repository root).
import { main } from '../dist/main.js';

await main(process.argv);
