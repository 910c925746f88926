import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  attractor,
  temporaryDirectory,
  waitForBanner,
  waitForServedQuestion,
  waitForServedState,
} from './helpers/cli.js';

const GATE = `digraph gate {
  start [shape=Mdiamond]
  plan [prompt="Plan"]
  ask [shape=hexagon, label="Ship it?"]
  done [shape=Msquare]
  start -> plan -> ask
  ask -> done [label="[Y] Yes"]
  ask -> plan [label="[N] No"]
}`;

describe('attractor serve (spec §9.5)', () => {
  it('prints URL and token, serves the API with ATTRACTOR_SERVER_TOKEN, and stops cleanly on SIGTERM keeping the run resumable', async () => {
    const cwd = await temporaryDirectory();
    const child = attractor(['serve', '--port', '0', '--simulate'], {
      cwd,
      env: { ATTRACTOR_SERVER_TOKEN: 'from-the-env' },
    });
    const { url, token: shown } = await waitForBanner(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The console masks secret-named variables: the banner says where the token is instead of printing it.
    expect(shown).toBe('the value of $ATTRACTOR_SERVER_TOKEN');
    const token = 'from-the-env';

    expect((await fetch(`${url}/pipelines`)).status).toBe(401);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    // --simulate: every run is simulated, whatever a request says.
    expect(await (await fetch(`${url}/server`, { headers })).json()).toMatchObject({ simulation: 'always' });
    const started = await fetch(`${url}/pipelines`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ dot: GATE }),
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    await waitForServedQuestion({ url, id, headers });
    const tools = await fetch(`${url}/pipelines`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        dot: 'digraph t { start [shape=Mdiamond]; sh [shape=parallelogram, tool_command="true"]; done [shape=Msquare]; start -> sh -> done }',
      }),
    });
    expect(tools.status).toBe(400);
    expect(((await tools.json()) as { error: { message: string } }).error.message).toContain('--allow-tools');

    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('Stopping: cancelling running pipelines');
    expect(await readdir(join(cwd, '.attractor', 'runs'))).toEqual([id]);
    const checkpoint = JSON.parse(
      await (await import('node:fs/promises')).readFile(
        join(cwd, '.attractor', 'runs', id, 'checkpoint.json'),
        'utf8',
      ),
    ) as { next_node: string };
    expect(checkpoint.next_node).toBe('ask');
  }, 120_000);

  it('runs plug-in handlers of --config and lints their attributes from their schema', async () => {
    const cwd = await temporaryDirectory();
    const config = fileURLToPath(new URL('./fixtures/plugin/attractor.config.mjs', import.meta.url));
    const child = attractor(['serve', '--port', '0', '--simulate', '--config', config], { cwd });
    const { url, token } = await waitForBanner(child);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const post = (dot: string) =>
      fetch(`${url}/pipelines`, { method: 'POST', headers, body: JSON.stringify({ dot }) });
    const pipeline = (region: string) =>
      `digraph r { start [shape=Mdiamond]; ship [type="deploy", region="${region}"]; exit [shape=Msquare]; start -> ship -> exit }`;
    const refused = await post(pipeline('mars'));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('which its deploy handler does not accept');
    const started = await post(pipeline('eu'));
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    expect(await waitForServedState({ url, id, headers, state: 'success' })).toBe('success');
    const checkpoint = JSON.parse(
      await (await import('node:fs/promises')).readFile(
        join(cwd, '.attractor', 'runs', id, 'checkpoint.json'),
        'utf8',
      ),
    ) as { context: Record<string, unknown> };
    expect(checkpoint.context['ship.region']).toBe('eu');
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(0);
  }, 120_000);

  it('refuses a plug-in handler of --config that declares runsCommand without --allow-tools, runs it with it; preflights one that declares callsModel', async () => {
    const cwd = await temporaryDirectory();
    const config = fileURLToPath(new URL('./fixtures/worker-plugins/attractor.config.mjs', import.meta.url));
    const deploy = `digraph d {
  start [shape=Mdiamond]
  ship [type="deploy", tool_command="./deploy.sh"]
  done [shape=Msquare]
  start -> ship -> done
}`;
    const post = (url: string, headers: Record<string, string>, dot: string) =>
      fetch(`${url}/pipelines`, { method: 'POST', headers, body: JSON.stringify({ dot }) });

    const strict = attractor(['serve', '--port', '0', '--config', config], { cwd });
    const served = await waitForBanner(strict);
    const strictHeaders = { Authorization: `Bearer ${served.token}`, 'Content-Type': 'application/json' };
    const refused = await post(served.url, strictHeaders, deploy);
    expect(refused.status).toBe(400);
    const { error } = (await refused.json()) as { error: { code: string; message: string; nodes: string[] } };
    expect(error.code).toBe('TOOLS_NOT_ALLOWED');
    expect(error.message).toContain('node "ship" (line 3), whose "deploy" handler runs commands');
    expect(error.message).toContain('--allow-tools');
    expect(error.nodes).toEqual(['ship']);
    // No model and no key: the plug-in stage that calls the model is named by the preflight, whatever its type.
    const summarize = await post(
      served.url,
      strictHeaders,
      'digraph s { start [shape=Mdiamond]; sum [type="summarize", prompt="Sum up"]; done [shape=Msquare]; start -> sum -> done }',
    );
    expect(summarize.status).toBe(400);
    const preflight = (await summarize.json()) as { error: { code: string; message: string } };
    expect(preflight.error.code).toBe('BACKEND_UNAVAILABLE');
    expect(preflight.error.message).toContain('LLM stage "sum" names no model');
    strict.kill('SIGTERM');
    expect((await strict).exitCode).toBe(0);
    expect(await readdir(cwd)).not.toContain('deployed.txt');

    const allowing = attractor(['serve', '--port', '0', '--allow-tools', '--config', config], { cwd });
    const { url, token } = await waitForBanner(allowing);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const started = await post(url, headers, deploy);
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };
    expect(await waitForServedState({ url, id, headers, state: 'success' })).toBe('success');
    expect(await readdir(cwd)).toContain('deployed.txt');
    allowing.kill('SIGTERM');
    expect((await allowing).exitCode).toBe(0);
  }, 180_000);

  it('generates a token when none is given and refuses a bad port', async () => {
    const cwd = await temporaryDirectory();
    const child = attractor(['serve', '--port', '0', '--simulate'], { cwd });
    const { token } = await waitForBanner(child);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(0);

    const bad = await attractor(['serve', '--port', '70000'], { cwd });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('expected a port number from 0 to 65535');
  }, 120_000);

  it('without an LLM configured, refuses runs that need one and explains how to simulate', async () => {
    const cwd = await temporaryDirectory();
    const child = attractor(['serve', '--port', '0'], { cwd });
    const { url, token } = await waitForBanner(child);
    // The web UI learns that runs must be simulated here (its "Simulate LLM stages" box is ticked and locked).
    const info = await fetch(`${url}/server`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await info.json()).toMatchObject({ simulation: 'required' });
    /** Starts a run with `body` (JSON, or DOT text); expects the 400 BACKEND_UNAVAILABLE refusal, returns its message. */
    const refusal = async (body: object | string): Promise<string> => {
      const response = await fetch(`${url}/pipelines`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': typeof body === 'string' ? 'text/vnd.graphviz' : 'application/json',
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('BACKEND_UNAVAILABLE');
      return error.message;
    };
    // The stage names no model and the server has none: the message says how to give one, not to set variables.
    expect(await refusal({ dot: GATE })).toBe(
      [
        'The pipeline was not started: 1 LLM stage cannot run.',
        '  - LLM stage "plan" names no model: set llm_model on the node or in the model_stylesheet, or pass --model',
        'Restart `attractor serve` with --model <model> (and --provider when the model name implies none), send "model": "<model>" with the request, or set llm_model on the node or in the model_stylesheet; or send "simulate": true.',
      ].join('\n'),
    );
    // A model whose provider has no key here: the message names the variable to set.
    expect(await refusal({ dot: GATE, model: 'claude-sonnet-4-6' })).toBe(
      [
        'The pipeline was not started: 1 LLM stage cannot run.',
        '  - set ANTHROPIC_API_KEY for provider anthropic: LLM stage "plan" (model claude-sonnet-4-6)',
        'Restart `attractor serve` with those variables set, or send "simulate": true.',
      ].join('\n'),
    );
    // Both missing (one stage without a model, one without its key): the message asks for both.
    const both = await refusal(
      GATE.replace(
        'plan [prompt="Plan"]',
        'plan [prompt="Plan"]\n  write [prompt="Write", llm_model="gpt-5.2"]',
      ).replace('start -> plan -> ask', 'start -> plan -> write -> ask'),
    );
    expect(both.split('\n').at(-1)).toBe(
      'Restart `attractor serve` with those variables set and --model <model> (and --provider when the model name implies none), send "model": "<model>" with the request, or set llm_model on the node or in the model_stylesheet; or send "simulate": true.',
    );
    expect(both).toContain('set OPENAI_API_KEY for provider openai: LLM stage "write" (model gpt-5.2)');
    const simulated = await fetch(`${url}/pipelines`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ dot: GATE, simulate: true }),
    });
    expect(simulated.status).toBe(201);
    child.kill('SIGTERM');
    expect((await child).exitCode).toBe(0);
    expect(await readdir(join(cwd, '.attractor', 'runs'))).toHaveLength(1);
  }, 120_000);

  it('with --backend, a stage on the API without its key is refused in server words (send "simulate", restart the server), not run words', async () => {
    const cwd = await temporaryDirectory();
    const child = attractor(
      ['serve', '--port', '0', '--backend', 'anthropic=claude-code', '--model', 'gpt-5.2'],
      { cwd },
    );
    try {
      const { url, token } = await waitForBanner(child);
      const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
      // Agent CLIs can run stages here: a run may, but need not, be simulated.
      expect(await (await fetch(`${url}/server`, { headers })).json()).toMatchObject({
        simulation: 'optional',
      });
      const response = await fetch(`${url}/pipelines`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ dot: GATE }),
      });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('BACKEND_UNAVAILABLE');
      expect(error.message).toBe(
        [
          'The pipeline was not started: 1 LLM stage cannot run.',
          '  - set OPENAI_API_KEY for provider openai: LLM stage "plan" (model gpt-5.2)',
          'Restart `attractor serve` with those variables set, or send "simulate": true. Or give them an agent: restart `attractor serve` with --backend claude-code, or set a node attribute backend="codex".',
        ].join('\n'),
      );
      expect(error.message).not.toContain('--simulate');
    } finally {
      child.kill('SIGTERM');
      expect((await child).exitCode).toBe(0);
    }
  }, 120_000);

  it('a run waiting at a gate when its server stops reads cancelled ("server stopped") in the API, runs and inspect alike, resumes, and inspect counts its wall time', async () => {
    const cwd = await temporaryDirectory();
    const headers = { Authorization: 'Bearer t1', 'Content-Type': 'application/json' };
    const first = attractor(['serve', '--port', '0', '--simulate', '--token', 't1'], { cwd });
    const stopped = await waitForBanner(first);
    const started = await fetch(`${stopped.url}/pipelines`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ dot: GATE }),
    });
    const { id } = (await started.json()) as { id: string };
    await waitForServedQuestion({ url: stopped.url, id, headers });
    const runDir = join('.attractor', 'runs', id);
    // While the server waits for the answer, inspect and runs say so as the API does.
    expect((await attractor(['runs'], { cwd })).stdout).toMatch(new RegExp(`^${id}\\s+waiting\\s`, 'm'));
    const waiting = (await attractor(['inspect', runDir], { cwd })).stdout;
    expect(waiting.split('\n')[0]).toBe('gate  waiting');
    expect(waiting).toMatch(/^ask\s+1\s+waiting\s/m);
    expect(waiting).toMatch(/^duration: .+ so far$/m);
    expect(waiting).toContain('waiting: at gate ask  (a live process runs it');
    first.kill('SIGTERM');
    expect((await first).exitCode).toBe(0);

    const second = attractor(['serve', '--port', '0', '--simulate', '--token', 't1'], { cwd });
    try {
      const { url } = await waitForBanner(second);
      const expected = { id, state: 'cancelled', failureReason: 'server stopped', resumable: true };
      const { pipelines } = (await (await fetch(`${url}/pipelines`, { headers })).json()) as {
        pipelines: unknown[];
      };
      expect(pipelines).toEqual([expect.objectContaining(expected)]);
      expect(await (await fetch(`${url}/pipelines/${id}`, { headers })).json()).toMatchObject(expected);
      const runs = await attractor(['runs'], { cwd });
      expect(runs.stdout).toMatch(new RegExp(`^${id}\\s+cancelled\\s`, 'm'));
      const inspected = await attractor(['inspect', runDir], { cwd });
      expect(inspected.stdout.split('\n')[0]).toBe('gate  cancelled');
      expect(inspected.stdout).toContain('reason:   server stopped');
      expect(inspected.stdout).toMatch(/^ask\s+1\s+cancelled\s/m);
      expect(inspected.stdout).not.toContain('interrupted');
      expect(inspected.stdout).toContain(`next:  ask  (attractor resume ${runDir})`);

      expect((await fetch(`${url}/pipelines/${id}/resume`, { method: 'POST', headers })).status).toBe(200);
      const questionId = await waitForServedQuestion({ url, id, headers });
      await fetch(`${url}/pipelines/${id}/questions/${encodeURIComponent(questionId)}/answer`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ value: 'Y' }),
      });
      expect(await waitForServedState({ url, id, headers, state: 'success' })).toBe('success');
      const served = (await (await fetch(`${url}/pipelines/${id}`, { headers })).json()) as {
        startedAt: string;
        endedAt: string;
      };

      // The wall time is the web UI's (start to end), the time stopped between the legs included.
      const json = JSON.parse((await attractor(['inspect', '--json', runDir], { cwd })).stdout) as {
        state: string;
        endedAt: string;
        wallTimeMs: number;
        durationMs: number;
      };
      const events = (await readFile(join(cwd, runDir, 'events.jsonl'), 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; timestamp: string });
      const cancelledAt = events.find((event) => event.type === 'pipeline.cancelled')!.timestamp;
      const resumedAt = events.filter((event) => event.type === 'pipeline.started')[1]!.timestamp;
      expect(json).toMatchObject({ state: 'success', endedAt: served.endedAt });
      expect(json.wallTimeMs).toBe(Date.parse(served.endedAt) - Date.parse(served.startedAt));
      expect(json.wallTimeMs).toBeGreaterThanOrEqual(Date.parse(resumedAt) - Date.parse(cancelledAt));
      expect(json.wallTimeMs).toBeGreaterThan(json.durationMs);
      const text = (await attractor(['inspect', runDir], { cwd })).stdout;
      expect(text).toMatch(
        json.wallTimeMs - json.durationMs >= 1000
          ? /^duration: \S+( \S+)? \(executing \S+; the rest waiting at gates or stopped\)$/m
          : /^duration: \S+( \S+)?$/m,
      );
    } finally {
      second.kill('SIGTERM');
      expect((await second).exitCode).toBe(0);
    }
  }, 180_000);

  it('after a crash (SIGKILL) lists the run as interrupted, and a new server resumes it to the end', async () => {
    const cwd = await temporaryDirectory();
    const first = attractor(['serve', '--port', '0', '--simulate', '--token', 't1'], { cwd });
    const crashed = await waitForBanner(first);
    const headers = { Authorization: 'Bearer t1', 'Content-Type': 'application/json' };
    const started = await fetch(`${crashed.url}/pipelines`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ dot: GATE }),
    });
    const { id } = (await started.json()) as { id: string };
    await waitForServedQuestion({ url: crashed.url, id, headers });
    first.kill('SIGKILL');
    await first;

    const second = attractor(['serve', '--port', '0', '--simulate', '--token', 't1'], { cwd });
    const { url } = await waitForBanner(second);
    const { pipelines } = (await (await fetch(`${url}/pipelines`, { headers })).json()) as {
      pipelines: { id: string; state: string; resumable: boolean; currentNode: string }[];
    };
    expect(pipelines).toEqual([
      expect.objectContaining({ id, state: 'interrupted', resumable: true, currentNode: 'ask' }),
    ]);
    expect((await fetch(`${url}/pipelines/${id}/resume`, { method: 'POST', headers })).status).toBe(200);
    const questionId = await waitForServedQuestion({ url, id, headers });
    const answered = await fetch(
      `${url}/pipelines/${id}/questions/${encodeURIComponent(questionId)}/answer`,
      {
        method: 'POST',
        headers,
        body: JSON.stringify({ value: 'Y' }),
      },
    );
    expect(answered.status).toBe(200);
    expect(await waitForServedState({ url, id, headers, state: 'success' })).toBe('success');
    second.kill('SIGTERM');
    expect((await second).exitCode).toBe(0);
  }, 120_000);
});
