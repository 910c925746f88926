import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory, waitForBanner, waitForServedRun } from './helpers/cli.js';

const PLUGIN = fileURLToPath(new URL('./fixtures/plugin/', import.meta.url));
const SERVICES = fileURLToPath(new URL('./fixtures/plugin-services/', import.meta.url));

describe('plug-ins from attractor.config.* / --config', () => {
  it('validate lints a plug-in handler’s attributes from its schema (config found in the working directory)', async () => {
    const clean = await attractor(['validate', 'release.dot'], { cwd: PLUGIN });
    expect(clean.exitCode, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stdout).not.toContain('unknown_attribute');
    expect(clean.stdout).not.toContain('type_known');

    const bad = await attractor(['validate', 'bad-region.dot'], { cwd: PLUGIN });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain(
      'error[attribute_type]: Node "ship" has region="mars", which its deploy handler does not accept: Invalid option: expected one of "eu"|"us".',
    );
  });

  it('run --backend routes a plug-in stage whose handler declares callsModel like an LLM stage, and preflights it', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'sum.dot'),
      'digraph Sum { start [shape=Mdiamond] exit [shape=Msquare] sum [type="summarize", prompt="Sum up", backend="api"] start -> sum -> exit }',
    );
    const config = fileURLToPath(new URL('./fixtures/worker-plugins/attractor.config.mjs', import.meta.url));
    // No model and no key: the stage its routing sends to the api backend is refused before the run, by its id.
    const result = await attractor(
      ['run', 'sum.dot', '--backend', 'codex', '--config', config, '--logs-dir', 'run'],
      { cwd, env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } },
    );
    expect(result.exitCode, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'error: The pipeline was not started: 1 LLM stage cannot run.\n  - LLM stage "sum" names no model',
    );
  });

  it('run executes the plug-in handler (--config from another directory)', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(PLUGIN, 'release.dot'),
        '--simulate',
        '--config',
        join(PLUGIN, 'attractor.config.mjs'),
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      context: Record<string, unknown>;
    };
    expect(checkpoint.context['ship.region']).toBe('eu');
    const status = JSON.parse(await readFile(join(cwd, 'run', 'ship', 'status.json'), 'utf8')) as {
      notes: string;
    };
    expect(status.notes).toBe('deployed to eu');
  });

  it('says how to install the @attractor/* packages a config in a bare folder imports; exit 2, no stack trace', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'attractor.config.mjs'),
      "import { defineHandler } from '@attractor/engine';\nexport default { handlers: [] };\n",
    );
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    const result = await attractor(['validate', 'p.dot'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      "Config file attractor.config.mjs failed to load: Cannot find package '@attractor/engine' imported from",
    );
    expect(result.stderr).toContain(
      'The config\'s imports resolve from its own folder (the current directory), which does not have @attractor/engine installed. Run `npm install @attractor/engine` there (for an unreleased build, install the packed @attractor/* tarballs: see "Using the packages outside this repository" in the README), or put the config in a project that has them.',
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);

    // Another package: install it there. A config elsewhere (--config) names its folder.
    const other = await temporaryDirectory();
    await writeFile(join(other, 'plugins.mjs'), "import { z } from 'zod';\nexport default {};\n");
    const zod = await attractor(['run', 'p.dot', '--simulate', '--config', join(other, 'plugins.mjs')], {
      cwd,
    });
    expect(zod.exitCode).toBe(2);
    expect(zod.stderr).toContain(
      `The config's imports resolve from its own folder (${other}), which does not have zod installed: run \`npm install zod\` there.`,
    );
  });

  it('reports a config that throws while loading with the file and the message; exit 2, no stack trace', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'attractor.config.mjs'), "throw new Error('missing DEPLOY_TOKEN');\n");
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    const result = await attractor(['run', 'p.dot', '--simulate'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Config file attractor.config.mjs failed to load: missing DEPLOY_TOKEN');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('run uses the config’s backend and interviewer (defaults.backend, defaults.interviewer); resume loads them again', async () => {
    const cwd = await temporaryDirectory();
    const config = join(SERVICES, 'attractor.config.mjs');
    const result = await attractor(
      ['run', join(SERVICES, 'release.dot'), '--config', config, '--logs-dir', 'run'],
      { cwd },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(join(cwd, 'run', 'notes', 'response.md'), 'utf8')).toBe(
      'echo from the config backend: Write the release notes',
    );
    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      completed_nodes: string[];
    };
    expect(checkpoint.completed_nodes).toEqual(['start', 'notes', 'gate', 'exit']);

    const resumed = await attractor(['resume', 'run', '--config', config], { cwd });
    expect(resumed.stderr).toContain('already');
    expect(resumed.stderr).not.toMatch(/\n\s+at /);
  });

  it('serve runs LLM stages on the config’s backend and does not tell the web UI that no LLM is configured', async () => {
    const cwd = await temporaryDirectory();
    const child = attractor(['serve', '--port', '0', '--config', join(SERVICES, 'attractor.config.mjs')], {
      cwd,
    });
    try {
      const { url, token } = await waitForBanner(child);
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      // No provider key, but a backend: "optional", not "required" (the UI's "no LLM configured, simulated").
      expect(await (await fetch(`${url}/server`, { headers })).json()).toMatchObject({
        simulation: 'optional',
      });
      const started = await fetch(`${url}/pipelines`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          dot: 'digraph s { start [shape=Mdiamond] exit [shape=Msquare] work [prompt="Say hi"] start -> work -> exit }',
        }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      expect(await waitForServedRun({ url, id, headers })).toBe('success');
      expect(await readFile(join(cwd, '.attractor', 'runs', id, 'work', 'response.md'), 'utf8')).toBe(
        'echo from the config backend: Say hi',
      );
    } finally {
      child.kill('SIGTERM');
      expect((await child).exitCode).toBe(0);
    }
  }, 120_000);

  it('--answer answers instead of the config’s interviewer, --simulate runs instead of its backend', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(
      [
        'run',
        join(SERVICES, 'release.dot'),
        '--config',
        join(SERVICES, 'attractor.config.mjs'),
        '--simulate',
        '--answer',
        'H',
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(join(cwd, 'run', 'notes', 'response.md'), 'utf8')).not.toContain('config backend');
    const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
      completed_nodes: string[];
    };
    expect(checkpoint.completed_nodes).toEqual(['start', 'notes', 'gate', 'held', 'exit']);
  });

  it('reads defaults.prices relative to the config file, and reports a bad one with its path', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'attractor.config.mjs'),
      "export default { defaults: { prices: 'conf/prices.json' } };\n",
    );
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; work [prompt="w"]; start -> work -> exit }\n',
    );
    const result = await attractor(['run', 'p.dot'], { cwd, env: { OPENAI_API_KEY: 'sk-test' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Cannot read the price file ${join(cwd, 'conf', 'prices.json')}`);
  });

  it('refuses a default naming a backend or interviewer the config does not define, naming the file', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'attractor.config.mjs'),
      "export default { backends: { echo: { run: async () => 'x' } }, defaults: { backend: 'ecko' } };\n",
    );
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    for (const command of [
      ['validate', 'p.dot'],
      ['run', 'p.dot'],
    ]) {
      const result = await attractor(command, { cwd });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(
        'Config file attractor.config.mjs: defaults.backend is "ecko", which backends does not define (it defines echo). Did you mean "echo"?',
      );
    }
  });

  it('suggests the near backend or interviewer name, and says how to fix a default when none is defined', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    const cases = [
      [
        "export default { backends: { echo: { run: async () => 'x' }, review: { run: async () => 'y' } }, defaults: { backend: 'ech' } };\n",
        'Config file attractor.config.mjs: defaults.backend is "ech", which backends does not define (it defines echo, review). Did you mean "echo"?',
      ],
      [
        "export default { interviewers: { 'approve-all': { ask: async () => ({ value: 'yes' }) } }, defaults: { interviewer: 'aprove-all' } };\n",
        'Config file attractor.config.mjs: defaults.interviewer is "aprove-all", which interviewers does not define (it defines approve-all). Did you mean "approve-all"?',
      ],
      [
        "export default { defaults: { backend: 'echo' } };\n",
        'Config file attractor.config.mjs: defaults.backend is "echo", which backends does not define (the config defines no backends). Add it to backends, or remove defaults.backend.',
      ],
    ] as const;
    for (const [config, message] of cases) {
      await writeFile(join(cwd, 'attractor.config.mjs'), config);
      const result = await attractor(['validate', 'p.dot'], { cwd });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toBe(`error: ${message}`);
    }
  });

  it('points at the line and column of a syntax error in the config (.mjs, .js, .ts, a missing import) or says it lies in an import; exit 2, no stack trace', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    await mkdir(join(cwd, 'conf'));
    await writeFile(join(cwd, 'conf', 'package.json'), '{ "type": "module" }\n');
    await writeFile(join(cwd, 'conf', 'lib.mjs'), 'export const echo = {};\n');
    const cases = [
      {
        file: 'attractor.config.mjs',
        source: "export default {\n  defaults: { model: 'gpt-5.2' },\n};\nexport const x = ;\n",
        expected: [
          "Config file attractor.config.mjs failed to load: attractor.config.mjs:4:18: SyntaxError: Unexpected token ';'",
          '> 4 | export const x = ;',
          '    |                  ^',
        ],
      },
      {
        file: 'conf/plugins.js',
        source: 'const a = 1;\nexport default {\n\tdefaults: { model: a b },\n};\n',
        expected: [
          "Config file conf/plugins.js failed to load: conf/plugins.js:3:23: SyntaxError: Unexpected identifier 'b'",
          '> 3 | \tdefaults: { model: a b },',
          '    | \t                     ^',
        ],
      },
      {
        file: 'attractor.config.ts',
        source:
          "const model: string = 'gpt-5.2';\nexport default {\n  defaults: { model },\n};\nexport const x = ;\n",
        expected: [
          'Config file attractor.config.ts failed to load: attractor.config.ts:5:18: SyntaxError: Expression expected',
          '> 5 | export const x = ;',
          '    |                  ^',
        ],
      },
      {
        file: 'conf/plugins.mjs',
        source: "// plug-ins\nimport { ecko } from './lib.mjs';\nexport default { backends: { ecko } };\n",
        expected: [
          "Config file conf/plugins.mjs failed to load: conf/plugins.mjs:2:10: SyntaxError: The requested module './lib.mjs' does not provide an export named 'ecko'",
          "> 2 | import { ecko } from './lib.mjs';",
          '    |          ^',
        ],
      },
    ];
    for (const { file, source, expected } of cases) {
      await writeFile(join(cwd, file), source);
      const result = await attractor(['validate', 'p.dot', '--config', file], { cwd });
      expect(result.exitCode, file).toBe(2);
      expect(result.stderr, file).toBe(
        `error: ${[...expected, 'Correct the code there, then run the command again.'].join('\n')}`,
      );
    }

    // A module the config imports does not parse (Node names no place), or the config's code throws a SyntaxError.
    await writeFile(join(cwd, 'conf', 'helper.mjs'), 'export const echo = { run: async () => a b };\n');
    await writeFile(
      join(cwd, 'conf', 'imports.mjs'),
      "import { echo } from './helper.mjs';\nexport default { backends: { echo } };\n",
    );
    await writeFile(
      join(cwd, 'conf', 'json.mjs'),
      "const settings = JSON.parse('{model:1}');\nexport default {};\n",
    );
    for (const [file, message] of [
      [
        'conf/imports.mjs',
        "Config file conf/imports.mjs failed to load: SyntaxError: Unexpected identifier 'b', in a module the config imports (the config itself parses). Run `node --check <file>` on the modules it imports to see where.",
      ],
      ['conf/json.mjs', 'Config file conf/json.mjs failed to load: Expected property name or'],
    ] as const) {
      const result = await attractor(['validate', 'p.dot', '--config', file], { cwd });
      expect(result.exitCode, file).toBe(2);
      expect(result.stderr, file).toContain(`error: ${message}`);
      expect(result.stderr, file).not.toMatch(/^\s+at /m);
      expect(result.stderr, file).not.toContain('Correct the code there');
    }
  });

  it('reports a plug-in that throws while loading in validate and serve too', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'attractor.config.mjs'), "throw new Error('no registry token');\n");
    await writeFile(
      join(cwd, 'p.dot'),
      'digraph P { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n',
    );
    for (const command of [
      ['validate', 'p.dot'],
      ['serve', '--port', '0'],
    ]) {
      const result = await attractor(command, { cwd });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('Config file attractor.config.mjs failed to load: no registry token');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
