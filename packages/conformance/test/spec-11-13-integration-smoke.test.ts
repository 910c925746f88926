/**
 * Spec §11.13 Integration Smoke Test, end to end through the built `attractor` binary (a real child process) with
 * the AI-SDK backend talking real HTTP to a scripted OpenAI-compatible server on 127.0.0.1. Only the LLM is faked.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import type { Checkpoint } from '@attractor/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';
import { readJson, readText, tempDir } from './support/run-dot.js';

const fixture = fileURLToPath(new URL('./fixtures/smoke-pipeline.dot', import.meta.url));
const API_KEY = 'sk-conformance-test-key';

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface ValidateJson {
  readonly valid: boolean;
  readonly errors: number;
  readonly files: readonly { nodes: number; edges: number; diagnostics: { severity: string }[] }[];
}

describe('§11.13 Integration Smoke Test', () => {
  it('End-to-end test with a real LLM callback [plan -> implement -> review -> done through the built attractor CLI and the AI-SDK backend; the LLM is a scripted OpenAI-compatible server on 127.0.0.1]', async () => {
    const root = tempDir();
    const workdir = join(root, 'work');
    const logsRoot = join(root, 'run');
    mkdirSync(workdir);
    server = await startScriptedOpenAIServer({
      apiKey: API_KEY,
      script: [
        // plan
        { type: 'text', text: 'Plan: write hello.py that prints Hello World, then check it.' },
        // implement: a real tool call into the working directory, then the answer
        {
          type: 'tool-calls',
          calls: [
            { name: 'write_file', arguments: { file_path: 'hello.py', content: 'print("Hello World")\n' } },
          ],
        },
        { type: 'text', text: 'Wrote hello.py.' },
        // review: reads the file back
        { type: 'tool-calls', calls: [{ name: 'read_file', arguments: { file_path: 'hello.py' } }] },
        { type: 'text', text: 'The code is correct.' },
      ],
    });

    // 1. Parse and 2. Validate: the goal, 5 nodes, 6 edges, no error-severity results.
    const validated = await runCli(['validate', '--json', fixture], { cwd: root });
    expect(validated.exitCode).toBe(0);
    const report = JSON.parse(String(validated.stdout)) as ValidateJson;
    expect(report.valid).toBe(true);
    expect(report.errors).toBe(0);
    expect(report.files[0]).toMatchObject({ nodes: 5, edges: 6 });
    expect(report.files[0]!.diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    expect(readFileSync(fixture, 'utf8')).toContain('graph [goal="Create a hello world Python script"]');

    // 3. Execute with the LLM callback.
    const run = await runCli(
      [
        'run',
        fixture,
        '--base-url',
        `${server.baseURL.replace(/\/$/, '')}`,
        '--model',
        'gpt-test',
        '--logs-dir',
        logsRoot,
        '--workdir',
        workdir,
        '--quiet',
      ],
      { cwd: root, env: { OPENAI_API_KEY: API_KEY } },
    );
    expect(run.stderr, String(run.stdout)).not.toMatch(/at .*\(.*:\d+:\d+\)/);
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(server.requests.length).toBe(5);
    expect(server.requests.every((request) => request.apiKey === API_KEY)).toBe(true);
    expect(server.requests[0]!.messages.map((message) => message.text).join('\n')).toContain(
      'Plan how to create a hello world script for: Create a hello world Python script',
    );

    // 4. Verify: success, implement completed, artifacts of every LLM stage.
    const events = readText(join(logsRoot, 'events.jsonl'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; nodeId?: string });
    expect(events.at(-1)).toMatchObject({ type: 'pipeline.completed' });
    expect(events.filter((event) => event.type === 'stage.completed').map((event) => event.nodeId)).toContain(
      'implement',
    );
    for (const node of ['plan', 'implement', 'review']) {
      for (const file of ['prompt.md', 'response.md', 'status.json']) {
        expect(statSync(join(logsRoot, node, file)).isFile(), `${node}/${file}`).toBe(true);
      }
    }
    expect(readText(join(logsRoot, 'review', 'response.md'))).toContain('The code is correct.');
    expect(readText(join(workdir, 'hello.py'))).toBe('print("Hello World")\n');

    // 5. Verify goal gate: implement's latest outcome is a success.
    expect(readJson(join(logsRoot, 'implement', 'status.json'))).toMatchObject({ outcome: 'success' });

    // 6. Verify checkpoint.
    const checkpoint = readJson<Checkpoint>(join(logsRoot, 'checkpoint.json'));
    expect(checkpoint.current_node).toBe('done');
    expect(checkpoint.node_outcomes.implement).toMatchObject({ status: 'success' });
    for (const node of ['plan', 'implement', 'review']) expect(checkpoint.completed_nodes).toContain(node);

    // The API key never reaches the run directory.
    for (const file of ['events.jsonl', 'checkpoint.json', 'manifest.json']) {
      expect(readText(join(logsRoot, file))).not.toContain(API_KEY);
    }
  });
});
