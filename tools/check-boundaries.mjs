#!/usr/bin/env node
// Enforces the dependency direction of STYLE.md §2: imports point down only, and a package is used
// only through its public entry. Run by `pnpm lint` and therefore by CI.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ALLOWED = {
  '@attractor/errors': [],
  '@attractor/dot': ['@attractor/errors'],
  '@attractor/condition': ['@attractor/errors'],
  '@attractor/stylesheet': ['@attractor/errors'],
  '@attractor/graph': [
    '@attractor/errors',
    '@attractor/dot',
    '@attractor/condition',
    '@attractor/stylesheet',
  ],
  '@attractor/engine': ['@attractor/errors', '@attractor/graph', '@attractor/condition'],
  '@attractor/handlers': ['@attractor/errors', '@attractor/engine', '@attractor/graph'],
  '@attractor/backend-ai-sdk': ['@attractor/errors', '@attractor/engine', '@attractor/graph'],
  '@attractor/backend-agent-cli': ['@attractor/errors', '@attractor/engine', '@attractor/graph'],
  '@attractor/store-postgres': ['@attractor/errors', '@attractor/engine'],
  '@attractor/worker': ['@attractor/errors', '@attractor/engine', '@attractor/graph'],
  '@attractor/workspace': ['@attractor/errors', '@attractor/engine', '@attractor/graph'],
  '@attractor/language-server': [
    '@attractor/errors',
    '@attractor/dot',
    '@attractor/condition',
    '@attractor/stylesheet',
    '@attractor/graph',
  ],
};
// Extra packages a package's tests may use (devDependencies only; its src may still not import them). The
// AI-SDK backend runs real pipelines through the codergen handler in its end-to-end tests.
const ALLOWED_IN_TESTS = {
  '@attractor/backend-ai-sdk': ['@attractor/handlers'],
  '@attractor/backend-agent-cli': ['@attractor/handlers'],
  '@attractor/worker': ['@attractor/handlers', '@attractor/store-postgres'],
  '@attractor/workspace': ['@attractor/handlers'],
};
// Composition roots and test-only packages may use everything.
const ANYTHING = '*';

const root = new URL('..', import.meta.url).pathname;
const problems = [];

function* packageDirs() {
  for (const group of ['packages', 'apps', 'examples', 'tools']) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const pkgDir = join(dir, name);
      if (existsSync(join(pkgDir, 'package.json'))) yield pkgDir;
    }
  }
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry)) yield path;
  }
}

for (const pkgDir of packageDirs()) {
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  const allowed = ALLOWED[pkg.name] ?? ANYTHING;
  const declared = new Set(
    Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies }).filter((d) =>
      d.startsWith('@attractor/'),
    ),
  );
  const testOnly = ALLOWED_IN_TESTS[pkg.name] ?? [];
  if (allowed !== ANYTHING) {
    for (const dep of declared) {
      const devOnly =
        pkg.devDependencies?.[dep] !== undefined &&
        pkg.dependencies?.[dep] === undefined &&
        pkg.peerDependencies?.[dep] === undefined;
      if (devOnly && testOnly.includes(dep)) continue;
      if (!allowed.includes(dep))
        problems.push(`${pkg.name} depends on ${dep}, which STYLE.md §2 does not allow`);
    }
  }
  const srcDir = join(pkgDir, 'src');
  if (!existsSync(srcDir)) continue;
  for (const file of sourceFiles(srcDir)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
      const spec = match[1];
      const where = relative(root, file);
      if (/^@attractor\/[^/]+\/src(\/|$)/.test(spec))
        problems.push(`${where} reaches into another package's src: ${spec}`);
      const target = spec.match(/^(@attractor\/[^/]+)/)?.[1];
      // A test next to the source may use the package's test-only dependencies.
      const testImport = /\.test\.ts$/.test(file) && testOnly.includes(target);
      if (target && target !== pkg.name && allowed !== ANYTHING && !allowed.includes(target) && !testImport) {
        problems.push(`${where} imports ${target}, which ${pkg.name} may not import (STYLE.md §2)`);
      }
      if (spec.startsWith('.') && /\.\.\/\.\.\/\.\.\//.test(spec)) {
        const resolved = relative(pkgDir, join(file, '..', spec));
        // Tests may use the repository's own test tooling (tools/corpus.mjs); published code may not.
        const testTooling =
          /\.test\.ts$/.test(file) && relative(root, join(file, '..', spec)).startsWith('tools/');
        if (resolved.startsWith('..') && !testTooling)
          problems.push(`${where} imports outside its package: ${spec}`);
      }
    }
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`boundary: ${problem}`);
  process.exit(1);
}
console.log('boundaries: ok');
