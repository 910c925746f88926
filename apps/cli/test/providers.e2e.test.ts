/**
 * The CLI with the providers real pipelines name: a `claude-*` stage over the Anthropic Messages API and a
 * `gemini-*` stage over the Gemini API, each configured only by that provider's environment variables, against
 * the scripted server on 127.0.0.1 (the only fake: the LLM); the preflight; budgets with resume; --prices.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startScriptedLlmServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/inspect/summarize-run.js';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const ANTHROPIC_KEY = 'sk-ant-test-5c1d9e';
const GEMINI_KEY = 'gemini-test-7a2b4c';

function pipeline(attributes: string, graphAttributes = ''): string {
  return `digraph Agent {
  graph [goal="Leave a note"${graphAttributes}]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  write [prompt="Create notes.txt saying hello", ${attributes}]
  start -> write -> exit
}
`;
}

describe('attractor run with the providers real pipelines name', () => {
  const cases = [
    {
      name: 'a claude-* stage over the Anthropic Messages API (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL)',
      attributes: 'llm_model="claude-sonnet-4-6"',
      env: (server: { rootURL: string }) => ({
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: server.rootURL,
      }),
      key: ANTHROPIC_KEY,
      path: '/v1/messages',
    },
    {
      name: 'a gemini-* stage over the Gemini API (GEMINI_API_KEY, GOOGLE_GENERATIVE_AI_BASE_URL)',
      attributes: 'llm_model="gemini-3-flash-preview", llm_provider="gemini"',
      env: (server: { googleBaseURL: string }) => ({
        GEMINI_API_KEY: GEMINI_KEY,
        GOOGLE_GENERATIVE_AI_BASE_URL: server.googleBaseURL,
      }),
      key: GEMINI_KEY,
      path: '/v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse',
    },
  ];
  for (const testCase of cases) {
    it(`runs ${testCase.name}: the tool call writes the file, usage and cost reach status.json, inspect and the summary`, async () => {
      const server = await startScriptedLlmServer({
        apiKey: testCase.key,
        script: [
          {
            type: 'tool-calls',
            calls: [{ name: 'write_file', arguments: { file_path: 'notes.txt', content: 'hello\n' } }],
            usage: { inputTokens: 12_000, outputTokens: 300 },
          },
          { type: 'text', text: 'Wrote notes.txt.', usage: { inputTokens: 12_500, outputTokens: 40 } },
        ],
      });
      try {
        const cwd = await temporaryDirectory();
        const workdir = await temporaryDirectory();
        await writeFile(join(cwd, 'agent.dot'), pipeline(testCase.attributes));
        const result = await attractor(['run', 'agent.dot', '--workdir', workdir, '--logs-dir', 'run'], {
          cwd,
          env: testCase.env(server),
        });
        expect(result.stderr).toBe('');
        expect(result.exitCode).toBe(0);
        expect(await readFile(join(workdir, 'notes.txt'), 'utf8')).toBe('hello\n');
        expect(server.requests.map((request) => request.path)).toEqual([testCase.path, testCase.path]);
        expect(result.stdout).toMatch(/LLM usage: {5}24\.5k in, 340 out · \$0\.\d{4}/);

        const status = JSON.parse(await readFile(join(cwd, 'run', 'write', 'status.json'), 'utf8')) as {
          context_updates: Record<string, unknown>;
        };
        expect(status.context_updates['usage.write.input_tokens']).toBe(24_500);
        expect(status.context_updates['usage.write.cost_usd']).toEqual(expect.any(Number));
        const prompt = await readFile(join(cwd, 'run', 'write', 'prompt.md'), 'utf8');
        expect(prompt).toMatch(/^## system\n\nYou are a coding agent/);
        expect(prompt).toContain('Create notes.txt saying hello');

        const summary = JSON.parse(
          (await attractor(['inspect', 'run', '--json'], { cwd })).stdout,
        ) as RunSummary;
        const write = summary.stages.find((stage) => stage.nodeId === 'write');
        expect([write?.inputTokens, write?.outputTokens, write?.costUnknown]).toEqual([24_500, 340, false]);
        expect(write?.costUsd).toBeGreaterThan(0);
        const events = await readFile(join(cwd, 'run', 'events.jsonl'), 'utf8');
        expect(events).not.toContain(testCase.key);
        expect(prompt).not.toContain(testCase.key);
      } finally {
        await server.close();
      }
    });
  }

  it('lists every LLM stage that cannot run before starting: the nodes, the provider, the variable; exit 2', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'mixed.dot'),
      `digraph Mixed {
  start [shape=Mdiamond]; exit [shape=Msquare]
  review [prompt="Review", llm_model="claude-opus-4-6"]; audit [prompt="Audit", llm_model="claude-sonnet-4-6"]
  draft [prompt="Draft", llm_model="gemini-3-flash-preview", llm_provider="gemini"]
  plan [prompt="Plan it"]
  start -> plan -> draft -> review -> audit -> exit
}
`,
    );
    const result = await attractor(['run', 'mixed.dot'], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      [
        'error: The pipeline was not started: 4 LLM stages cannot run.',
        '  - set ANTHROPIC_API_KEY for provider anthropic: LLM stages "review", "audit" (model claude-opus-4-6, claude-sonnet-4-6)',
        '  - set GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY for provider gemini: LLM stage "draft" (model gemini-3-flash-preview)',
        '  - LLM stage "plan" names no model: set llm_model on the node or in the model_stylesheet, or pass --model',
        'Or pass --simulate to run without an LLM.',
      ].join('\n'),
    );
    await expect(access(join(cwd, '.attractor'))).rejects.toThrow();
  });

  it('runs a pipeline without LLM stages with no LLM configured', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'tools.dot'),
      'digraph Tools { start [shape=Mdiamond]; exit [shape=Msquare]; hello [shape=parallelogram, tool_command="echo hi"]; start -> hello -> exit }\n',
    );
    const result = await attractor(['run', 'tools.dot', '--logs-dir', 'run'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('✔ Pipeline succeeded');
  });

  it('stops before the next LLM stage when --max-budget-usd is spent, and resume --max-budget-usd continues', async () => {
    const server = await startScriptedLlmServer({
      script: [
        { type: 'text', text: 'First.', usage: { inputTokens: 200_000, outputTokens: 1_000 } },
        { type: 'text', text: 'Second.' },
      ],
    });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(
        join(cwd, 'two.dot'),
        `digraph Two {
  start [shape=Mdiamond]; exit [shape=Msquare]
  first [prompt="One", llm_model="claude-sonnet-4-6"]; second [prompt="Two", llm_model="claude-sonnet-4-6"]
  start -> first -> second -> exit
}
`,
      );
      const env = { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: server.rootURL };
      const first = await attractor(['run', 'two.dot', '--logs-dir', 'run', '--max-budget-usd', '0.5'], {
        cwd,
        env,
      });
      expect(first.exitCode).toBe(1);
      expect(first.stdout).toContain('✖ Pipeline failed after');
      expect(first.stdout).toContain(
        'budget max_budget_usd=0.5 spent: the model calls cost $0.6150 before LLM stage "second"',
      );
      expect(server.requests).toHaveLength(1);

      const resumed = await attractor(['resume', 'run', '--max-budget-usd', '5'], { cwd, env });
      expect(resumed.stderr).toBe('');
      expect(resumed.exitCode).toBe(0);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('refuses a --prices file that is not a price table, naming the file and the problem', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'one.dot'), pipeline('llm_model="claude-sonnet-4-6"'));
    await writeFile(join(cwd, 'prices.json'), '{"claude-sonnet-4-6": {"input": "three"}}');
    const result = await attractor(['run', 'one.dot', '--prices', 'prices.json'], {
      cwd,
      env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`The price file ${join(cwd, 'prices.json')} (--prices) is not valid:`);
    expect(result.stderr).toContain('claude-sonnet-4-6.input');
  });
});
