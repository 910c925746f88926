#!/usr/bin/env node
// Checks every published package as npm would receive it (CONTRIBUTING.md "Build and release"): packs it with
// `pnpm pack` (after `pnpm build`), then
//   - its package.json: the shared version, the repository's license and URL with the package's directory,
//     `publishConfig` with public access and provenance, `files`, `engines`, and `exports` entries that give
//     `types` first; in the packed copy no `workspace:` range is left and each @attractor/* dependency is
//     `^<version>`;
//   - its LICENSE: the tarball has `package/LICENSE` with the repository's LICENSE text (`pnpm pack` and
//     `pnpm publish` copy the workspace root's LICENSE into a package that has none);
//   - publint (https://publint.dev) on the tarball: no message of any level;
//   - Are the Types Wrong (`attw`) on the tarball with its `esm-only` profile: the packages are ESM only, so a
//     `require()` from CommonJS or TypeScript's `node10` resolution failing is by design and not reported; every
//     entry must resolve with types under `node16`/`nodenext` (from ESM) and `bundler`.
// Run by `pnpm test`; alone: `pnpm build && node tools/check-packages.mjs [package directory...]`.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { publishedPackages } from './published-packages.mjs';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..');
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const rootLicense = readFileSync(join(root, 'LICENSE'), 'utf8');
const DEPENDENCY_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];

/** The problems of a package.json as it is in the repository. */
function manifestProblems({ directory, manifest }, version) {
  const problems = [];
  const expect = (condition, message) => {
    if (!condition) problems.push(message);
  };
  expect(
    manifest.version === version,
    `version is ${manifest.version}; every published package has ${version}`,
  );
  expect(manifest.license === rootManifest.license, `license should be "${rootManifest.license}"`);
  const repository = manifest.repository ?? {};
  expect(
    repository.type === 'git' &&
      repository.url === rootManifest.repository.url &&
      repository.directory === directory,
    `repository should be { "type": "git", "url": "${rootManifest.repository.url}", "directory": "${directory}" }`,
  );
  expect(manifest.type === 'module', 'type should be "module"');
  expect(manifest.files?.includes('dist'), 'files should list "dist"');
  expect(
    manifest.engines?.node === rootManifest.engines.node,
    `engines.node should be "${rootManifest.engines.node}"`,
  );
  expect(
    manifest.publishConfig?.access === 'public' && manifest.publishConfig?.provenance === true,
    'publishConfig should be { "access": "public", "provenance": true }',
  );
  const exports = manifest.exports ?? {};
  expect(exports['.'] !== undefined, 'exports should have "."');
  expect(
    exports['./package.json'] === './package.json',
    'exports should have "./package.json": "./package.json"',
  );
  for (const [entry, target] of Object.entries(exports)) {
    if (entry === './package.json') continue;
    expect(
      typeof target === 'object' && Object.keys(target)[0] === 'types' && typeof target.import === 'string',
      `exports["${entry}"] should be { "types": ..., "import": ... } with types first`,
    );
  }
  return problems;
}

/** The problems of the package.json inside the tarball (what npm installs). */
function packedManifestProblems(packed, version) {
  const problems = [];
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(packed[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`packed ${field}.${name} is still "${range}"`);
      else if (field === 'dependencies' && name.startsWith('@attractor/') && range !== `^${version}`) {
        problems.push(`packed dependencies.${name} is "${range}", expected "^${version}"`);
      }
    }
  }
  return problems;
}

async function pack(directory, destination) {
  const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], {
    cwd: join(root, directory),
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout).filename;
}

async function publintProblems(tarball) {
  const bytes = readFileSync(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    level: 'suggestion',
  });
  return messages.map(
    (message) => `publint ${message.type}: ${formatMessage(message, pkg, { color: false })}`,
  );
}

async function attwProblems(tarball) {
  try {
    await run(
      join(root, 'node_modules', '.bin', 'attw'),
      ['--profile', 'esm-only', '--format', 'table-flipped', '--no-color', '--no-emoji', tarball],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    return [];
  } catch (error) {
    return [
      `attw (--profile esm-only) reports problems:\n${`${error.stdout ?? ''}${error.stderr ?? ''}`.trim()}`,
    ];
  }
}

/** Runs `task` over `items`, at most `limit` at a time, keeping the order of the results. */
async function mapLimited(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const all = publishedPackages(root);
const version = all.find((entry) => entry.name === '@attractor/engine')?.manifest.version;
const only = process.argv.slice(2).map((directory) => directory.replace(/\/+$/, ''));
const packages = only.length === 0 ? all : all.filter((entry) => only.includes(entry.directory));
if (packages.length < only.length) {
  console.error(`check-packages: not a published package directory among ${only.join(', ')}`);
  process.exit(2);
}
const destination = mkdtempSync(join(tmpdir(), 'attractor-check-packages-'));
let failed = 0;
try {
  const tarballs = [];
  for (const entry of packages) tarballs.push(await pack(entry.directory, destination));
  const results = await mapLimited(packages, 2, async (entry) => {
    const index = packages.indexOf(entry);
    const tarball = tarballs[index];
    const packed = JSON.parse(
      (await run('tar', ['-xzOf', tarball, 'package/package.json'], { maxBuffer: 16 * 1024 * 1024 })).stdout,
    );
    const license = await run('tar', ['-xzOf', tarball, 'package/LICENSE']).then(
      ({ stdout }) => stdout,
      () => undefined,
    );
    return [
      ...(license === undefined
        ? [
            `the tarball has no LICENSE: keep LICENSE at the repository root (pnpm pack copies it) or in ${entry.directory}/`,
          ]
        : license === rootLicense
          ? []
          : [
              `the tarball's LICENSE differs from the repository's LICENSE: remove ${entry.directory}/LICENSE or copy the root's`,
            ]),
      ...manifestProblems(entry, version),
      ...packedManifestProblems(packed, version),
      ...(await publintProblems(tarball)),
      ...(await attwProblems(tarball)),
    ];
  });
  packages.forEach((entry, index) => {
    const problems = results[index];
    if (problems.length === 0) {
      console.log(`check-packages: ${entry.name}@${version} (${entry.directory}): ok`);
      return;
    }
    failed++;
    console.error(`check-packages: ${entry.name} (${entry.directory}):`);
    for (const problem of problems) console.error(`  - ${problem.replace(/\n/g, '\n    ')}`);
  });
} finally {
  rmSync(destination, { recursive: true, force: true });
}
if (failed > 0) {
  console.error(`check-packages: ${failed} of ${packages.length} published package(s) have problems.`);
  process.exit(1);
}
console.log(`check-packages: ${packages.length} published packages pass publint and attw (esm-only).`);
