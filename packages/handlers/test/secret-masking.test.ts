import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type CodergenRequest, REDACTED, secretValuesFromEnv } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { runDot } from './helpers.js';

const SECRETS = {
  OPENAI_API_KEY: 'sk-proj-openai0123456789abcdefXYZ',
  ANTHROPIC_API_KEY: 'sk-ant-api03-anthropic0123456789',
  GITHUB_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ0123',
  MY_PASSWORD: 'correct horse battery staple',
} as const;
/** Not in the environment at all: only its shape gives it away. */
const SLACK_TOKEN = 'xoxb-1234567890-abcdefghijkl';

function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? everyFile(path) : [path];
  });
}

describe('secret masking at every boundary (docs/architecture.md "Secrets", issue 20 §1)', () => {
  it('keeps secret values out of every file, event and model request while commands get the real values', async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...SECRETS };
    const requests: CodergenRequest[] = [];
    const source = `digraph G {
      graph [goal="Ship it"]
      start [shape=Mdiamond]
      exit [shape=Msquare]
      leak [shape=parallelogram, tool_command="echo \\"$OPENAI_API_KEY $ANTHROPIC_API_KEY\\"; echo \\"$GITHUB_TOKEN\\" >&2; echo ${SLACK_TOKEN}; test \\"$MY_PASSWORD\\" = 'correct horse battery staple' && echo real-env-ok"]
      ask [prompt="Summarise the run", fidelity="summary:high"]
      fail [shape=parallelogram, tool_command="echo \\"login failed for $MY_PASSWORD\\" >&2; exit 4"]
      start -> leak -> ask -> fail -> exit
    }`;
    const { result, events, logsRoot } = await runDot(source, {
      registry: createDefaultRegistry({ tool: { env } }),
      backend: {
        run: async (request) => {
          requests.push(request);
          return 'done';
        },
      },
      context: { deploy_token: 'tok-deploy-not-from-env', note: `key is ${SECRETS.OPENAI_API_KEY}` },
      secretValues: secretValuesFromEnv({ env }),
    });

    expect(result.status).toBe('fail');
    // The command saw the real environment.
    expect(readFileSync(join(logsRoot, 'leak', 'stdout.txt'), 'utf8')).toContain('real-env-ok');

    const files = everyFile(logsRoot);
    for (const name of ['checkpoint.json', 'events.jsonl', 'manifest.json']) {
      expect(files).toContain(join(logsRoot, name));
    }
    for (const name of ['stdout.txt', 'stderr.txt', 'status.json']) {
      expect(files).toContain(join(logsRoot, 'leak', name));
    }
    const leaked = [...Object.values(SECRETS), SLACK_TOKEN, 'tok-deploy-not-from-env'];
    for (const path of files) {
      const text = readFileSync(path, 'utf8');
      for (const secret of leaked) expect(text, `${path} holds ${secret}`).not.toContain(secret);
    }
    expect(readFileSync(join(logsRoot, 'leak', 'stderr.txt'), 'utf8')).toBe(`${REDACTED}\n`);
    expect(readFileSync(join(logsRoot, 'fail', 'status.json'), 'utf8')).toContain(
      `login failed for ${REDACTED}`,
    );

    const streamed = JSON.stringify(events);
    for (const secret of leaked) expect(streamed).not.toContain(secret);

    // The model never sees a secret: not in the prompt, not in the preamble, and no secret-named context key.
    expect(requests).toHaveLength(1);
    const request = requests[0]!;
    expect(request.preamble).toContain('Context:');
    expect(request.preamble).not.toContain('deploy_token');
    for (const secret of leaked) {
      expect(request.preamble).not.toContain(secret);
      expect(request.prompt).not.toContain(secret);
    }
    expect(request.preamble).toContain(`note: key is ${REDACTED}`);
  });
});

describe('masking by key at any depth of a context value (issue 34 §12)', () => {
  it('keeps a value nested under a secret-named key out of the preamble, the backend, its response, files and events', async () => {
    const nested = 'hunter2-nested-client-secret';
    const seen: { context: Record<string, unknown>; preamble: string }[] = [];
    const { result, events, logsRoot } = await runDot(
      `digraph G {
        start [shape=Mdiamond]
        exit [shape=Msquare]
        ask [prompt="Summarise the run", fidelity="summary:high"]
        start -> ask -> exit
      }`,
      {
        registry: createDefaultRegistry(),
        // A plug-in backend that records what it gets and, like a model repeating its input, answers with it.
        backend: {
          run: async (request) => {
            const context = request.context.snapshot();
            seen.push({ context, preamble: request.preamble });
            return `I was told: ${request.preamble}\n${JSON.stringify(context)}`;
          },
        },
        context: {
          cfg: { client_secret: nested, region: 'eu' },
          steps: [{ name: 'deploy', credentials: { password: nested } }],
        },
      },
    );
    expect(result.status).toBe('success');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.context.cfg).toEqual({ client_secret: REDACTED, region: 'eu' });
    expect(seen[0]!.preamble).toContain('cfg');
    expect(seen[0]!.preamble).not.toContain(nested);
    expect(JSON.stringify(seen[0]!.context)).not.toContain(nested);
    for (const path of everyFile(logsRoot)) expect(readFileSync(path, 'utf8'), path).not.toContain(nested);
    expect(JSON.stringify(events)).not.toContain(nested);
  });
});
