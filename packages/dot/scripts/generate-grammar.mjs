#!/usr/bin/env node
// Writes src/dot-grammar-source.ts from src/dot.ohm, so that the grammar reaches runtime as a plain
// string module (works for tsc builds, vitest from src, bundlers and browsers alike).
// The generated file is committed; src/dot-grammar-source.test.ts fails when it is out of date.
import { readFileSync, writeFileSync } from 'node:fs';

const grammarUrl = new URL('../src/dot.ohm', import.meta.url);
const outputUrl = new URL('../src/dot-grammar-source.ts', import.meta.url);

const grammar = readFileSync(grammarUrl, 'utf8');
const literal = grammar.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${');
const output = `// Generated from dot.ohm by scripts/generate-grammar.mjs (\`pnpm --filter @attractor/dot generate\`).
// Do not edit: edit dot.ohm and regenerate.

/** The text of \`dot.ohm\`, the Ohm grammar of the Attractor DOT subset (spec §2.2). */
export const dotGrammarSource = \`${literal}\`;
`;
writeFileSync(outputUrl, output);
