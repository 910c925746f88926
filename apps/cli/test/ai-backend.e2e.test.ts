/**
 * The CLI with the AI-SDK backend against a scripted OpenAI-compatible server on 127.0.0.1 (the only fake: the LLM).
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../src/inspect/summarize-run.js';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const KEY = 'sk-test-4f1b9c0d2e7a';
const PIPELINE = `digraph Agent {
  graph [goal="Leave a note"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  write [label="Write", prompt="Create notes.txt saying hello"]
  start -> write -> exit
}
`;

/** Every file under `directory`, recursively, with its text. */
async function readTree(directory: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of await readdir(directory, { recursive: true })) {
    const path = join(directory, name);
    if ((await stat(path)).isFile()) files.set(path, await readFile(path, 'utf8'));
  }
  return files;
}

describe('attractor run with the AI-SDK backend (--base-url, OPENAI_API_KEY)', () => {
  it('runs an agent stage over real HTTP: tool call writes into the workdir, tokens reach inspect, the key is never logged', async () => {
    const server = await startScriptedOpenAIServer({
      apiKey: KEY,
      script: [
        {
          type: 'tool-calls',
          calls: [{ name: 'write_file', arguments: { file_path: 'notes.txt', content: 'hello\n' } }],
          usage: { inputTokens: 120, outputTokens: 30 },
        },
        { type: 'text', text: 'Wrote notes.txt.', usage: { inputTokens: 160, outputTokens: 8 } },
      ],
    });
    try {
      const cwd = await temporaryDirectory();
      const workdir = await temporaryDirectory();
      await writeFile(join(cwd, 'agent.dot'), PIPELINE);
      const result = await attractor(
        [
          'run',
          'agent.dot',
          '--base-url',
          server.baseURL,
          '--model',
          'gpt-test',
          '--workdir',
          workdir,
          '--logs-dir',
          'run',
        ],
        { cwd, env: { OPENAI_API_KEY: KEY } },
      );
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(await readFile(join(workdir, 'notes.txt'), 'utf8')).toBe('hello\n');
      expect(server.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(2);

      const summary = JSON.parse(
        (await attractor(['inspect', 'run', '--json'], { cwd })).stdout,
      ) as RunSummary;
      expect(summary.route).toEqual(['start', 'write', 'exit']);
      const write = summary.stages.find((stage) => stage.nodeId === 'write');
      expect(write?.inputTokens).toBe(280);
      expect(write?.outputTokens).toBe(38);

      for (const [path, text] of await readTree(join(cwd, 'run'))) expect(text, path).not.toContain(KEY);
      expect(result.stdout).not.toContain(KEY);
    } finally {
      await server.close();
    }
  });

  it('a rejected key fails the stage with a message that names OPENAI_API_KEY (exit 1)', async () => {
    const server = await startScriptedOpenAIServer({ apiKey: KEY, script: [] });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(join(cwd, 'agent.dot'), PIPELINE);
      const result = await attractor(
        ['run', 'agent.dot', '--base-url', server.baseURL, '--model', 'gpt-test'],
        {
          cwd,
          env: { OPENAI_API_KEY: 'sk-wrong' },
        },
      );
      expect(result.exitCode).toBe(1);
      // The stage line says why, once; the summary refers to it.
      expect(result.stdout).toMatch(/^✖ write fail .*OPENAI_API_KEY/m);
      expect(result.stdout).toMatch(/^✖ Pipeline failed after \S+: node "write" failed \(reason above\)$/m);
    } finally {
      await server.close();
    }
  });
});
