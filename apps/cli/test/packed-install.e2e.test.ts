/**
 * The published packages as a user gets them (README "Using the packages outside this repository"): every published
 * package packed with `pnpm pack`, the tarballs installed with plain `npm install` into an empty project outside the
 * workspace (their third-party dependencies come from the npm registry), and there `npx attractor`, an example
 * pipeline and the README's embedding example, as ESM JavaScript and as TypeScript checked by `tsc --noEmit` under
 * `moduleResolution` `nodenext` and `bundler`. Packing, the install and the two compilations take a few minutes:
 * every step waits on its process's exit, with no time limit.
 */
import { cp, lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedPackages } from '../../../tools/published-packages.mjs';
import { childEnv, PIPELINES, REPO_ROOT, SAMPLE_PROJECT, temporaryDirectory } from './helpers/cli.js';

/** No time limit: each step ends when its process exits (vitest treats 0 as none). */
const UNBOUNDED = 0;

const packages = publishedPackages(REPO_ROOT);
const version = String(packages.find((entry) => entry.name === '@attractor/cli')?.manifest.version);
const rootManifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

/**
 * The environment of npm and of the installed command: the CLI tests' (childEnv), without the variables pnpm and
 * vitest's runner set for their own children (`npm_*`, `PNPM_*`), which would configure npm as pnpm's child.
 */
function outsideEnv(): Record<string, string> {
  const env = childEnv();
  for (const key of Object.keys(env)) {
    if (/^npm_|^pnpm_/i.test(key) && !/^npm_config_(registry|cache|userconfig|nodedir)$/i.test(key))
      delete env[key];
  }
  return env;
}

/** Runs `command args` in `cwd` to its exit; fails the test with its output unless it exits with 0. */
async function succeed(command: string, args: readonly string[], cwd: string): Promise<string> {
  const result = await execa(command, args, {
    cwd,
    env: outsideEnv(),
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
  });
  const output = `$ ${command} ${args.join(' ')}\n${result.stdout}\n${result.stderr}`;
  expect(result.exitCode, output).toBe(0);
  return result.stdout;
}

