import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createColors } from '../colors.js';
import { createTtyDisplay } from './tty-display.js';

/** A terminal 100 columns wide and 30 rows high (or `size`) that records what is written, synchronously. */
function fakeTerminal(size = { columns: 100, rows: 30 }): {
  stream: NodeJS.WriteStream;
  text: () => string;
  raw: () => string;
} {
  let raw = '';
  const stream = Object.assign(new Writable(), {
    isTTY: true,
    columns: size.columns,
    rows: size.rows,
    write: (chunk: string | Uint8Array) => {
      raw += chunk.toString();
      return true;
    },
  });
  return {
    stream: stream as unknown as NodeJS.WriteStream,
    raw: () => raw,
    text: () => stripVTControlCharacters(raw),
  };
}

const base = { seq: 1, timestamp: '2026-01-01T00:00:00.000Z', runId: 'r' };
const started = (nodeId: string, branchPath?: string[]): PipelineEvent => ({
  ...base,
  type: 'stage.started',
  nodeId,
  index: 1,
  visit: 1,
  attempt: 1,
  label: nodeId.toUpperCase(),
  handlerType: 'codergen',
  ...(branchPath === undefined ? {} : { branchPath }),
});
const completed = (nodeId: string, branchPath?: string[]): PipelineEvent => ({
  ...base,
  type: 'stage.completed',
  nodeId,
  index: 1,
  visit: 1,
  attempt: 1,
  status: 'success',
  durationMs: 1500,
  ...(branchPath === undefined ? {} : { branchPath }),
});

describe('createTtyDisplay', () => {
  it('shows running stages with a spinner, nested under their branch, and persists completed ones', async () => {
    const terminal = fakeTerminal();
    let nowMs = 0;
    const display = createTtyDisplay({
      stdout: terminal.stream,
      colors: createColors(false),
      verbosity: 'normal',
      now: () => nowMs,
    });
    display.onEvent(started('checks'));
    display.onEvent(started('tests', ['checks/tests']));
    nowMs = 2500;
    display.onEvent({
      ...base,
      type: 'agent.usage',
      nodeId: 'tests',
      inputTokens: 900,
      outputTokens: 300,
      branchPath: ['checks/tests'],
    });
    expect(terminal.text()).toContain('⠋ checks CHECKS 2.5s');
    expect(terminal.text()).toContain('  ⠋ tests TESTS 2.5s · 1.2k tokens');
    display.onEvent(completed('tests', ['checks/tests']));
    expect(terminal.text()).toContain('  ✔ tests 1.5s · 1.2k tokens');
    display.finish({
      status: 'success',
      durationMs: 3000,
      logsRoot: 'runs/x',
      resumeCommand: 'attractor resume runs/x',
      completedNodes: ['checks'],
    });
    expect(terminal.text()).toContain('✔ Pipeline succeeded in 3s (1 stage)\n  run directory: runs/x');
  });

  it("names the item of a running foreach item's stage", () => {
    const terminal = fakeTerminal();
    const display = createTtyDisplay({
      stdout: terminal.stream,
      colors: createColors(false),
      verbosity: 'normal',
      now: () => 1200,
    });
    display.onEvent(started('check', ['items/0']));
    display.onEvent(started('check', ['items/1']));
    expect(terminal.text()).toContain('  ⠋ check [0] CHECK 0ms\n  ⠋ check [1] CHECK 0ms');
    display.onEvent(completed('check', ['items/1']));
    expect(terminal.text()).toContain('  ✔ check [1] 1.5s');
  });

  it('draws on a terminal that reports no size (0 × 0) as on an 80 × 24 one, not one character per line', () => {
    const terminal = fakeTerminal({ columns: 0, rows: 0 });
    const display = createTtyDisplay({
      stdout: terminal.stream,
      colors: createColors(false),
      verbosity: 'normal',
      now: () => 1200,
    });
    display.onEvent(started('implement'));
    expect(terminal.text()).toContain('⠋ implement IMPLEMENT 0ms\n');
    display.onEvent(completed('implement'));
    expect(terminal.text()).toContain('✔ implement 1.5s');
  });

  it('with -v shows the agent text as it streams and a model-call retry wait on the stage line', () => {
    const terminal = fakeTerminal();
    const display = createTtyDisplay({
      stdout: terminal.stream,
      colors: createColors(false),
      verbosity: 'verbose',
      now: () => 0,
    });
    display.onEvent(started('review'));
    display.onEvent({
      ...base,
      type: 'stage.custom',
      nodeId: 'review',
      name: 'llm.retry',
      data: { delayMs: 2000, statusCode: 429, attempt: 1, maxAttempts: 6 },
    });
    expect(terminal.text()).toContain('⠋ review REVIEW 0ms HTTP 429, retrying the model call in 2s');
    display.onEvent({ ...base, type: 'agent.text', nodeId: 'review', text: 'Looks ', delta: true });
    display.onEvent({ ...base, type: 'agent.text', nodeId: 'review', text: 'good so far', delta: true });
    expect(terminal.text().endsWith('\n  Looks good so far\n')).toBe(true);
  });

  it('clears the live area on pause and draws nothing until resume, so a question can be asked in place', () => {
    const terminal = fakeTerminal();
    const display = createTtyDisplay({
      stdout: terminal.stream,
      colors: createColors(false),
      verbosity: 'normal',
      now: () => 0,
    });
    display.onEvent(started('approve'));
    display.pause();
    const before = terminal.raw().length;
    display.onEvent(started('other'));
    expect(terminal.raw().length).toBe(before);
    display.resume();
    expect(stripVTControlCharacters(terminal.raw().slice(before))).toContain('⠋ other OTHER');
    display.finish({
      status: 'cancelled',
      durationMs: 10,
      logsRoot: 'runs/x',
      resumeCommand: 'attractor resume runs/x',
      completedNodes: [],
    });
    expect(terminal.text()).toContain('resume with:   attractor resume runs/x');
  });
});
