import { readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? everyFile(path) : [path];
  });
}

const ENV = {
  OPENAI_API_KEY: 'sk-test-openai-0123456789abcdef',
  GITHUB_TOKEN: 'not-shaped-github-token-value',
  MY_PASSWORD: 'pw-correct-horse-battery',
  DATABASE_URL: 'postgres://user:dbpass-42@db/app',
} as const;

describe('attractor run masks secrets (docs/architecture.md "Secrets", issue 20 §1)', () => {
  it('keeps secret-named variables and --secret values off the console and out of the run directory', async () => {
    const dir = await temporaryDirectory();
    const dot = join(dir, 'leak.dot');
    await writeFile(
      dot,
      `digraph leak {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        show [shape=parallelogram, tool_command="echo $OPENAI_API_KEY $GITHUB_TOKEN $DATABASE_URL; test \\"$MY_PASSWORD\\" = pw-correct-horse-battery && echo env-ok; echo \\"denied for $MY_PASSWORD\\" >&2; exit 3"]
        start -> show -> exit
      }`,
    );
    const logsDir = join(dir, 'run');
    const result = await attractor(
      ['run', dot, '--simulate', '--logs-dir', logsDir, '--workdir', dir, '--secret', 'DATABASE_URL', '-v'],
      { env: ENV },
    );
    expect(result.exitCode).toBe(1);
    const console = `${result.stdout}\n${result.stderr}`;
    expect(console).toContain('denied for [REDACTED]');
    expect(readFileSync(join(logsDir, 'show', 'stdout.txt'), 'utf8')).toContain('env-ok');
    for (const value of Object.values(ENV)) {
      expect(console).not.toContain(value);
      for (const path of everyFile(logsDir)) {
        expect(readFileSync(path, 'utf8'), `${path} holds ${value}`).not.toContain(value);
      }
    }
  });
});

describe('attractor run --set masks by key at any depth of a context value (issue 34 §12)', () => {
  it("keeps a value nested under a secret-named key out of the preamble, a plug-in backend, its response, the console and the run's files", async () => {
    const nested = 'hunter2-nested-cli-client-secret';
    const dir = await temporaryDirectory();
    // A plug-in backend that writes down what it was given and answers with it, as a model repeating its input would.
    await writeFile(
      join(dir, 'attractor.config.mjs'),
      `import { appendFileSync } from 'node:fs';
export default {
  backends: {
    echo: {
      run: async (request) => {
        const given = request.preamble + '\\n' + JSON.stringify(request.context.snapshot());
        appendFileSync(${JSON.stringify(join(dir, 'backend-saw.txt'))}, given);
        return 'I was told: ' + given;
      },
    },
  },
  defaults: { backend: 'echo' },
};
`,
    );
    await writeFile(
      join(dir, 'ask.dot'),
      'digraph ask { start [shape=Mdiamond]; exit [shape=Msquare]; ask [prompt="Summarise", fidelity="summary:high"]; start -> ask -> exit }',
    );
    const logsDir = join(dir, 'run');
    const result = await attractor(
      [
        'run',
        'ask.dot',
        '--logs-dir',
        logsDir,
        '-v',
        '--set',
        `cfg={"client_secret":"${nested}","region":"eu"}`,
      ],
      { cwd: dir },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const saw = readFileSync(join(dir, 'backend-saw.txt'), 'utf8');
    expect(saw).toContain('region');
    expect(saw).not.toContain(nested);
    expect(`${result.stdout}\n${result.stderr}`).not.toContain(nested);
    for (const path of everyFile(logsDir)) expect(readFileSync(path, 'utf8'), path).not.toContain(nested);
  });
});

describe('attractor --secret with a name that is not set', () => {
  it('warns that there is nothing to mask, naming the variable, and still runs', async () => {
    const dir = await temporaryDirectory();
    const dot = join(dir, 'plain.dot');
    await writeFile(dot, 'digraph plain { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }');
    const result = await attractor(
      [
        'run',
        dot,
        '--simulate',
        '--logs-dir',
        join(dir, 'run'),
        '--secret',
        'DATABSE_URL',
        '--secret=MY_TOKEN',
      ],
      { env: { MY_TOKEN: 'token-value-1234' } },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(
      'warning: --secret DATABSE_URL: no environment variable of that name is set, so there is nothing to mask',
    );
    expect(result.stderr).not.toContain('--secret MY_TOKEN');
  });
});

describe('attractor run and resume with a secret whose value is a node id', () => {
  it('warns once, naming the variable but never its value or the node id, and the run still succeeds', async () => {
    const dir = await temporaryDirectory();
    const dot = join(dir, 'shipping.dot');
    await writeFile(
      dot,
      `digraph shipping {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        deploy [shape=parallelogram, tool_command="echo ok"]
        start -> deploy -> exit
      }`,
    );
    const logsDir = join(dir, 'run');
    const env = { DEPLOY_TOKEN: 'deploy', OTHER_TOKEN: 'unrelated-value-1234' };
    const warning =
      'warning: the value of DEPLOY_TOKEN is also a node id in this graph; that node shows as [REDACTED] on the console';
    const ran = await attractor(['run', dot, '--simulate', '--logs-dir', logsDir, '--workdir', dir], { env });
    expect(ran.exitCode, ran.stderr).toBe(0);
    const resumed = await attractor(['resume', logsDir, '--from', 'deploy'], { env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    for (const result of [ran, resumed]) {
      expect(result.stderr.split('\n').filter((line) => line.startsWith('warning: the value of'))).toEqual([
        warning,
      ]);
      // The console masks the value wherever it appears: the stage's progress line shows the placeholder.
      expect(result.stdout).toContain('[REDACTED]');
      for (const output of [result.stdout, result.stderr]) {
        expect(output).not.toContain(env.DEPLOY_TOKEN);
        expect(output).not.toContain('OTHER_TOKEN');
      }
    }
    // The run directory keeps the node id as structure (docs/architecture.md "Secrets").
    expect(JSON.parse(readFileSync(join(logsDir, 'checkpoint.json'), 'utf8'))).toMatchObject({
      completed_nodes: expect.arrayContaining(['deploy']),
    });
  });
});
