/**
 * `attractor run --backend claude-code`: the real `claude` CLI (from @anthropic-ai/claude-agent-sdk) runs each
 * stage of a 3-stage pipeline, pointed at a scripted Anthropic Messages server on 127.0.0.1 (the only fake: the
 * model). The server is also the agent's HTTP(S) proxy, so any other host it tries is caught.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory, waitForBanner, waitForServedRun } from './helpers/cli.js';
import { useScriptedClaudeCode } from './helpers/scripted-claude-code.js';

const claude = useScriptedClaudeCode();

const PIPELINE = `digraph Feature {
  graph [goal="Add a greeting"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  plan      [prompt="Plan the greeting [[scenario:plan]]"]
  implement [prompt="Write hello.txt [[scenario:implement]]"]
  review    [prompt="Review hello.txt [[scenario:review]]"]
  start -> plan -> implement -> review -> exit
}
`;

// Generous: every stage starts the real claude CLI, slow on a busy CI machine.
describe('attractor run --backend claude-code', { timeout: 120_000 }, () => {
  it('resumes a failed run with the backend it recorded, also when resume passes another backend option', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'two.dot'),
      `digraph Two { start [shape=Mdiamond] exit [shape=Msquare]
        draft [prompt="Draft [[scenario:draft]]"]
        check [prompt="Check [[scenario:check]]"]
        start -> draft -> check
        check -> exit [condition="outcome=success"] }`,
    );
    claude.server.script({
      draft: [{ text: 'Drafted.' }],
      check: [{ httpError: 400, message: 'check is not ready yet' }],
    });
    const first = await attractor(
      ['run', 'two.dot', '--backend', 'claude-code', '--model', 'claude-test-1', '--logs-dir', 'run'],
      { cwd, env: claude.env },
    );
    expect(first.exitCode).toBe(1);
    expect(first.stdout).toContain('check is not ready yet');

    claude.server.script({ check: [{ text: 'Checked.' }] });
    // Only --model is given: the recorded --backend stays (it used to be dropped with every other recorded option).
    const resumed = await attractor(['resume', 'run', '--model', 'claude-test-2'], { cwd, env: claude.env });

    expect(resumed.stderr).not.toContain('error');
    expect(resumed.exitCode).toBe(0);
    expect(await readFile(join(cwd, 'run', 'check', 'response.md'), 'utf8')).toBe('Checked.');
    const checks = claude.server.requests.filter((request) => request.scenario === 'check');
    expect(checks.at(-1)?.body).toMatchObject({ model: 'claude-test-2' });
  });

  it('runs a 3-stage pipeline with Claude Code: files land in the workdir, agent events reach the terminal and events.jsonl', async () => {
    const cwd = await temporaryDirectory();
    const workdir = await temporaryDirectory();
    await writeFile(join(cwd, 'feature.dot'), PIPELINE);
    claude.server.script({
      plan: [{ text: 'Plan: write hello.txt with a greeting.' }],
      implement: [
        { tool: 'Write', input: { file_path: join(workdir, 'hello.txt'), content: 'Hello, Attractor!\n' } },
        { text: 'Wrote hello.txt.' },
      ],
      review: [{ text: 'hello.txt looks right.' }],
    });

    const result = await attractor(
      [
        'run',
        'feature.dot',
        '--backend',
        'claude-code',
        '--model',
        'claude-test-1',
        '--workdir',
        workdir,
        '--logs-dir',
        'run',
        '--verbose',
      ],
      { cwd, env: claude.env },
    );

    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(workdir, 'hello.txt'), 'utf8')).toBe('Hello, Attractor!\n');
    expect(result.stdout).toContain('implement → Write');
    expect(result.stdout).toContain('Wrote hello.txt.');
    expect(result.stdout).toContain('claude-code session');
    const events = (await readFile(join(cwd, 'run', 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as PipelineEvent);
    const sessions = events.filter((event) => event.type === 'agent.session.started');
    expect(sessions.map((event) => event.nodeId)).toEqual(['plan', 'implement', 'review']);
    const usage = events.filter((event) => event.type === 'agent.usage');
    expect(usage).toHaveLength(3);
    expect(
      usage.every(
        (event) => event.type === 'agent.usage' && typeof event.costUsd === 'number' && event.costUsd > 0,
      ),
    ).toBe(true);
    expect(await readFile(join(cwd, 'run', 'implement', 'response.md'), 'utf8')).toBe('Wrote hello.txt.');
    expect(JSON.parse(await readFile(join(cwd, 'run', 'cli-options.json'), 'utf8'))).toMatchObject({
      backend: 'claude-code',
      model: 'claude-test-1',
    });
    const requests = claude.server.requests.filter((request) =>
      ['plan', 'implement', 'review'].includes(request.scenario ?? ''),
    );
    expect(new Set(requests.map((request) => (request.body as { model?: string }).model))).toEqual(
      new Set(['claude-test-1']),
    );
  });

  it('stops before the run when a stage the routing sends to the api backend has no LLM configured', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'one.dot'),
      'digraph One { start [shape=Mdiamond] exit [shape=Msquare] work [prompt="x", backend="api"] start -> work -> exit }',
    );

    const result = await attractor(['run', 'one.dot', '--backend', 'codex', '--logs-dir', 'run'], {
      cwd,
      env: claude.env,
    });

    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      'error: The pipeline was not started: 1 LLM stage cannot run.\n  - LLM stage "work" names no model: set llm_model on the node or in the model_stylesheet, or pass --model\nOr give them an agent: --backend claude-code (or a node attribute backend="codex"), or pass --simulate.',
    );
  });
});

describe('attractor serve --backend claude-code', { timeout: 120_000 }, () => {
  it('runs a started pipeline with Claude Code, and refuses Codex when the server does not allow shell commands', async () => {
    const cwd = await temporaryDirectory();
    claude.server.script({ served: [{ text: 'Served by Claude Code.' }] });
    const child = attractor(
      ['serve', '--port', '0', '--backend', 'claude-code,openai=codex', '--model', 'claude-test-1'],
      {
        cwd,
        env: claude.env,
      },
    );
    try {
      const { url, token } = await waitForBanner(child);
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      const started = await fetch(`${url}/pipelines`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          dot: 'digraph s { start [shape=Mdiamond] exit [shape=Msquare] work [prompt="Serve [[scenario:served]]"] start -> work -> exit }',
        }),
      });
      expect(started.status).toBe(201);
      const { id } = (await started.json()) as { id: string };
      expect(await waitForServedRun({ url, id, headers })).toBe('success');
      expect(await readFile(join(cwd, '.attractor', 'runs', id, 'work', 'response.md'), 'utf8')).toBe(
        'Served by Claude Code.',
      );

      const refused = await fetch(`${url}/pipelines`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          dot: 'digraph c { start [shape=Mdiamond] exit [shape=Msquare] work [prompt="x", llm_model="gpt-5.1-codex"] start -> work -> exit }',
        }),
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
        '--allow-tools',
      );
    } finally {
      child.kill('SIGTERM');
      await child;
    }
  });
});
