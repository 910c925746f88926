import { join } from 'node:path';
import type { Question } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { createCallbackInterviewer } from '../src/interviewers/callback-interviewer.js';
import { createQueueInterviewer } from '../src/interviewers/queue-interviewer.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { readText, runDot, tempDir, waitUntilDead } from './helpers.js';

describe('createDefaultRegistry (spec §2.8, §4.2)', () => {
  it('registers every handler type of the shape table and subgraph, and defaults to codergen', () => {
    const registry = createDefaultRegistry();
    expect(registry.types().sort()).toEqual([
      'codergen',
      'conditional',
      'exit',
      'parallel',
      'parallel.fan_in',
      'stack.manager_loop',
      'start',
      'subgraph',
      'tool',
      'wait.human',
    ]);
    expect(registry.defaultHandler).toBe(registry.get('codergen'));
  });

  it('uses the interviewer override instead of the run interviewer', async () => {
    const asked: Question[] = [];
    const registry = createDefaultRegistry({
      backend: createSimulationBackend(),
      interviewer: createCallbackInterviewer({
        ask: (question) => {
          asked.push(question);
          return { value: 'B' };
        },
      }),
    });
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      gate [shape=hexagon]
      a [prompt="a"]
      b [prompt="b"]
      start -> gate
      gate -> a [label="[A] a"]
      gate -> b [label="[B] b"]
      a -> exit
      b -> exit
    }`;
    const { result } = await runDot(source, {
      registry,
      interviewer: createQueueInterviewer({ answers: ['A'] }),
    });
    expect(asked).toHaveLength(1);
    expect(result.completedNodes).toEqual(['start', 'gate', 'b', 'exit']);
  });

  it('first_success kills the process group of a losing tool branch', async () => {
    const workdir = tempDir();
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      fan [shape=component, join_policy=first_success]
      join [shape=tripleoctagon]
      slow [shape=parallelogram, tool_command="sleep 30 & echo $! > slow.pid; wait"]
      quick [shape=parallelogram, tool_command="while [ ! -f slow.pid ]; do sleep 0.05; done; echo quick"]
      start -> fan
      fan -> slow -> join
      fan -> quick -> join
      join -> exit
    }`;
    const startedMs = Date.now();
    const { result } = await runDot(source, { workdir });
    expect(Date.now() - startedMs).toBeLessThan(10_000);
    expect(result.status).toBe('success');
    expect(result.context.get('parallel.fan_in.best_id')).toBe('quick');
    const pid = Number(readText(join(workdir, 'slow.pid')));
    expect(await waitUntilDead(pid, 3000)).toBe(true);
  });
});