/** The TypeScript block of the README's "Embedding the engine in a Node app" section. */
async function embeddingExample(): Promise<string> {
  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding the engine in a Node app'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('README.md: no ```ts block under "Embedding the engine in a Node app"');
  return block[1]!;
}

/** The `@attractor/*` folders anywhere under `directory`'s node_modules, relative to `directory`. */
async function attractorCopies(directory: string, prefix = ''): Promise<string[]> {
  const scope = join(directory, 'node_modules', '@attractor');
  const names = await readdir(scope).catch(() => [] as string[]);
  const found: string[] = [];
  for (const name of names) {
    const path = `${prefix}node_modules/@attractor/${name}`;
    found.push(path, ...(await attractorCopies(join(scope, name), `${path}/`)));
  }
  return found;
}

describe('the published packages, packed and installed with npm into an empty project', () => {
  let root: string;
  let project: string;

  beforeAll(async () => {
    root = await temporaryDirectory('attractor-packed-install-');
    const packs = join(root, 'packs');
    project = join(root, 'project');
    const tarballs: string[] = [];
    for (const { directory } of packages) {
      const stdout = await succeed(
        'pnpm',
        ['pack', '--json', '--pack-destination', packs],
        join(REPO_ROOT, directory),
      );
      tarballs.push((JSON.parse(stdout) as { filename: string }).filename);
    }
    await mkdir(project);
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'packed-install-check', private: true, type: 'module' }, null, 2)}\n`,
    );
    await succeed(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        ...tarballs,
        `typescript@${rootManifest.devDependencies.typescript}`,
        `@types/node@${rootManifest.devDependencies['@types/node']}`,
      ],
      project,
    );
  }, UNBOUNDED);

  afterAll(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it(
    'installs one copy of each package, from its tarball, with @attractor/* ranges of the released version',
    async () => {
      const copies = await attractorCopies(project);
      expect(copies.sort()).toEqual(packages.map(({ name }) => `node_modules/${name}`).sort());
      for (const { name } of packages) {
        const folder = join(project, 'node_modules', name);
        expect((await lstat(folder)).isSymbolicLink(), `${name} is a link, not an installed copy`).toBe(
          false,
        );
        const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
          version: string;
          dependencies?: Record<string, string>;
          peerDependencies?: Record<string, string>;
        };
        expect(manifest.version).toBe(version);
        for (const [dependency, range] of Object.entries({
          ...manifest.dependencies,
          ...manifest.peerDependencies,
        })) {
          expect(range, `${name} → ${dependency}`).not.toMatch(/^workspace:/);
          if (dependency.startsWith('@attractor/') && manifest.dependencies?.[dependency] !== undefined) {
            expect(range, `${name} → ${dependency}`).toBe(`^${version}`);
          }
        }
      }
    },
    UNBOUNDED,
  );

  it(
    'npx attractor --help lists the commands, and --version prints the packed version',
    async () => {
      const help = await succeed('npx', ['attractor', '--help'], project);
      expect(help).toContain('Usage: attractor [options] [command]');
      for (const command of ['run', 'resume', 'validate', 'serve', 'worker'])
        expect(help).toMatch(new RegExp(`^  ${command} `, 'm'));
      expect((await succeed('npx', ['attractor', '--version'], project)).trim()).toBe(version);
    },
    UNBOUNDED,
  );

  it(
    'npx attractor run runs examples/pipelines/build-and-test.dot with --simulate, its tool stages for real',
    async () => {
      await cp(join(PIPELINES, 'build-and-test.dot'), join(project, 'build-and-test.dot'));
      await cp(SAMPLE_PROJECT, join(project, 'sample-project'), { recursive: true });
      const stdout = await succeed(
        'npx',
        [
          'attractor',
          'run',
          'build-and-test.dot',
          '--simulate',
          '--workdir',
          'sample-project',
          '--logs-dir',
          'run',
        ],
        project,
      );
      expect(stdout).toContain('Pipeline succeeded');
      const checkpoint = JSON.parse(await readFile(join(project, 'run', 'checkpoint.json'), 'utf8')) as {
        completed_nodes: string[];
      };
      expect(checkpoint.completed_nodes).toEqual(
        expect.arrayContaining(['plan', 'checks', 'collect', 'all_green', 'package', 'report', 'exit']),
      );
      // The package stage's tool really ran sample-project/scripts/build.js, which packages src/ into its stage.
      const manifest = JSON.parse(
        await readFile(join(project, 'run', 'package', 'package', 'manifest.json'), 'utf8'),
      ) as {
        files: { path: string }[];
      };
      expect(manifest.files.map((file) => file.path)).toContain('src/slugify.js');
    },
    UNBOUNDED,
  );

  it(
    'the README embedding example runs as ESM JavaScript (its types stripped)',
    async () => {
      await writeFile(join(project, 'draft.mjs'), stripTypeScriptTypes(await embeddingExample()));
      await writeFile(
        join(project, 'main.mjs'),
        [
          "import { runDraftPipeline } from './draft.mjs';",
          'const result = await runDraftPipeline(process.argv[2]);',
          "console.log(JSON.stringify({ status: result.status, words: result.context.get('count.words') }));",
          '',
        ].join('\n'),
      );
      const stdout = await succeed('node', ['main.mjs', join(project, 'embedded-run')], project);
      const lines = stdout.trim().split('\n');
      expect(lines.slice(0, -1)).toEqual([
        'start: success',
        'write: success',
        'count: success',
        'exit: success',
      ]);
      // "[Simulated] Response for stage: write" has five words.
      expect(JSON.parse(lines.at(-1)!)).toEqual({ status: 'success', words: 5 });
    },
    UNBOUNDED,
  );

  it.each([
    ['nodenext', { module: 'nodenext', moduleResolution: 'nodenext' }],
    ['bundler', { module: 'preserve', moduleResolution: 'bundler' }],
  ])(
    'the README embedding example type-checks with tsc --noEmit under moduleResolution %s',
    async (name, options) => {
      await writeFile(join(project, 'draft.ts'), await embeddingExample());
      const tsconfig = {
        compilerOptions: {
          ...options,
          target: 'es2023',
          strict: true,
          noEmit: true,
          types: ['node'],
          skipLibCheck: false,
        },
        files: ['draft.ts'],
      };
      await writeFile(join(project, `tsconfig.${name}.json`), `${JSON.stringify(tsconfig, null, 2)}\n`);
      await succeed('npx', ['tsc', '-p', `tsconfig.${name}.json`], project);
    },
    UNBOUNDED,
  );
});
