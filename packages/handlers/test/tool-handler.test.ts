import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { delay, readText, runDot, tempDir, waitUntilDead } from './helpers.js';

function toolPipeline(command: string, attributes = ''): string {
  return `digraph G {
    start [shape=Mdiamond]
    exit [shape=Msquare]
    run [shape=parallelogram, tool_command=${JSON.stringify(command)}${attributes}]
    start -> run -> exit
  }`;
}

describe('tool handler (spec §4.10, §11.6, DESIGN.md "Tool nodes")', () => {
  it('executes the command in the working directory with the ATTRACTOR_* env and records its output', async () => {
    const workdir = tempDir();
    const command =
      'pwd; echo "$ATTRACTOR_NODE_ID $ATTRACTOR_RUN_ID"; echo "$ATTRACTOR_STAGE_DIR"; echo "$ATTRACTOR_LOGS_ROOT"; echo warn >&2';
    const { result, logsRoot } = await runDot(toolPipeline(command), { workdir });
    expect(result.status).toBe('success');
    const lines = readText(join(logsRoot, 'run', 'stdout.txt')).split('\n');
    expect(lines).toEqual([
      workdir,
      `run ${result.logsRoot.split('/').pop()}`,
      join(logsRoot, 'run'),
      logsRoot,
      '',
    ]);
    expect(readText(join(logsRoot, 'run', 'stderr.txt'))).toBe('warn\n');
    expect(result.context.get('tool.exit_code')).toBe(0);
    expect(result.context.get('tool.output')).toBe(lines.join('\n'));
    expect(result.context.get('tool.stderr')).toBe('warn\n');
    expect(result.nodeOutcomes.run?.notes).toBe(`Tool completed: ${command}`);
  });

  it('fails with the exit code and the stderr tail on a non-zero exit', async () => {
    const { result } = await runDot(toolPipeline('echo partial; echo "compile error in x.ts" >&2; exit 3'));
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.run).toMatchObject({
      status: 'fail',
      failureReason: 'command exited with code 3: compile error in x.ts',
    });
    expect(result.context.get('tool.exit_code')).toBe(3);
    expect(result.context.get('tool.output')).toBe('partial\n');
  });

  it('routes on tool.exit_code in conditions', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      run [shape=parallelogram, tool_command="exit 2"]
      check [shape=diamond]
      ok [shape=parallelogram, tool_command="true"]
      broken [shape=parallelogram, tool_command="true"]
      start -> run
      run -> check [condition="outcome=fail"]
      run -> exit [condition="outcome=success"]
      check -> ok [condition="context.tool.exit_code=0"]
      check -> broken [condition="context.tool.exit_code!=0"]
      ok -> exit
      broken -> exit
    }`;
    const { result } = await runDot(source);
    expect(result.completedNodes).toEqual(['start', 'run', 'check', 'broken', 'exit']);
  });

  it('lets a status.json written in $ATTRACTOR_STAGE_DIR override the outcome', async () => {
    const command = `echo '{"outcome":"flaky","notes":"3 of 40 tests flaky","context_updates":{"tests.flaky":3}}' > "$ATTRACTOR_STAGE_DIR/status.json"; exit 1`;
    const { result } = await runDot(toolPipeline(command));
    expect(result.nodeOutcomes.run).toMatchObject({ status: 'flaky', notes: '3 of 40 tests flaky' });
    expect(result.context.get('tests.flaky')).toBe(3);
    expect(result.context.get('tool.exit_code')).toBe(1);
  });

  it('keeps stdout in full in stdout.txt and truncates tool.output with a marker', async () => {
    const { result, logsRoot } = await runDot(
      toolPipeline(`node -e "process.stdout.write('y'.repeat(30000))"`),
    );
    expect(readText(join(logsRoot, 'run', 'stdout.txt'))).toHaveLength(30_000);
    const output = result.context.get('tool.output') as string;
    expect(output.startsWith('y'.repeat(10_240))).toBe(true);
    expect(output.endsWith('[... truncated 19760 of 30000 characters]')).toBe(true);
  });

  it('kills the whole process group, grandchild included, on the node timeout', async () => {
    const workdir = tempDir();
    const command = 'sleep 30 & echo $! > grandchild.pid; echo started; wait';
    const startedMs = Date.now();
    const { result } = await runDot(toolPipeline(command, ', timeout="1500ms"'), { workdir });
    expect(Date.now() - startedMs).toBeLessThan(10_000);
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.run?.failureReason).toBe('timeout after 1.5s');
    const pid = Number(readText(join(workdir, 'grandchild.pid')));
    expect(await waitUntilDead(pid, 3000)).toBe(true);
  });

  it('kills the process group when the run is cancelled', async () => {
    const workdir = tempDir();
    const controller = new AbortController();
    const running = runDot(toolPipeline('sleep 30 & echo $! > grandchild.pid; wait'), {
      workdir,
      abortSignal: controller.signal,
    });
    for (let waited = 0; waited < 5000 && !existsSync(join(workdir, 'grandchild.pid')); waited += 20)
      await delay(20);
    await delay(50);
    controller.abort(new Error('user pressed Ctrl-C'));
    const { result } = await running;
    expect(result.status).toBe('cancelled');
    const pid = Number(readText(join(workdir, 'grandchild.pid')));
    expect(await waitUntilDead(pid, 3000)).toBe(true);
  });

  it('records the command without running it in dry-run mode', async () => {
    const workdir = tempDir();
    const { result, logsRoot, events } = await runDot(toolPipeline('touch ran.marker'), {
      workdir,
      registry: createDefaultRegistry({ dryRun: true }),
    });
    expect(result.status).toBe('success');
    expect(existsSync(join(workdir, 'ran.marker'))).toBe(false);
    expect(readText(join(logsRoot, 'run', 'command.sh'))).toBe('#!/bin/sh\ntouch ran.marker\n');
    expect(result.nodeOutcomes.run?.notes).toContain('Dry run: command not executed');
    expect(
      events.some(
        (event) => event.type === 'stage.log' && event.message === 'dry run: would run touch ran.marker',
      ),
    ).toBe(true);
  });

  it('starts commands from the given env plus the ATTRACTOR_* variables, and inherits this process env by default', async () => {
    const command = 'echo "[$ONLY_HERE] [$ATTRACTOR_NODE_ID] [$ATTRACTOR_TEST_INHERITED]"';
    process.env.ATTRACTOR_TEST_INHERITED = 'inherited';
    try {
      // An explicit env replaces this process's environment.
      const injected = await runDot(toolPipeline(command), {
        registry: createDefaultRegistry({ tool: { env: { ONLY_HERE: 'yes' } } }),
      });
      expect(injected.result.context.get('tool.output')).toBe('[yes] [run] []\n');
      const inherited = await runDot(toolPipeline(command));
      expect(inherited.result.context.get('tool.output')).toBe('[] [run] [inherited]\n');
    } finally {
      delete process.env.ATTRACTOR_TEST_INHERITED;
    }
  });

  it('decodes multi-byte UTF-8 output split across pipe chunks', async () => {
    // 70,000 three-byte characters: the pipe delivers them in chunks that split characters.
    const script = "process.stdout.write('€'.repeat(70000)); process.stderr.write('ü'.repeat(3000))";
    const { result, logsRoot } = await runDot(toolPipeline(`node -e "${script}"`));
    expect(readText(join(logsRoot, 'run', 'stdout.txt'))).toBe('€'.repeat(70_000));
    expect(readText(join(logsRoot, 'run', 'stderr.txt'))).toBe('ü'.repeat(3000));
    expect((result.context.get('tool.output') as string).startsWith('€'.repeat(10_240))).toBe(true);
    expect(result.context.get('tool.stderr')).toBe(
      `[... 952 earlier characters truncated]\n${'ü'.repeat(2048)}`,
    );
  });

  it('reports a command killed by a signal with the signal name', async () => {
    const { result } = await runDot(toolPipeline('kill -TERM $$'));
    expect(result.nodeOutcomes.run).toMatchObject({
      status: 'fail',
      failureReason: 'command was killed by SIGTERM',
    });
    expect(result.context.get('tool.exit_code')).toBe(null);
  });

  it('fails with a clear reason when the working directory does not exist', async () => {
    const workdir = join(tempDir(), 'missing');
    const { result } = await runDot(toolPipeline('echo hi'), { workdir });
    expect(result.nodeOutcomes.run?.status).toBe('fail');
    expect(result.nodeOutcomes.run?.failureReason).toContain(`command could not be started in ${workdir}`);
  });
});
