/**
 * A model call that fails (nothing listening at the base URL, a key the server refuses) ends the stage with our
 * one message: `run` and `serve` print no stack trace, no request dump of the provider client and no prompt. The
 * real `@ai-sdk/openai` client talks to 127.0.0.1 (a closed port, or the scripted OpenAI-compatible server).
 */
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it } from 'vitest';
import { attractor, runOnServer, temporaryDirectory } from './helpers/cli.js';

const PROMPT = 'Summarise the quarterly numbers of Zanzibar Widgets';
const PIPELINE = `digraph Report {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  write [prompt="${PROMPT}"]
  start -> write -> exit
}
`;

/** A port on 127.0.0.1 with nothing listening (bound once, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Asserts that `output` holds no stack frame, no provider request dump and not the prompt. */
function expectNoDump(output: string): void {
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain('APICallError');
  expect(output).not.toContain('requestBodyValues');
  expect(output).not.toContain(PROMPT);
}

describe('a failed model call prints our message only (no stack trace, no request dump)', () => {
  it('run against a base URL where nothing listens: the retries, then "Could not reach" and exit 1', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(join(cwd, 'report.dot'), PIPELINE);
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;

    const result = await attractor(
      ['run', 'report.dot', '--model', 'llama3', '--base-url', baseURL, '-q', '--logs-dir', 'run'],
      { cwd, env: { OPENAI_API_KEY: 'sk-test123456' }, timeout: 120_000 },
    );

    expect(result.exitCode).toBe(1);
    const output = `${result.stdout}\n${result.stderr}`;
    expect(output).toContain(
      `node "write" failed: Could not reach openai model "llama3" at ${baseURL}: Cannot connect to API:`,
    );
    expect(output).toContain(
      'Check that the server is running and the base URL (--base-url / OPENAI_BASE_URL) is right.',
    );
    expectNoDump(result.stderr);
    expectNoDump(result.stdout);
  }, 120_000);

  it('run with a key the server refuses: the 401 message and exit 1', async () => {
    const server = await startScriptedOpenAIServer({ apiKey: 'sk-right-key-123' });
    try {
      const cwd = await temporaryDirectory();
      await writeFile(join(cwd, 'report.dot'), PIPELINE);

      const result = await attractor(
        ['run', 'report.dot', '--model', 'gpt-test', '--base-url', server.baseURL, '--logs-dir', 'run'],
        { cwd, env: { OPENAI_API_KEY: 'sk-wrong-key-456' } },
      );

      expect(result.exitCode).toBe(1);
      // Once, on the stage's line; the summary refers to it.
      expect(result.stdout).toContain(`✖ write fail `);
      expect(result.stdout).toContain(
        `— Authentication failed (HTTP 401) calling openai model "gpt-test" at ${server.baseURL}:`,
      );
      expect(result.stdout).toMatch(/^✖ Pipeline failed after \S+: node "write" failed \(reason above\)$/m);
      expectNoDump(result.stderr);
      expectNoDump(result.stdout);
    } finally {
      await server.close();
    }
  });

  it('serve: a run whose model refuses the key fails, and the server console shows no dump', async () => {
    const server = await startScriptedOpenAIServer({ apiKey: 'sk-right-key-123' });
    const cwd = await temporaryDirectory();
    const child = attractor(['serve', '--port', '0', '--model', 'gpt-test', '--base-url', server.baseURL], {
      cwd,
      env: { OPENAI_API_KEY: 'sk-wrong-key-456' },
    });
    try {
      expect(await runOnServer(child, PIPELINE)).toBe('fail');
      expect(server.requests.length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGTERM');
      await server.close();
    }
    const result = await child;
    expect(result.exitCode).toBe(0);
    expectNoDump(result.stderr);
    expectNoDump(result.stdout);
  }, 120_000);
});
