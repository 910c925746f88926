import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunDetails } from '../src/index.js';
import { startTestServer, type TestServer, waitFor } from './test-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TYPED = `digraph Typed {
  graph [inputs="repo: string, issue: integer", outputs="input.repo, input.issue, missing"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  start -> exit
}`;

describe('POST /pipelines with inputs (README "Typed data")', () => {
  it('refuses mistyped inputs with 400 INVALID_INPUTS naming field, type and value, and makes no run', async () => {
    server = await startTestServer();
    const response = await server.call('/pipelines', {
      method: 'POST',
      json: { dot: TYPED, inputs: { repo: 'acme/api', issue: 'forty-two' } },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        code: 'INVALID_INPUTS',
        message:
          'The inputs of graph "Typed" do not match its declaration (inputs="repo: string, issue: integer"):\n  - input "issue" must be an integer, got "forty-two"\nSend them as "inputs": {"<name>": <value>, ...} in the request body.',
        problems: [
          {
            field: 'issue',
            expected: 'an integer',
            value: 'forty-two',
            message: 'must be an integer, got "forty-two"',
          },
        ],
      },
    });
    expect(readdirSync(server.runsDir)).toEqual([]);
  });

  it('runs with valid inputs and returns the output in the run details', async () => {
    server = await startTestServer();
    const id = await server.startRun(TYPED, { inputs: { repo: 'acme/api', issue: 42 } });
    const details = await waitFor(async () => {
      const body = await server?.json<RunDetails>(`/pipelines/${id}`);
      return body?.state === 'success' ? body : undefined;
    }, `run ${id} to succeed`);
    expect(details.output).toEqual({ 'input.repo': 'acme/api', 'input.issue': 42 });
  });
});
