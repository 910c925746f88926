import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { SimulationScriptError } from '../src/errors/simulation-script-error.js';
import { loadSimulationScript } from '../src/load-simulation-script.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { parseSimulationScript } from '../src/simulation-script.js';
import { readText, runDot, tempDir } from './helpers.js';

const flaky = `digraph G {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  build [prompt="build", max_retries=2]
  start -> build -> exit
}`;

describe('SimulationBackend (spec §4.5 simulation mode)', () => {
  it('answers every stage with the simulated response', async () => {
    const { result, logsRoot } = await runDot(flaky, { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(readText(join(logsRoot, 'build', 'response.md'))).toBe('[Simulated] Response for stage: build');
  });

  it('follows a script of outcomes per call, then succeeds', async () => {
    const backend = createSimulationBackend({ script: { build: ['fail', 'retry'] } });
    const { result, events } = await runDot(flaky, { backend, clock: createTestClock() });
    expect(result.status).toBe('success');
    expect(backend.calls.get('build')).toBe(3);
    const failures = events.filter((event) => event.type === 'stage.failed').map((event) => event.error);
    expect(failures).toEqual([
      'simulated fail (script entry 1 for "build")',
      'simulated retry (script entry 2 for "build")',
    ]);
  });

  it('returns custom outcome words that conditions route on', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      classify [prompt="classify"]
      fix [prompt="fix"]
      answer [prompt="answer"]
      start -> classify
      classify -> fix [condition="outcome=bug"]
      classify -> answer [condition="outcome=success"]
      fix -> exit
      answer -> exit
    }`;
    const { result } = await runDot(source, {
      backend: createSimulationBackend({ script: { classify: ['bug'] } }),
    });
    expect(result.completedNodes).toEqual(['start', 'classify', 'fix', 'exit']);
    expect(result.nodeOutcomes.classify?.status).toBe('bug');
  });
});

describe('loadSimulationScript', () => {
  it("says where a script is not JSON without quoting the file (it may be anyone's, e.g. /etc/passwd)", async () => {
    const path = join(tempDir(), 'passwd');
    writeFileSync(path, 'root:x:0:0:SECRET-LINE-42:/root:/bin/bash\n');
    const error = await loadSimulationScript(path).catch((caught: unknown) => caught);
    expect(SimulationScriptError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('is not valid JSON');
    expect((error as Error).message).not.toContain('root:x');
    const broken = join(tempDir(), 'broken.json');
    writeFileSync(broken, '{\n  "a" 1}');
    expect(
      ((await loadSimulationScript(broken).catch((caught: unknown) => caught)) as Error).message,
    ).toContain('not valid JSON (at line 2 column 7)');
  });

  it('answers an unscripted stage with the custom outcome of its shortest way to the exit', async () => {
    // The shape of danshapiro/kilroy semport.dot and consensus_task.dot: no edge accepts success.
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      fetch [prompt="f"]; analyze [prompt="a"]
      start -> fetch
      fetch -> analyze [condition="outcome=process", label="process"]
      fetch -> exit [condition="outcome=done", label="done"]
      analyze -> exit
    }`;
    const { result } = await runDot(source, { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'fetch', 'exit']);
    expect(result.nodeOutcomes.fetch).toMatchObject({ status: 'done' });
    // A script still wins, and a stage that success can route keeps succeeding.
    const scripted = await runDot(source, {
      backend: createSimulationBackend({ script: { fetch: ['process'] } }),
    });
    expect(scripted.result.completedNodes).toEqual(['start', 'fetch', 'analyze', 'exit']);
    expect(scripted.result.nodeOutcomes.analyze).toMatchObject({ status: 'success' });
  });

  it('reads a valid script file', async () => {
    const path = join(tempDir(), 'script.json');
    writeFileSync(path, JSON.stringify({ classify: ['bug'], test: ['fail', 'success'] }));
    await expect(loadSimulationScript(path)).resolves.toEqual({
      classify: ['bug'],
      test: ['fail', 'success'],
    });
  });

  it('names the file and the bad entry', async () => {
    const path = join(tempDir(), 'bad.json');
    writeFileSync(path, JSON.stringify({ classify: ['bug', 3] }));
    const error = await loadSimulationScript(path).catch((caught: unknown) => caught);
    expect(SimulationScriptError.isInstance(error)).toBe(true);
    expect((error as SimulationScriptError).message).toContain(
      `Simulation script ${path} is invalid: "classify"[1] must be an outcome word`,
    );
    expect((error as SimulationScriptError).code).toBe('SIMULATION_SCRIPT_INVALID');
  });

  it('reports invalid JSON and missing files with the file name', async () => {
    const path = join(tempDir(), 'broken.json');
    writeFileSync(path, '{ "classify": [');
    await expect(loadSimulationScript(path)).rejects.toThrow(
      `Simulation script ${path} is invalid: it is not valid JSON`,
    );
    await expect(loadSimulationScript(join(tempDir(), 'missing.json'))).rejects.toThrow(
      'the file does not exist',
    );
  });

  it('rejects a script that is not an object of lists', () => {
    expect(() => parseSimulationScript(['bug'], 'inline.json')).toThrow(
      'Simulation script inline.json is invalid: the script must be a JSON object',
    );
    expect(() => parseSimulationScript({ classify: 'bug' })).toThrow(
      '"classify" must be a list of outcome words (got "bug")',
    );
    expect(() => parseSimulationScript({ classify: ['two words'] })).toThrow(
      '"classify"[0] must be a single outcome word',
    );
  });

  it('rejects a step word that is a typo of an outcome word, naming the key, the index, the word meant and the words', async () => {
    expect(() =>
      parseSimulationScript({ test: ['success', 'fial', 'success'] }, 'steps.json', { outcomes: [] }),
    ).toThrow(
      'Simulation script steps.json is invalid: "test"[1] is "fial", which is no outcome word. Did you mean "fail"? Outcome words are success, partial_success, retry, fail, skipped.',
    );
    const path = join(tempDir(), 'typo.json');
    writeFileSync(path, JSON.stringify({ check: [{ outcome: 'sucess' }] }));
    await expect(loadSimulationScript(path)).rejects.toThrow(
      '"check"[0].outcome is "sucess", which is no outcome word. Did you mean "success"?',
    );
  });

  it('accepts custom words, and checks steps against the custom words of the pipeline', async () => {
    expect(parseSimulationScript({ classify: ['bug', 'process'] }, 'x.json', { outcomes: [] })).toEqual({
      classify: ['bug', 'process'],
    });
    // "ready" is close to "retry", but the pipeline routes on it.
    expect(parseSimulationScript({ gate: ['ready'] }, 'x.json', { outcomes: ['ready'] })).toEqual({
      gate: ['ready'],
    });
    const path = join(tempDir(), 'script.json');
    writeFileSync(path, JSON.stringify({ classify: ['bgu', 'fetaure'] }));
    await expect(loadSimulationScript(path, { outcomes: ['bug', 'feature'] })).rejects.toThrow(
      '"classify"[1] is "fetaure", which is no outcome word. Did you mean "feature"? Outcome words are success, partial_success, retry, fail, skipped, or a custom word the pipeline routes on: bug, feature.',
    );
  });

  it('accepts step objects with an outcome and a tool stdout, and names a bad field', () => {
    expect(
      parseSimulationScript({ check: [{ stdout: 'fresh' }, { outcome: 'fail', stdout: '' }, 'success'] }),
    ).toEqual({ check: [{ stdout: 'fresh' }, { outcome: 'fail', stdout: '' }, 'success'] });
    expect(() => parseSimulationScript({ check: [{ stdout: 3 }] }, 'steps.json')).toThrow(
      'Simulation script steps.json is invalid: "check"[0].stdout must be a string (what the tool prints) (got 3)',
    );
    expect(() => parseSimulationScript({ check: [{ output: 'fresh' }] })).toThrow(
      '"check"[0] has unknown key "output" (a step object has "outcome", "stdout" and "response")',
    );
    expect(() => parseSimulationScript({ check: [{ outcome: 'two words' }] })).toThrow(
      '"check"[0].outcome must be a single outcome word',
    );
  });

  it('fails an LLM stage whose step gives a stdout, saying that stdout is for dry-run tool nodes', async () => {
    const backend = createSimulationBackend({ script: { build: [{ stdout: 'done' }] } });
    const { result } = await runDot(flaky, { backend });
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.build?.failureReason).toBe(
      'simulation script entry 1 for "build" sets "stdout", but "build" is an LLM stage; "stdout" is for tool nodes in a dry run, give an outcome word instead',
    );
  });
});

