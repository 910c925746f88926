import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CodergenBackend } from '@attractor/engine';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createQueueInterviewer } from '../src/interviewers/queue-interviewer.js';
import { createSimulationBackend } from '../src/simulation-backend.js';
import { delay, graphFrom, readText, runDot, tempDir, writeDot } from './helpers.js';

const parent = (attributes: string) => `digraph Parent {
  graph [goal="supervise the sprint"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  supervise [shape=house, stack.child_dotfile="child.dot", manager.poll_interval="20ms"${attributes}]
  after [prompt="after"]
  start -> supervise
  supervise -> after [condition="outcome=success"]
  supervise -> exit [condition="outcome=fail"]
  after -> exit
}`;

function setUp(child: string, attributes = '') {
  const dir = tempDir();
  writeDot(dir, 'child.dot', child);
  const parentPath = writeDot(dir, 'parent.dot', parent(attributes));
  return { dir, graph: graphFrom(readText(parentPath), parentPath) };
}

const simpleChild = `digraph Child {
  graph [goal="child goal"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  implement [prompt="implement"]
  start -> implement -> exit
}`;

describe('stack.manager_loop handler (spec §4.11)', () => {
  it('runs the child file (relative to the parent file) to completion in its own run directory', async () => {
    const { graph } = setUp(simpleChild);
    const { result, logsRoot, events } = await runDot(graph, { backend: createSimulationBackend() });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'supervise', 'after', 'exit']);
    expect(result.context.get('stack.child.status')).toBe('completed');
    expect(result.context.get('stack.child.outcome')).toBe('success');
    expect(result.context.get('stack.child.completed_nodes')).toEqual(['start', 'implement', 'exit']);
    expect(result.nodeOutcomes.supervise?.notes).toMatch(/^Child .*child\.dot completed$/);
    expect(existsSync(join(logsRoot, 'supervise', 'child', 'implement', 'response.md'))).toBe(true);
    const childEvent = events.find(
      (event) => event.type === 'stage.completed' && event.nodeId === 'implement',
    );
    expect(childEvent?.branchPath).toEqual(['child:supervise']);
  });

  it("lets a child run to completion inside one cycle, with Amplifier's unprefixed attributes (issue 19)", async () => {
    const dir = tempDir();
    writeDot(dir, 'child.dot', simpleChild);
    const parentPath = writeDot(
      dir,
      'parent.dot',
      `digraph Parent {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  supervise [shape=house, stack.child_dotfile="child.dot", max_cycles=1, wait_ms=60000]
  start -> supervise -> exit
}`,
    );
    // On a clock that never advances by itself: the one cycle's 60 s wait can only end with the child.
    const { result } = await runDot(graphFrom(readText(parentPath), parentPath), {
      backend: createSimulationBackend(),
      clock: createTestClock({ autoAdvance: false }),
    });
    expect(result.status).toBe('success');
    expect(result.context.get('stack.child.outcome')).toBe('success');
    expect(result.context.get('stack.child.cycles')).toBe(1);
  });

  it('stops on its stop condition and cancels the child', async () => {
    const child = `digraph Child {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      wait [shape=parallelogram, tool_command="sleep 600"]
      start -> wait -> exit
    }`;
    const { graph } = setUp(child, ', manager.stop_condition="context.stack.child.current_node=wait"');
    // The child's stage never ends by itself: the run ends because the stop condition cancelled it.
    const { result } = await runDot(graph, { backend: createSimulationBackend() });
    expect(result.nodeOutcomes.supervise).toMatchObject({
      status: 'success',
      notes: 'Stop condition satisfied: context.stack.child.current_node=wait',
    });
    expect(result.context.get('stack.child.current_node')).toBe('wait');
    expect(result.completedNodes).toEqual(['start', 'supervise', 'after', 'exit']);
  });

  it('fails after manager.max_cycles', async () => {
    const child = `digraph Child {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      wait [shape=parallelogram, tool_command="sleep 30"]
      start -> wait -> exit
    }`;
    const { graph } = setUp(child, ', manager.max_cycles=3');
    const { result } = await runDot(graph);
    expect(result.nodeOutcomes.supervise).toMatchObject({
      status: 'fail',
      failureReason: 'Max cycles exceeded: the child was still running after manager.max_cycles=3 cycles',
    });
    expect(result.context.get('stack.child.cycles')).toBe(3);
    expect(result.completedNodes).toEqual(['start', 'supervise', 'exit']);
  });

  it('fails with the child failure reason when the child fails', async () => {
    const child = `digraph Child {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      test [shape=parallelogram, tool_command="echo red >&2; exit 1"]
      start -> test -> exit
    }`;
    const { graph } = setUp(child);
    const { result } = await runDot(graph);
    expect(result.nodeOutcomes.supervise?.status).toBe('fail');
    expect(result.nodeOutcomes.supervise?.failureReason).toMatch(
      /failed: node "test" failed: command exited with code 1: red$/,
    );
    expect(result.context.get('stack.child.status')).toBe('failed');
  });

  it('passes the parent interviewer to the child: a human gate inside the child works', async () => {
    const child = `digraph Child {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      gate [shape=hexagon, label="Which way?"]
      left [prompt="left"]
      right [prompt="right"]
      start -> gate
      gate -> left [label="[L] Left"]
      gate -> right [label="[R] Right"]
      left -> exit
      right -> exit
    }`;
    const { graph } = setUp(child);
    const { result, events } = await runDot(graph, {
      backend: createSimulationBackend(),
      interviewer: createQueueInterviewer({ answers: ['R'] }),
    });
    expect(result.status).toBe('success');
    expect(result.context.get('stack.child.completed_nodes')).toEqual(['start', 'gate', 'right', 'exit']);
    const interview = events.find((event) => event.type === 'interview.completed');
    expect(interview).toMatchObject({ answer: { value: 'R' }, branchPath: ['child:supervise'] });
  });

  it('steers the running child stage through {stageDir}/steer/, where codergen picks it up', async () => {
    const backend: CodergenBackend = {
      async run(request) {
        if (request.node.id !== 'implement') return 'ok';
        for (let waited = 0; waited < 5000; waited += 10) {
          const messages = await request.takeSteering();
          if (messages.length > 0) return `steered: ${messages.join(' | ')}`;
          await delay(10);
        }
        return 'never steered';
      },
    };
    const { graph } = setUp(
      simpleChild,
      ', manager.actions="observe,steer,wait", prompt="Focus on tests for $goal"',
    );
    const { result, logsRoot } = await runDot(graph, { backend });
    expect(result.status).toBe('success');
    expect(readText(join(logsRoot, 'supervise', 'child', 'implement', 'response.md'))).toBe(
      'steered: Focus on tests for supervise the sprint',
    );
  });

  it('fails naming the path when the child file does not exist', async () => {
    const dir = tempDir();
    const parentPath = writeDot(dir, 'parent.dot', parent('').replace('child.dot', 'missing.dot'));
    const { result } = await runDot(graphFrom(readText(parentPath), parentPath));
    expect(result.nodeOutcomes.supervise?.failureReason).toBe(
      `child pipeline ${join(dir, 'missing.dot')} cannot be read (no such file); check stack.child_dotfile, which is relative to the parent DOT file`,
    );
  });
});
