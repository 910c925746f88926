import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it } from 'vitest';
import { attractor, REPO_ROOT, temporaryDirectory } from './helpers/cli.js';

/** A pipeline with typed inputs, a tool stage that uses them, and outputs. */
const TYPED = `digraph Typed {
  graph [inputs="repo: string, issue: integer, labels?: string[]", outputs="tool.last_line, input.repo"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  fetch [shape=parallelogram, tool_command="echo \\"issue $input.issue of $input.repo labels $input.labels\\""]
  start -> fetch -> exit
}
`;

async function project(): Promise<string> {
  const dir = await temporaryDirectory();
  await writeFile(join(dir, 'typed.dot'), TYPED);
  return dir;
}

describe('attractor run --input / --inputs-file (README "Typed data")', () => {
  it('runs with --inputs-file and --input (which overrides it), writes output.json, and inspect shows both', async () => {
    const cwd = await project();
    await writeFile(join(cwd, 'in.json'), JSON.stringify({ repo: 'acme/old', issue: 7, labels: ['bug'] }));
    const result = await attractor(
      [
        'run',
        'typed.dot',
        '--inputs-file',
        'in.json',
        '--input',
        'repo=acme/api',
        '--input',
        'issue=42',
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const output = { 'tool.last_line': 'issue 42 of acme/api labels ["bug"]', 'input.repo': 'acme/api' };
    expect(JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8'))).toEqual(output);
    expect(result.stdout).toContain(`  output:        ${JSON.stringify(output)} (output.json)`);
    const inspected = await attractor(['inspect', 'run'], { cwd });
    expect(inspected.exitCode, inspected.stderr).toBe(0);
    expect(inspected.stdout).toContain(
      'inputs:   repo = acme/api\n          issue = 42\n          labels = ["bug"]\noutput:   tool.last_line = issue 42 of acme/api labels ["bug"]\n          input.repo = acme/api\n',
    );
    const json = JSON.parse((await attractor(['inspect', 'run', '--json'], { cwd })).stdout);
    expect(json.output).toEqual(output);
    expect(json.inputs).toEqual({ repo: 'acme/api', issue: 42, labels: ['bug'] });
  });

  it('refuses a mistyped or missing input before any stage, naming the field, the type and the value (exit 2)', async () => {
    const cwd = await project();
    const mistyped = await attractor(
      ['run', 'typed.dot', '--input', 'repo=acme/api', '--input', 'issue=forty-two', '--logs-dir', 'run'],
      { cwd },
    );
    expect(mistyped.exitCode).toBe(2);
    expect(mistyped.stderr).toBe(
      'error: The inputs of graph "Typed" do not match its declaration (inputs="repo: string, issue: integer, labels?: string[]"):\n  - input "issue" must be an integer, got "forty-two"\nPass inputs with --input name=value (repeatable) or --inputs-file inputs.json.',
    );
    await expect(access(join(cwd, 'run'))).rejects.toThrow();
    const missing = await attractor(['run', 'typed.dot', '--input', 'issue=3', '--input', 'extra=1'], {
      cwd,
    });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('  - input "repo" is required and missing (expected a string)\n');
    expect(missing.stderr).toContain('  - input "extra" is not declared\n');
    expect(missing.stdout).toBe('');
  });

  it('refuses an --inputs-file that is not a JSON object, and a string input keeps its text (--input repo=123)', async () => {
    const cwd = await project();
    await writeFile(join(cwd, 'list.json'), '["acme/api"]');
    const list = await attractor(['run', 'typed.dot', '--inputs-file', 'list.json'], { cwd });
    expect(list.exitCode).toBe(2);
    expect(list.stderr).toBe(
      'error: --inputs-file list.json is not a JSON object of inputs: write e.g. {"repo": "acme/api", "issue": 42}.',
    );
    const numeric = await attractor(
      ['run', 'typed.dot', '--input', 'repo=123', '--input', 'issue=1', '--logs-dir', 'run'],
      { cwd },
    );
    expect(numeric.exitCode, numeric.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8'))['input.repo']).toBe('123');
  });

  it('takes --set input.<name> as an input, under --input; refuses an undeclared one before the run directory (exit 2)', async () => {
    const cwd = await project();
    // Once a stack trace ("unexpected error: InputsInvalidError") that left a run directory behind.
    const undeclared = await attractor(
      ['run', 'typed.dot', '--input', 'repo=acme/api', '--input', 'issue=1', '--set', 'input.isue=2'],
      { cwd },
    );
    expect(undeclared.exitCode).toBe(2);
    expect(undeclared.stderr).toContain('  - input "isue" is not declared (did you mean "issue"?)\n');
    expect(undeclared.stderr).not.toContain('unexpected error');
    await expect(access(join(cwd, '.attractor'))).rejects.toThrow();
    const set = await attractor(
      [
        'run',
        'typed.dot',
        '--set',
        'input.repo=acme/web',
        '--set',
        'input.issue=7',
        '--input',
        'issue=8',
        '--logs-dir',
        'run',
      ],
      { cwd },
    );
    expect(set.exitCode, set.stderr).toBe(0);
    const output = JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8'));
    expect(output).toEqual({ 'tool.last_line': 'issue 8 of acme/web labels', 'input.repo': 'acme/web' });
  });

  it('run --queue checks the inputs before it reaches the queue', async () => {
    const cwd = await project();
    const result = await attractor(
      ['run', 'typed.dot', '--queue', 'postgres://attractor@127.0.0.1:9/attractor', '--input', 'issue=x'],
      { cwd },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('  - input "issue" must be an integer, got "x"');
    expect(result.stderr).not.toContain('Cannot reach');
  });

  it("the root README's Typed data example validates without a finding, also with --strict", async () => {
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Typed data'));
    const example = /```dot\n([\s\S]*?)```/.exec(section)?.[1];
    expect(example).toContain('digraph Triage');
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'triage.dot'), example!);
    const result = await attractor(['validate', '--strict', 'triage.dot'], { cwd });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain('✔ triage.dot: valid (4 nodes, 3 edges)');
  });

  it('validate reports an undeclared $input reference and every bad entry of a malformed inputs declaration', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'bad.dot'),
      'digraph Bad {\n  graph [inputs="repo: str, issue: int"]\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  t [shape=parallelogram, tool_command="echo $input.issue"]\n  start -> t -> exit\n}\n',
    );
    const result = await attractor(['validate', 'bad.dot'], { cwd });
    expect(result.exitCode).toBe(1);
    expect(result.stdout + result.stderr).toContain('inputs_declaration');
    expect(result.stdout + result.stderr).toContain('"str" is not a type');
    // Every bad entry in one pass, each at its place (not one per run of validate).
    expect(result.stdout + result.stderr).toContain('bad.dot:2:24');
    expect(result.stdout + result.stderr).toContain('"int" is not a type');
    expect(result.stdout + result.stderr).toContain('bad.dot:2:36');
  });
});

