#!/usr/bin/env node
// Bundles the extension into dist/extension.cjs (CommonJS, as VS Code loads extensions), with vscode-languageclient
// inside it: the .vsix then needs no node_modules (`vsce package --no-dependencies`). `vscode` is provided by the
// editor at run time.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}dist`, { recursive: true, force: true });
const bundle = await rolldown({
  input: `${root}src/extension.ts`,
  platform: 'node',
  external: (id) => id === 'vscode' || id.startsWith('node:'),
  logLevel: 'warn',
});
await bundle.write({ file: `${root}dist/extension.cjs`, format: 'cjs', sourcemap: true, minify: true });
await bundle.close();
