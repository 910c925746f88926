import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { isAlive, readText, runDot, tempDir } from './helpers.js';

function toolPipeline(command: string, attributes = ''): string {
  return `digraph G {
    start [shape=Mdiamond]
    exit [shape=Msquare]
    run [shape=parallelogram, tool_command=${JSON.stringify(command)}${attributes}]
    start -> run -> exit
  }`;
}

describe('tool stages end their process group (docs/architecture.md "Tool nodes", issue 20 §4)', () => {
  it('ends a background child the command left running when the stage ends', async () => {
    const workdir = tempDir();
    const { result } = await runDot(
      toolPipeline('sleep 60 >/dev/null 2>&1 & echo $! > bg.pid; echo started'),
      { workdir, registry: createDefaultRegistry({ tool: { killGraceMs: 500 } }) },
    );
    expect(result.status).toBe('success');
    const pid = Number(readText(join(workdir, 'bg.pid')).trim());
    expect(pid).toBeGreaterThan(1);
    // Ended before the run returned, not some time later.
    expect(isAlive(pid)).toBe(false);
  });

  it('lists the running group in process-groups.json with the runner pid, and removes it afterwards', async () => {
    const workdir = tempDir();
    const { result, logsRoot } = await runDot(
      // The runner records the group just after the spawn: give it a moment before looking.
      toolPipeline(
        'f="$ATTRACTOR_LOGS_ROOT/process-groups.json"; for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$f" ] && break; sleep 0.1; done; cat "$f" > seen.json; echo $$ > shell.pid',
      ),
      { workdir },
    );
    expect(result.status).toBe('success');
    const seen = JSON.parse(readText(join(workdir, 'seen.json'))) as { runner_pid: number; groups: number[] };
    expect(seen.runner_pid).toBe(process.pid);
    // The shell leads its own group.
    expect(seen.groups).toEqual([Number(readText(join(workdir, 'shell.pid')).trim())]);
    expect(existsSync(join(logsRoot, 'process-groups.json'))).toBe(false);
  });
});

describe('tool output cap (docs/architecture.md "Tool nodes", issue 20 §6)', () => {
  it('keeps draining past tool_output_max_bytes, so the command finishes, and records the truncation', async () => {
    const workdir = tempDir();
    // 20,000 lines of 11 bytes; a closed pipe would kill the loop with SIGPIPE before "finished".
    const command =
      'i=0; while [ $i -lt 20000 ]; do echo line-$i-xyz; i=$((i+1)); done; echo finished > done.txt';
    const { result, events, logsRoot } = await runDot(toolPipeline(command, ', tool_output_max_bytes=1000'), {
      workdir,
    });
    expect(result.status).toBe('success');
    expect(readText(join(workdir, 'done.txt'))).toBe('finished\n');
    expect(statSync(join(logsRoot, 'run', 'stdout.txt')).size).toBe(1000);
    const warning = events.find((event) => event.type === 'stage.log' && event.level === 'warn');
    expect(warning).toMatchObject({
      nodeId: 'run',
      message: expect.stringMatching(
        /^output truncated at tool_output_max_bytes=1000: stdout \(\d+ more bytes dropped\)$/,
      ),
    });
    const status = JSON.parse(readFileSync(join(logsRoot, 'run', 'status.json'), 'utf8')) as {
      notes: string;
      context_updates: Record<string, unknown>;
    };
    expect(status.notes).toContain('output truncated at tool_output_max_bytes=1000');
    expect(status.context_updates['tool.output_truncated']).toBe(true);
  });

  it('stops a command that writes forever past the cap at its timeout', async () => {
    const { result } = await runDot(toolPipeline('yes', ', tool_output_max_bytes=4096, timeout="1s"'), {
      registry: createDefaultRegistry({ tool: { killGraceMs: 200 } }),
    });
    expect(result.nodeOutcomes.run?.status).toBe('fail');
    expect(result.nodeOutcomes.run?.failureReason).toContain('timeout');
  });
});
