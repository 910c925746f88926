#!/usr/bin/env node
// Bundles the `attractor` command for a fast start (issue 8: `attractor validate` under 0.5 s). Run by `pnpm build`
// after tsc, from the tsc output in dist/.
//
// A cold Node process pays about 0.5 ms per ES module it resolves, reads and compiles; `attractor validate` loads
// ~160 (Ohm alone is 46), which is a fifth of its time. The bundle puts the command line wiring and `validate`
// (with @attractor/graph, dot, condition, stylesheet and Ohm) into two files:
//
//   dist/attractor.mjs         bin.js + main.js + commander + picocolors (what every command needs)
//   dist/chunks/validate-*.mjs validate-command.js and everything it imports, loaded only by `attractor validate`
//   dist/runs/runs-command.mjs runs-command.js and the parts of the engine, store and queue reader it uses (and its
//                              chunks), loaded only by `attractor runs` (a listing of 10,000 runs must start fast:
//                              no Ohm, no pg-boss); a bundle of its own, sharing no chunk with `validate`'s
//
// The other commands stay unbundled: their modules (dist/commands/*-command.js, as tsc wrote them) are imported
// from the bundle by relative path and load @attractor/engine, handlers, server, ... from node_modules as usual, so
// a run never holds two copies of a package (the engine reads its package.json and the server its UI files next to
// their own modules, which a bundle would move). The packages themselves are untouched and usable on their own;
// `import '@attractor/cli'` still loads dist/index.js.
//
// Source maps: each input's tsc source map is chained, so dist/attractor.mjs.map points at the TypeScript sources
// (`node --enable-source-maps` prints them in a stack trace); without it, stack frames name the bundled functions
// and each module's region is marked with its original path.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const entry = join(dist, 'bin.js');
// The command modules `main.js` imports lazily (`await import(...)`) that stay unbundled: every command but
// `validate` and `runs`. A command added to main.ts is bundled until it is listed here; test/startup.e2e.test.ts checks what
// `validate` and `run` load.
const unbundledCommands = new Set([
  './commands/run-command.js',
  './commands/render-command.js',
  './commands/inspect-command.js',
  './commands/serve-command.js',
  './commands/worker-command.js',
  './commands/queue-commands.js',
  './commands/workspace-commands.js',
  './commands/lsp-command.js',
  './commands/mcp-command.js',
  './commands/fmt-command.js',
  './commands/init-command.js',
  './commands/cancel-command.js',
  './commands/retry-dead-command.js',
  './commands/purge-command.js',
  './commands/test-command.js',
  './commands/new-command.js',
]);

/** Chains the source map tsc wrote next to a module (`x.js.map`) into the bundle's. */
const inputSourceMaps = {
  name: 'attractor-input-source-maps',
  load(id) {
    if (!id.endsWith('.js') || !existsSync(`${id}.map`)) return null;
    const code = readFileSync(id, 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
    const map = JSON.parse(readFileSync(`${id}.map`, 'utf8'));
    // tsc writes `sources` relative to the map's directory; make them absolute so the chain resolves them.
    map.sources = map.sources.map((source) => join(dirname(id), map.sourceRoot ?? '', source));
    delete map.sourceRoot;
    return { code, map };
  },
};

/**
 * Commands bundled on their own (their own entry, their own chunks), not in the main bundle's chunks: `runs` needs
 * zod, which `validate` needs too, and a chunk the two shared would make `validate` load one file more. main.js's
 * `import('./commands/runs-command.js')` is rewritten to the separate bundle.
 */
const separatelyBundled = new Map([['./commands/runs-command.js', './runs/runs-command.mjs']]);

const external = (id) =>
  id.startsWith('node:') ||
  // pg's optional native client, required only when asked for (never here).
  id === 'pg-native';

rmSync(join(dist, 'chunks'), { recursive: true, force: true });
rmSync(join(dist, 'runs'), { recursive: true, force: true });
const bundle = await rolldown({
  input: { attractor: entry },
  platform: 'node',
  external: (id, importer) =>
    external(id) ||
    (importer === join(dist, 'main.js') && (unbundledCommands.has(id) || separatelyBundled.has(id))),
  plugins: [inputSourceMaps],
  logLevel: 'warn',
});
await bundle.write({
  dir: dist,
  format: 'esm',
  sourcemap: true,
  entryFileNames: '[name].mjs',
  chunkFileNames: 'chunks/[name]-[hash].mjs',
  // External ids arrive resolved (absolute paths of dist/): each becomes a path relative to dist/attractor.mjs, a
  // separately bundled command its bundle's.
  paths: (id) => {
    if (!isAbsolute(id)) return id;
    const path = `./${relative(dist, id).split(sep).join('/')}`;
    return separatelyBundled.get(path) ?? path;
  },
});
await bundle.close();

for (const [command, bundled] of separatelyBundled) {
  const commandBundle = await rolldown({
    input: { [basename(bundled, '.mjs')]: join(dist, command) },
    platform: 'node',
    external,
    plugins: [inputSourceMaps],
    logLevel: 'warn',
  });
  await commandBundle.write({
    dir: join(dist, dirname(bundled)),
    format: 'esm',
    sourcemap: true,
    entryFileNames: '[name].mjs',
    chunkFileNames: 'chunks/[name]-[hash].mjs',
  });
  await commandBundle.close();
}
