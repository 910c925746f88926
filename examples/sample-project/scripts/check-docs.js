// Fails when an export of src/index.js is not documented in README.md.
import { readFileSync } from 'node:fs';

const index = readFileSync(new URL('../src/index.js', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const exported = [...index.matchAll(/export\s*\{([^}]*)\}/g)].flatMap((m) =>
  m[1].split(',').map((s) => s.trim()),
);
const missing = exported.filter((name) => name && !readme.includes(`\`${name}\``));
if (missing.length > 0) {
  console.error(`README.md does not document: ${missing.join(', ')}`);
  process.exit(1);
}
console.log(`README.md documents all ${exported.length} exports: ${exported.join(', ')}`);
