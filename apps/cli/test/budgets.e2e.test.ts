/**
 * Budgets that cannot overspend, through the CLI with the AI-SDK backend against the scripted OpenAI-compatible
 * server on 127.0.0.1 (the only fake: the LLM). Every reply reports its token usage, and `--prices` prices the model,
 * so the cost is the price table's arithmetic: 100,000 input tokens at $1/M plus 10,000 output tokens at $2/M is
 * $0.12 a call.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RecordedRequest, startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const KEY = 'sk-test-0b7e5d1c9a';
/** What each model call reports. */
const USAGE = { inputTokens: 100_000, outputTokens: 10_000 };
const PRICES = JSON.stringify({ 'gpt-test': { input: 1, output: 2 } });

/** Three LLM branches in parallel (one at a time with `max_parallel=1`), a fan-in, then one more LLM stage. */
function fanOut(maxParallel: number): string {
  return `digraph Reviews {
  graph [goal="Three reviews and a report"]
  start  [shape=Mdiamond]
  exit   [shape=Msquare]
  fan    [shape=component, max_parallel=${maxParallel}]
  a      [prompt="Review part A"]
  b      [prompt="Review part B"]
  c      [prompt="Review part C"]
  join   [shape=tripleoctagon]
  report [prompt="Write the report"]
  start -> fan
  fan -> a
  fan -> b
  fan -> c
  a -> join
  b -> join
  c -> join
  join -> report -> exit
}
`;
}

/** The same review as a `foreach` over three files (one at a time with `max_parallel=1`), a fan-in, then the report. */
function forEach(maxParallel: number): string {
  return `digraph ReviewEach {
  graph [goal="Three reviews and a report", inputs="files: string[]"]
  start  [shape=Mdiamond]
  exit   [shape=Msquare]
  each   [type="foreach", over="input.files", as="file", max_parallel=${maxParallel}]
  review [prompt="Review part $item.file"]
  join   [shape=tripleoctagon]
  report [prompt="Write the report"]
  start -> each -> review -> join -> report -> exit
}
`;
}

/** The prompt of a model request (its last user message), to tell which stage made it. */
function promptOf(request: RecordedRequest): string {
  return request.messages.filter((message) => message.role === 'user').at(-1)?.text ?? '';
}

/** The options that send the LLM stages to `server` as model `gpt-test`, priced by `prices.json` unless `priced` is false. */
function modelOptions(server: { readonly baseURL: string }, priced = true): string[] {
  return [
    '--base-url',
    server.baseURL,
    '--model',
    'gpt-test',
    ...(priced ? ['--prices', 'prices.json'] : []),
  ];
}

async function setUp(maxParallel: number, pipeline: (maxParallel: number) => string = fanOut) {
  const server = await startScriptedOpenAIServer({
    apiKey: KEY,
    fallback: { type: 'text', text: 'Reviewed.', usage: USAGE },
  });
  const cwd = await temporaryDirectory();
  await writeFile(join(cwd, 'reviews.dot'), pipeline(maxParallel));
  await writeFile(join(cwd, 'prices.json'), PRICES);
  const run = (args: readonly string[]) =>
    attractor(args, { cwd, env: { OPENAI_API_KEY: KEY }, timeout: 120_000 });
  const common = modelOptions(server);
  const calls = () => server.requests.filter((request) => request.path.endsWith('/chat/completions'));
  const context = async () =>
    (
      JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
        context: Record<string, unknown>;
      }
    ).context;
  return { server, cwd, run, common, calls, context };
}

