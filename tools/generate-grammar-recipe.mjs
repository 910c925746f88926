#!/usr/bin/env node
// Writes an Ohm grammar's recipe (`grammar.toRecipe()`, JSON) as a TypeScript string module, so the package can
// build its grammar with `makeRecipe` at load instead of compiling the grammar text: ~2 ms instead of 0.3-1.7 s
// of CPU in a cold process (the CLI pays that on every command). Run from a package directory:
//   node ../../tools/generate-grammar-recipe.mjs <src/grammar.ohm | src/x-grammar.ts> <src/x-grammar-recipe.ts> <exportName>
// A .ts input holds the grammar text in a String.raw`...` literal. The output is committed; each package has a test
// that fails when it is out of date.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [input, output, exportName] = process.argv.slice(2);
if (!input || !output || !exportName) {
  console.error('usage: generate-grammar-recipe.mjs <input .ohm|.ts> <output .ts> <exportName>');
  process.exit(2);
}
// Resolve ohm-js from the calling package, which depends on it.
const ohmPath = createRequire(path.join(process.cwd(), 'package.json')).resolve('ohm-js');
const ohm = await import(pathToFileURL(ohmPath).href);
const text = readFileSync(input, 'utf8');
let source = text;
if (input.endsWith('.ts')) {
  const match = /String\.raw`([^`]*)`/.exec(text);
  if (!match) throw new Error(`${input}: no String.raw\`...\` grammar literal found`);
  source = match[1];
}
const recipe = ohm.grammar(source).toRecipe();
writeFileSync(
  output,
  `// Generated from ${path.basename(input)} by tools/generate-grammar-recipe.mjs (\`pnpm generate\` in this package).
// Do not edit: edit the grammar and regenerate.

/** The Ohm recipe (\`grammar.toRecipe()\`, JSON) of the grammar in ${path.basename(input)}, loaded with \`makeRecipe\`. */
export const ${exportName} = ${JSON.stringify(recipe)};
`,
);
// Format as the repository does, so a regenerated file differs only where the grammar changed.
execFileSync('pnpm', ['exec', 'biome', 'format', '--write', output], { stdio: 'ignore' });
console.log(`${output}: ${recipe.length} characters`);
