// Packages the library: copies the sources into <out>/package and writes a manifest with sizes and hashes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = join(process.argv[2] ?? 'dist', 'package');
mkdirSync(join(out, 'src'), { recursive: true });
const files = [];
for (const name of readdirSync(new URL('../src/', import.meta.url))) {
  const text = readFileSync(new URL(`../src/${name}`, import.meta.url));
  writeFileSync(join(out, 'src', name), text);
  files.push({
    path: `src/${name}`,
    bytes: text.length,
    sha256: createHash('sha256').update(text).digest('hex'),
  });
}
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify({ files }, null, 2)}\n`);
console.log(`packaged ${files.length} files into ${out}`);
for (const file of files) console.log(`  ${file.path} ${file.bytes} bytes`);
