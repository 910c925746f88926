import type { PipelineEvent } from '@attractor/engine';
import { describe, expect, it } from 'vitest';
import { createColors } from '../colors.js';
import { formatFinish, noteShownReason } from './format-finish.js';

const colors = createColors(false);
const failed = (failureReason: string) => ({
  status: 'fail' as const,
  failureReason,
  durationMs: 464,
  logsRoot: 'run',
  resumeCommand: 'attractor resume run',
  completedNodes: ['start', 'write'],
});
const completed = (failureReason: string): PipelineEvent =>
  ({
    type: 'stage.completed',
    nodeId: 'write',
    index: 2,
    visit: 1,
    attempt: 1,
    status: 'fail',
    durationMs: 444,
    failureReason,
    seq: 3,
    timestamp: '2026-01-01T00:00:00.000Z',
    runId: 'run',
  }) as PipelineEvent;

describe('the final summary prints an error once', () => {
  it('refers to the reason a stage line showed whole, and keeps what the run adds to it', () => {
    const shown = new Set<string>();
    noteShownReason(shown, completed('Authentication failed (HTTP 401)'), true);
    expect(
      formatFinish(failed('node "write" failed: Authentication failed (HTTP 401)'), colors, shown),
    ).toContain('✖ Pipeline failed after 464ms: node "write" failed (reason above)');
    expect(formatFinish(failed('Authentication failed (HTTP 401)'), colors, shown)).toContain(
      'Pipeline failed after 464ms: (reason above)',
    );
  });

  it('prints the whole reason when no stage line showed it: -q, a line not printed, or a reason of several lines', () => {
    const reason = 'node "write" failed: Authentication failed (HTTP 401)';
    expect(formatFinish(failed(reason), colors)).toContain(`Pipeline failed after 464ms: ${reason}`);
    const notPrinted = new Set<string>();
    noteShownReason(notPrinted, completed('Authentication failed (HTTP 401)'), false);
    expect(formatFinish(failed(reason), colors, notPrinted)).toContain(reason);
    const long = new Set<string>();
    noteShownReason(long, completed('first line\nsecond line'), true);
    expect(formatFinish(failed('node "write" failed: first line\nsecond line'), colors, long)).toContain(
      'node "write" failed: first line\nsecond line',
    );
  });
});