describe('SimulationBackend and output_schema (README "Typed data")', () => {
  const typed = (attributes: string) => `digraph G {
    start [shape=Mdiamond]
    exit [shape=Msquare]
    plan [prompt="plan", ${attributes}]
    start -> plan -> exit
  }`;

  it('answers a stage that has an output_schema with a minimal value valid for it', async () => {
    const { result, logsRoot } = await runDot(
      typed('output_schema="summary: string, steps: string[], done: boolean, score?: number"'),
      { backend: createSimulationBackend() },
    );
    expect(result.status).toBe('success');
    expect(JSON.parse(readText(join(logsRoot, 'plan', 'response.md')))).toEqual({
      summary: 'string',
      steps: ['string'],
      done: true,
      score: 0,
    });
    expect(result.context.get('plan.summary')).toBe('string');
    expect(result.context.get('plan.steps')).toEqual(['string']);
  });

  it('takes a scripted "response" (a JSON value or text) as the reply, checked against the output_schema', async () => {
    const source = typed('output_schema="summary: string", max_retries=1');
    const backend = createSimulationBackend({
      script: { plan: [{ response: { summary: 3 } }, { response: '{"summary": "two steps"}' }] },
    });
    const failures: string[] = [];
    const { result } = await runDot(source, {
      backend,
      clock: createTestClock(),
      onEvent: (event) => {
        if (event.type === 'stage.failed') failures.push(event.error);
      },
    });
    expect(result.status).toBe('success');
    expect(result.context.get('plan.summary')).toBe('two steps');
    expect(failures).toEqual([
      'the structured output of "plan" (the reply, response.md) does not match its output_schema: "summary" must be a string, got 3',
    ]);
  });

  it('gives a scripted "response" text to a stage without output_schema', async () => {
    const { logsRoot } = await runDot(typed('label="plan"'), {
      backend: createSimulationBackend({ script: { plan: [{ response: 'PLAN_READY' }] } }),
    });
    expect(readText(join(logsRoot, 'plan', 'response.md'))).toBe('PLAN_READY');
  });
});