describe('run budgets count every parallel branch and stop before the model call that would overspend', () => {
  it('the totals add up every branch: the summary and the checkpoint say 4 calls, 440k tokens, $0.48', async () => {
    const { server, run, common, calls, context } = await setUp(4);
    try {
      const result = await run(['run', 'reviews.dot', ...common, '--logs-dir', 'run']);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(calls()).toHaveLength(4);
      expect(await context()).toMatchObject({
        'usage.total.input_tokens': 400_000,
        'usage.total.output_tokens': 40_000,
        'usage.total.total_tokens': 440_000,
        'usage.total.cost_usd': expect.closeTo(0.48, 10),
        'usage.total.cost_complete': true,
      });
      expect(result.stdout).toMatch(/LLM usage: +400k in, 40k out · \$0\.4800$/m);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('max_budget_usd stops inside the fan-out, before the call that would overspend; the printed resume command finishes the run without running the finished branches again', async () => {
    const { server, run, common, calls, context } = await setUp(1);
    try {
      const first = await run([
        'run',
        'reviews.dot',
        ...common,
        '--max-budget-usd',
        '0.2',
        '--logs-dir',
        'run',
      ]);
      expect(first.exitCode).toBe(1);
      // a ($0.12), then b (0.12 < 0.2, so b runs: $0.24), then c is refused before its model call.
      expect(calls().map(promptOf)).toEqual([
        expect.stringContaining('Review part A'),
        expect.stringContaining('Review part B'),
      ]);
      expect(first.stdout).toContain(
        'budget max_budget_usd=0.2 spent: the model calls cost $0.2400 before LLM stage "c"',
      );
      expect((await context())['usage.total.cost_usd']).toBeCloseTo(0.24, 10);
      // The resume command carries the bigger budget it needs: as much again as the budget, beyond what was spent.
      const printed = /resume with:\s+(attractor resume run --max-budget-usd 0\.44)$/m.exec(first.stdout);
      expect(printed, first.stdout).not.toBeNull();

      const resumed = await run(printed![1]!.split(' ').slice(1));
      expect(resumed.stderr).toBe('');
      expect(resumed.exitCode).toBe(0);
      // Only c and the report ran: a and b had finished.
      expect(calls().slice(2).map(promptOf)).toEqual([
        expect.stringContaining('Review part C'),
        expect.stringContaining('Write the report'),
      ]);
      expect(resumed.stdout).not.toMatch(/branch [ab] started/);
      expect((await context())['usage.total.cost_usd']).toBeCloseTo(0.48, 10);
      expect(resumed.stdout).toMatch(/LLM usage: +400k in, 40k out · \$0\.4800$/m);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('max_tokens counts every branch: the report stage is refused, and the printed resume command finishes', async () => {
    const { server, run, common, calls } = await setUp(1);
    try {
      const first = await run([
        'run',
        'reviews.dot',
        ...common,
        '--max-tokens',
        '300000',
        '--logs-dir',
        'run',
      ]);
      expect(first.exitCode).toBe(1);
      // a, b (220k < 300k) and c ran; the report, after 330k tokens, did not (it saw one branch's 110k and ran, when
      // each branch's total was the tokens before the fan-out plus its own).
      expect(calls()).toHaveLength(3);
      expect(first.stdout).toContain(
        'budget max_tokens=300000 spent: the model calls used 330000 tokens before LLM stage "report"',
      );
      const printed = /resume with:\s+(attractor resume run --max-tokens 630000)$/m.exec(first.stdout);
      expect(printed, first.stdout).not.toBeNull();
      const resumed = await run(printed![1]!.split(' ').slice(1));
      expect(resumed.exitCode).toBe(0);
      expect(calls()).toHaveLength(4);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('a key the server refuses prints its message once; the summary refers to it (and -q prints it there)', async () => {
    const server = await startScriptedOpenAIServer({ apiKey: KEY });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(
        join(cwd, 'one.dot'),
        'digraph One { start [shape=Mdiamond]; exit [shape=Msquare]; write [prompt="Write"]; start -> write -> exit }\n',
      );
      for (const quiet of [false, true]) {
        const result = await attractor(
          [
            'run',
            'one.dot',
            ...modelOptions(server, false),
            ...(quiet ? ['-q'] : []),
            '--logs-dir',
            quiet ? 'quiet' : 'run',
          ],
          { cwd, env: { OPENAI_API_KEY: 'sk-wrong-key-7d2e' } },
        );
        expect(result.exitCode).toBe(1);
        const output = `${result.stdout}\n${result.stderr}`;
        expect(output.split('Authentication failed (HTTP 401)').length - 1, output).toBe(1);
        if (quiet) {
          expect(result.stdout).toMatch(
            /^✖ Pipeline failed after \S+: node "write" failed: Authentication failed/m,
          );
        } else {
          expect(result.stdout).toMatch(/^✖ write fail \S+ — Authentication failed \(HTTP 401\)/m);
          expect(result.stdout).toMatch(
            /^✖ Pipeline failed after \S+: node "write" failed \(reason above\)$/m,
          );
        }
      }
    } finally {
      await server.close();
    }
  });

  it("a sub-pipeline's and a manager loop's child runs count in the parent's totals, and the parent's max_budget_usd stops the child", async () => {
    const server = await startScriptedOpenAIServer({
      apiKey: KEY,
      fallback: { type: 'text', text: 'Done.', usage: USAGE },
    });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(
        join(cwd, 'parent.dot'),
        `digraph Parent {
  graph [max_budget_usd=0.3]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  plan  [type="subgraph", graph_ref="plan.dot"]
  build [shape=house, stack.child_dotfile="build.dot", manager.poll_interval="20ms"]
  start -> plan -> build -> exit
}
`,
      );
      await writeFile(
        join(cwd, 'plan.dot'),
        'digraph Plan { start [shape=Mdiamond]; exit [shape=Msquare]; outline [prompt="Outline the plan"]; start -> outline -> exit }\n',
      );
      await writeFile(
        join(cwd, 'build.dot'),
        `digraph Build {
  start [shape=Mdiamond]; exit [shape=Msquare]
  s1 [prompt="Build step one"]; s2 [prompt="Build step two"]; s3 [prompt="Build step three"]
  start -> s1 -> s2 -> s3 -> exit
}
`,
      );
      await writeFile(join(cwd, 'prices.json'), PRICES);
      const result = await attractor(['run', 'parent.dot', ...modelOptions(server), '--logs-dir', 'run'], {
        cwd,
        env: { OPENAI_API_KEY: KEY },
        timeout: 120_000,
      });
      expect(result.exitCode).toBe(1);
      // plan's outline ($0.12), then the manager loop's child: s1 ($0.24), s2 (0.24 < 0.3: $0.36); s3 is refused.
      const prompts = server.requests.map(promptOf);
      expect(prompts).toEqual([
        expect.stringContaining('Outline the plan'),
        expect.stringContaining('Build step one'),
        expect.stringContaining('Build step two'),
      ]);
      expect(result.stdout).toContain(
        'budget max_budget_usd=0.3 spent: the model calls cost $0.3600 before LLM stage "s3"',
      );
      expect(result.stdout).toMatch(/resume with:\s+attractor resume run --max-budget-usd 0\.66$/m);
      const checkpoint = JSON.parse(await readFile(join(cwd, 'run', 'checkpoint.json'), 'utf8')) as {
        context: Record<string, unknown>;
        next_node: string;
      };
      expect(checkpoint.next_node).toBe('build');
      expect(checkpoint.context['usage.total.total_tokens']).toBe(330_000);
      expect(checkpoint.context['usage.total.cost_usd']).toBeCloseTo(0.36, 10);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('the budget is checked before each model call inside a stage: an agent loop stops between calls, resumable at the stage', async () => {
    const toolCall = (name: string) => ({
      type: 'tool-calls' as const,
      calls: [{ name: 'write_file', arguments: { file_path: name, content: 'x\n' } }],
      usage: USAGE,
    });
    const server = await startScriptedOpenAIServer({
      apiKey: KEY,
      script: [toolCall('one.txt'), toolCall('two.txt'), toolCall('three.txt')],
      fallback: { type: 'text', text: 'Wrote the files.', usage: USAGE },
    });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(
        join(cwd, 'one.dot'),
        'digraph One { start [shape=Mdiamond]; exit [shape=Msquare]; write [prompt="Write three files"]; start -> write -> exit }\n',
      );
      await writeFile(join(cwd, 'prices.json'), PRICES);
      const run = (args: readonly string[]) =>
        attractor(args, { cwd, env: { OPENAI_API_KEY: KEY }, timeout: 120_000 });
      const first = await run([
        'run',
        'one.dot',
        ...modelOptions(server),
        '--max-budget-usd',
        '0.2',
        '--workdir',
        cwd,
        '--logs-dir',
        'run',
      ]);
      expect(first.exitCode).toBe(1);
      expect(server.requests).toHaveLength(2);
      expect(first.stdout).toContain(
        'budget max_budget_usd=0.2 spent: the model calls cost $0.2400 before a model call of LLM stage "write"',
      );
      const printed = /resume with:\s+(attractor resume run --max-budget-usd 0\.44)$/m.exec(first.stdout);
      expect(printed, first.stdout).not.toBeNull();
      const resumed = await run(printed![1]!.split(' ').slice(1));
      expect(resumed.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('the totals add up every foreach item, and max_budget_usd stops before the item whose call would overspend; the printed resume finishes it', async () => {
    const files = ['--input', `files=${JSON.stringify(['A', 'B', 'C'])}`];
    const all = await setUp(4, forEach);
    try {
      const result = await all.run(['run', 'reviews.dot', ...all.common, ...files, '--logs-dir', 'run']);
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(all.calls()).toHaveLength(4);
      expect(await all.context()).toMatchObject({
        'usage.total.input_tokens': 400_000,
        'usage.total.output_tokens': 40_000,
        'usage.total.total_tokens': 440_000,
        'usage.total.cost_usd': expect.closeTo(0.48, 10),
        'usage.total.cost_complete': true,
      });
      expect(result.stdout).toMatch(/LLM usage: +400k in, 40k out · \$0\.4800$/m);
    } finally {
      await all.server.close();
    }

    const { server, run, common, calls, context } = await setUp(1, forEach);
    try {
      const first = await run([
        'run',
        'reviews.dot',
        ...common,
        ...files,
        '--max-budget-usd',
        '0.2',
        '--logs-dir',
        'run',
      ]);
      expect(first.exitCode).toBe(1);
      // Item A ($0.12), then item B (0.12 < 0.2, so it runs: $0.24), then item C is refused before its model call.
      expect(calls().map(promptOf)).toEqual([
        expect.stringContaining('Review part A'),
        expect.stringContaining('Review part B'),
      ]);
      expect(first.stdout).toContain(
        'budget max_budget_usd=0.2 spent: the model calls cost $0.2400 before LLM stage',
      );
      expect((await context())['usage.total.cost_usd']).toBeCloseTo(0.24, 10);
      const printed = /resume with:\s+(attractor resume run --max-budget-usd 0\.44)$/m.exec(first.stdout);
      expect(printed, first.stdout).not.toBeNull();
      const resumed = await run(printed![1]!.split(' ').slice(1));
      expect(resumed.stderr).toBe('');
      expect(resumed.exitCode).toBe(0);
      // Only item C and the report ran: items A and B had finished.
      expect(calls().slice(2).map(promptOf)).toEqual([
        expect.stringContaining('Review part C'),
        expect.stringContaining('Write the report'),
      ]);
      expect((await context())['usage.total.cost_usd']).toBeCloseTo(0.48, 10);
    } finally {
      await server.close();
    }
  }, 240_000);

  it('max_tokens counts every foreach item: the report stage is refused', async () => {
    const { server, run, common, calls } = await setUp(1, forEach);
    try {
      const first = await run([
        'run',
        'reviews.dot',
        ...common,
        '--input',
        `files=${JSON.stringify(['A', 'B', 'C'])}`,
        '--max-tokens',
        '300000',
        '--logs-dir',
        'run',
      ]);
      expect(first.exitCode).toBe(1);
      expect(calls()).toHaveLength(3);
      expect(first.stdout).toContain(
        'budget max_tokens=300000 spent: the model calls used 330000 tokens before LLM stage "report"',
      );
    } finally {
      await server.close();
    }
  }, 120_000);
});