describe('output_schema on an LLM stage against a scripted OpenAI-compatible server (README "Typed data")', () => {
  it('asks for JSON of the schema; an invalid reply fails the attempt, the retry succeeds and its fields reach the output', async () => {
    const key = 'sk-test-9a8b7c6d5e4f';
    const server = await startScriptedOpenAIServer({
      apiKey: key,
      script: [
        { type: 'text', text: '{"verdict": "approve", "score": "high"}' },
        { type: 'text', text: '{"verdict": "approve", "score": 9}' },
      ],
    });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(
        join(cwd, 'review.dot'),
        `digraph Review {
  graph [outputs="verdict, scores.review"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  review [prompt="Review the change", max_retries=1, tools="none",
          output_schema="verdict: string, score: number", out_map="verdict -> verdict, score -> scores.review"]
  start -> review -> exit
}
`,
      );
      const result = await attractor(
        ['run', 'review.dot', '--base-url', server.baseURL, '--model', 'gpt-test', '--logs-dir', 'run'],
        { cwd, env: { OPENAI_API_KEY: key } },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        '↻ review attempt 1 failed: the structured output of "review" (the reply, response.md) does not match its output_schema: "score" must be a number, got "high" — retrying',
      );
      const calls = server.requests.filter((request) => request.path.endsWith('/chat/completions'));
      expect(calls).toHaveLength(2);
      expect(calls[0]?.body).toMatchObject({
        response_format: {
          type: 'json_schema',
          json_schema: {
            // The compact form allows extra fields, which OpenAI's strict mode refuses (the scripted server too).
            strict: false,
            schema: {
              type: 'object',
              properties: { verdict: { type: 'string' }, score: { type: 'number' } },
            },
          },
        },
      });
      expect(JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8'))).toEqual({
        verdict: 'approve',
        'scores.review': 9,
      });
    } finally {
      await server.close();
    }
  });
});

describe('declared state at a parallel join, from the CLI (README "Typed data")', () => {
  const pipeline = (state: string, second: string) => `digraph Join {
  graph [${state}, outputs="findings"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  fan [shape=component]
  join [shape=tripleoctagon, join_merge=none]
  a [shape=parallelogram, tool_command="sleep 0.3; echo '{\\"f\\": \\"a\\"}'", output_schema="f: string", out_map="f -> ${second}"]
  b [shape=parallelogram, tool_command="echo '{\\"f\\": \\"b\\"}'", output_schema="f: string", out_map="f -> findings"]
  start -> fan
  fan -> a -> join
  fan -> b -> join
  join -> exit
}
`;

  it('appends the branches to a declared list in branch order; an undeclared key written twice fails the join', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'append.dot'), pipeline('state="findings: append"', 'findings'));
    const appended = await attractor(['run', 'append.dot', '--logs-dir', 'run'], { cwd });
    expect(appended.exitCode, appended.stdout + appended.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(cwd, 'run', 'output.json'), 'utf8'))).toEqual({
      findings: ['a', 'b'],
    });

    await writeFile(join(cwd, 'conflict.dot'), pipeline('state="other: append"', 'findings'));
    // Lint saw it coming: out_map_conflict names the key and the branches' stages, at the second writer.
    const linted = await attractor(['validate', 'conflict.dot'], { cwd });
    expect(linted.stdout + linted.stderr).toContain(
      'Branches of parallel node "fan" all write "findings" through out_map ("a", "b"), and the graph\'s state does not declare it: fan-in "join" fails when they write different values.',
    );
    const conflict = await attractor(['run', 'conflict.dot', '--logs-dir', 'run2'], { cwd });
    expect(conflict.exitCode).toBe(1);
    expect(conflict.stdout + conflict.stderr).toContain(
      'parallel branches "a" and "b" both wrote the undeclared context key "findings" with different values',
    );
  });
});
