import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodergenBackend, CodergenRequest } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { graphFrom, runDot, tempDir } from './helpers.js';

/** A backend that answers each call with the next reply and records the requests. */
function scriptedBackend(replies: readonly string[]): CodergenBackend & { requests: CodergenRequest[] } {
  const requests: CodergenRequest[] = [];
  return {
    requests,
    async run(request) {
      requests.push(request);
      return replies[requests.length - 1] ?? '';
    },
  };
}

function review(attributes: string): string {
  return `digraph R {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  review [prompt="Review", max_retries=1, ${attributes}]
  start -> review -> exit
}`;
}

describe('output_schema on an LLM stage (README "Typed data")', () => {
  it('fails an invalid reply retryably with every problem, then commits the valid one under the node id', async () => {
    const backend = scriptedBackend([
      '{"verdict": 3}',
      '```json\n{"verdict": "approve", "issues": ["typo"]}\n```',
    ]);
    const failures: string[] = [];
    const { result } = await runDot(review('output_schema="verdict: string, issues?: string[]"'), {
      registry: createDefaultRegistry({ backend }),
      onEvent: (event) => {
        if (event.type === 'stage.failed') failures.push(event.error);
      },
    });
    expect(result.status).toBe('success');
    expect(backend.requests.map((request) => request.outputSchema)).toEqual([
      {
        type: 'object',
        properties: { verdict: { type: 'string' }, issues: { type: 'array', items: { type: 'string' } } },
        required: ['verdict'],
        additionalProperties: true,
      },
      expect.anything(),
    ]);
    expect(result.context.get('review.verdict')).toBe('approve');
    expect(result.context.get('review.issues')).toEqual(['typo']);
    expect(result.nodeOutcomes.review?.status).toBe('success');
    expect(failures).toEqual([
      'the structured output of "review" (the reply, response.md) does not match its output_schema: "verdict" must be a string, got 3',
    ]);
  });

  it('maps fields by out_map, and never commits part of an invalid reply', async () => {
    const valid = scriptedBackend(['{"verdict": "reject", "score": 2}']);
    const mapped = await runDot(
      review(
        'output_schema="verdict: string, score: number", out_map="verdict -> verdict, score -> scores.review"',
      ),
      { registry: createDefaultRegistry({ backend: valid }) },
    );
    expect(mapped.result.context.get('verdict')).toBe('reject');
    expect(mapped.result.context.get('scores.review')).toBe(2);
    expect(mapped.result.context.has('review.verdict')).toBe(false);

    const invalid = scriptedBackend(['{"verdict": "approve", "score": "high"}', 'not json']);
    const { result } = await runDot(review('output_schema="verdict: string, score: number"'), {
      registry: createDefaultRegistry({ backend: invalid }),
    });
    expect(result.status).toBe('fail');
    expect(result.failureReason).toContain(
      'the structured output of "review" (the reply, response.md) is not JSON',
    );
    expect(result.context.has('review.verdict')).toBe(false);
  });

  it('warns, in a stage.log event and the notes, about an out_map field the valid output does not have', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'summary.json'), JSON.stringify({ type: 'object' }));
    const backend = scriptedBackend(['{"summary": "short"}']);
    const graph = graphFrom(
      review('output_schema="summary.json", out_map="sumary -> summary, summary -> text"'),
      join(dir, 'r.dot'),
    );
    const { result, events } = await runDot(graph, { registry: createDefaultRegistry({ backend }) });
    expect(result.status).toBe('success');
    expect(result.context.get('text')).toBe('short');
    expect(result.context.has('summary')).toBe(false);
    const warning =
      'out_map of "review": the output has no field "sumary", so "summary" is not set (the output has "summary")';
    expect(result.nodeOutcomes.review?.notes).toContain(warning);
    expect(
      events.flatMap((event) =>
        event.type === 'stage.log' && event.level === 'warn' ? [event.message] : [],
      ),
    ).toEqual([warning]);
  });

  it('reads a schema file relative to the DOT file, and names the file when it is missing', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'verdict.json'),
      JSON.stringify({
        type: 'object',
        properties: { verdict: { enum: ['approve', 'reject'] } },
        required: ['verdict'],
      }),
    );
    const backend = scriptedBackend(['{"verdict": "maybe"}', '{"verdict": "approve"}']);
    const graph = graphFrom(review('output_schema="verdict.json"'), join(dir, 'r.dot'));
    const { result, events } = await runDot(graph, { registry: createDefaultRegistry({ backend }) });
    expect(result.status).toBe('success');
    expect(result.context.get('review.verdict')).toBe('approve');
    const failed = events.find((event) => event.type === 'stage.failed');
    expect(failed?.type === 'stage.failed' && failed.error).toContain(
      '"verdict" must be one of approve, reject, got "maybe"',
    );

    const missing = graphFrom(review('output_schema="nowhere.json"'), join(dir, 'm.dot'));
    const refused = await runDot(missing, {
      registry: createDefaultRegistry({ backend: scriptedBackend(['{}']) }),
    });
    expect(refused.result.failureReason).toContain(`cannot read ${join(dir, 'nowhere.json')}`);
  });
});

describe('output_schema on a tool stage', () => {
  it('checks that stdout is JSON of the schema and maps it', async () => {
    const pipeline = (command: string) => `digraph T {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  scan [shape=parallelogram, tool_command=${JSON.stringify(command)}, output_schema="files: string[]"]
  start -> scan -> exit
}`;
    const ok = await runDot(pipeline(`echo '{"files": ["a.ts", "b.ts"]}'`), { workdir: tempDir() });
    expect(ok.result.status).toBe('success');
    expect(ok.result.context.get('scan.files')).toEqual(['a.ts', 'b.ts']);
    const bad = await runDot(pipeline(`echo '{"files": "a.ts"}'`), { workdir: tempDir() });
    expect(bad.result.status).toBe('fail');
    expect(bad.result.failureReason).toContain(
      'the structured output of "scan" (stdout) does not match its output_schema: "files" must be a list, got "a.ts"',
    );
    expect(bad.result.context.has('scan.files')).toBe(false);
  });
});
