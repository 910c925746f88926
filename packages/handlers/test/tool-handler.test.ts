import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestClock } from '@attractor/engine/test';
import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../src/create-default-registry.js';
import { TOOL_LIVE_OUTPUT_MAX_CHARS } from '../src/tool-handler.js';
import { readText, runDot, tempDir, waitForFile, waitUntilDead } from './helpers.js';

function toolPipeline(command: string, attributes = ''): string {
  return `digraph G {
    start [shape=Mdiamond]
    exit [shape=Msquare]
    run [shape=parallelogram, tool_command=${JSON.stringify(command)}${attributes}]
    start -> run -> exit
  }`;
}

describe('tool handler (spec §4.10, §11.6, docs/architecture.md "Tool nodes")', () => {
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

  it('appends to stdout.txt while the command runs, and starts it afresh on a retry', async () => {
    let seenWhileRunning: string | undefined;
    let checked = false;
    let logsRootSeen = '';
    const { result, logsRoot } = await runDot(
      toolPipeline(
        'echo first; sleep 1; echo second; test -f marker || { touch marker; exit 1; }',
        ', max_retries=1',
      ),
      {
        workdir: tempDir(),
        onEvent: (event) => {
          if (event.type === 'pipeline.started') logsRootSeen = event.logsRoot;
          if (event.type === 'stage.custom' && !checked) {
            checked = true;
            // The command sleeps 1 s after its first line: look at the file in the middle of that.
            setTimeout(() => {
              seenWhileRunning = readText(join(logsRootSeen, 'run', 'stdout.txt'));
            }, 400);
          }
        },
      },
    );
    expect(result.status).toBe('success');
    // The first line was in the file before the command printed the second.
    expect(seenWhileRunning).toBe('first\n');
    expect(readText(join(logsRoot, 'run', 'stdout.txt'))).toBe('first\nsecond\n');
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

  it('keeps a non-zero exit a FAIL with auto_status=true, and says why (spec Appendix C, issue 19 bug 9)', async () => {
    const { result } = await runDot(toolPipeline('exit 3', ', auto_status=true'));
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.run?.status).toBe('fail');
    expect(result.nodeOutcomes.run?.failureReason).toBe(
      'command exited with code 3 (auto_status=true does not override the exit code: it applies only when a handler reports no outcome, spec Appendix C; make the command exit 0, or write status.json in $ATTRACTOR_STAGE_DIR, to report success)',
    );
  });

  it('sets tool.last_line to the last non-empty line of stdout, for pipelines that route on it', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      run [shape=parallelogram, tool_command="printf 'building\\nVERDICT: PASS  \\n\\n'"]
      fixit [shape=parallelogram, tool_command="true"]
      start -> run
      run -> exit [condition="context.tool.last_line=\\"VERDICT: PASS\\""]
      run -> fixit [condition="context.tool.last_line!=\\"VERDICT: PASS\\""]
      fixit -> exit
    }`;
    const { result } = await runDot(source);
    expect(result.context.get('tool.last_line')).toBe('VERDICT: PASS');
    expect(result.completedNodes).toEqual(['start', 'run', 'exit']);
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
    const command = 'sleep 600 & echo $! > grandchild.pid; echo started; wait';
    // The node's timeout runs on the test's clock: it fires once the command runs, however slow its start.
    const clock = createTestClock({ autoAdvance: false });
    const running = runDot(toolPipeline(command, ', timeout="1500ms"'), { workdir, clock });
    await waitForFile(join(workdir, 'grandchild.pid'));
    await clock.advance(1500);
    const { result } = await running;
    expect(result.status).toBe('fail');
    expect(result.nodeOutcomes.run?.failureReason).toBe('timeout after 1.5s');
    const pid = Number(readText(join(workdir, 'grandchild.pid')));
    expect(await waitUntilDead(pid, 30_000)).toBe(true);
  });

  it('kills the process group when the run is cancelled', async () => {
    const workdir = tempDir();
    const controller = new AbortController();
    const running = runDot(toolPipeline('sleep 600 & echo $! > grandchild.pid; wait'), {
      workdir,
      abortSignal: controller.signal,
    });
    await waitForFile(join(workdir, 'grandchild.pid'));
    controller.abort(new Error('user pressed Ctrl-C'));
    const { result } = await running;
    expect(result.status).toBe('cancelled');
    const pid = Number(readText(join(workdir, 'grandchild.pid')));
    expect(await waitUntilDead(pid, 30_000)).toBe(true);
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

  it("also writes the 2389 tracker's tool_stdout / tool_stderr, without trailing whitespace", async () => {
    const { result } = await runDot(toolPipeline(`printf '  budget_ok \\n\\n'; echo 'disk full  ' >&2`));
    expect(result.context.get('tool.output')).toBe('  budget_ok \n\n');
    expect(result.context.get('tool_stdout')).toBe('  budget_ok');
    expect(result.context.get('tool.stderr')).toBe('disk full  \n');
    expect(result.context.get('tool_stderr')).toBe('disk full');
  });

  it('routes a pipeline written for the 2389 tracker on context.tool_stdout', async () => {
    // The shape of 2389-research/tracker kitchen-sink.dot: CheckExistingPlans prints resume or fresh.
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      check [shape=parallelogram, tool_command="if [ -f plan.md ]; then echo resume; else echo fresh; fi"]
      resume [shape=parallelogram, tool_command="echo resuming"]
      fresh [shape=parallelogram, tool_command="touch plan.md"]
      start -> check
      check -> resume [condition="context.tool_stdout=resume", weight=2]
      check -> fresh [condition="context.tool_stdout=fresh"]
      resume -> exit
      fresh -> check
    }`;
    const workdir = tempDir();
    const { result } = await runDot(source, { workdir });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'check', 'fresh', 'check', 'resume', 'exit']);
    expect(result.context.get('tool_stdout')).toBe('resuming');
  });

  it('gives a dry-run tool node the output its edges route on when an empty output routes nowhere', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      check [shape=parallelogram, tool_command="./check.sh"]
      resume [shape=parallelogram, tool_command="./resume.sh"]
      fresh [shape=parallelogram, tool_command="./fresh.sh"]
      start -> check
      check -> resume [condition="context.tool_stdout=resume", weight=2]
      check -> fresh [condition="context.tool_stdout=\\"fresh start\\""]
      resume -> exit
      fresh -> exit
    }`;
    const { result } = await runDot(source, { registry: createDefaultRegistry({ dryRun: true }) });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'check', 'resume', 'exit']);
    expect(result.nodeOutcomes.check?.notes).toBe(
      'Dry run: command not executed (recorded in command.sh); simulated output "resume": ./check.sh',
    );
    // An output that is never compared stays empty.
    expect(result.context.get('tool.output')).toBe('');
    expect(result.context.get('tool.exit_code')).toBe(0);
    // A script chooses another output (quoted literals included), or a failure, per call.
    const scripted = await runDot(source, {
      registry: createDefaultRegistry({ dryRun: true, script: { check: [{ stdout: 'fresh start' }] } }),
    });
    expect(scripted.result.completedNodes).toEqual(['start', 'check', 'fresh', 'exit']);
    expect(scripted.result.context.get('tool.output')).toBe('');
    const failed = await runDot(source, {
      registry: createDefaultRegistry({ dryRun: true, script: { check: ['fail'] } }),
    });
    expect(failed.result.status).toBe('fail');
    expect(failed.result.nodeOutcomes.check).toMatchObject({
      status: 'fail',
      failureReason: 'simulated fail (script entry 1 for "check")',
    });
    expect(failed.result.context.get('tool.exit_code')).toBe(1);
  });

  it('gives a dry-run tool node with an output_schema a value valid for it, or checks the scripted stdout', async () => {
    const source = `digraph G {
      graph [state="files: append"]
      start [shape=Mdiamond]
      exit [shape=Msquare]
      list [shape=parallelogram, tool_command="./list.sh", output_schema="files: string[], count: integer", out_map="files -> files"]
      start -> list -> exit
    }`;
    const sampled = await runDot(source, { registry: createDefaultRegistry({ dryRun: true }) });
    expect(sampled.result.status).toBe('success');
    expect(sampled.result.context.get('files')).toEqual(['string']);
    const scripted = await runDot(source, {
      registry: createDefaultRegistry({
        dryRun: true,
        script: { list: [{ stdout: '{"files": ["a.js", "b.js"], "count": 2}' }] },
      }),
    });
    expect(scripted.result.context.get('files')).toEqual(['a.js', 'b.js']);
    const refused = await runDot(source, {
      registry: createDefaultRegistry({ dryRun: true, script: { list: [{ stdout: '{"files": "a.js"}' }] } }),
    });
    expect(refused.result.status).toBe('fail');
    expect(refused.result.nodeOutcomes.list?.failureReason).toContain('simulated stdout');
  });

  it('gives a dry-run tool node the first value its edges compare with when they route on = and != of it', async () => {
    const route = (condition: (op: string) => string) => `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      check [shape=parallelogram, tool_command="./check.sh"]
      commit [shape=parallelogram, tool_command="git commit"]
      start -> check
      check -> exit [condition="${condition('=')}"]
      check -> commit [condition="${condition('!=')}"]
      commit -> exit
    }`;
    const registry = () => createDefaultRegistry({ dryRun: true });
    const plain = await runDot(
      route((op) => `context.tool_stdout${op}0`),
      { registry: registry() },
    );
    expect(plain.result.completedNodes).toEqual(['start', 'check', 'exit']);
    expect(plain.result.context.get('tool_stdout')).toBe('0');
    // tool.output, with and without context., quoted, and another clause beside it: the first value, "ok".
    const other = await runDot(
      route((op) => (op === '=' ? 'tool.output=\\"ok\\"' : 'context.tool.output!=ok && outcome=success')),
      { registry: registry() },
    );
    expect(other.result.completedNodes).toEqual(['start', 'check', 'exit']);
    expect(other.result.context.get('tool.output')).toBe('ok');
    // An edge that does not look at the output and is eligible anyway is no shorter way to the exit: the node
    // "prints" what the edge straight to the exit tests, and says so.
    const fallback = await runDot(
      route((op) => (op === '=' ? 'context.tool_stdout=0' : '')),
      { registry: registry() },
    );
    expect(fallback.result.completedNodes).toEqual(['start', 'check', 'exit']);
    expect(fallback.result.context.get('tool_stdout')).toBe('0');
    expect(fallback.events).toContainEqual(
      expect.objectContaining({
        type: 'stage.log',
        nodeId: 'check',
        message: 'dry run: aims for check -> exit [context.tool_stdout=0]: outcome success, sets tool_stdout',
      }),
    );
  });

  it('takes the scripted dry-run output call by call, so a loop that a real command ends can end', async () => {
    const source = `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      pick [shape=parallelogram, tool_command="./pick-next-task.sh"]
      work [shape=parallelogram, tool_command="./work.sh"]
      start -> pick
      pick -> work [condition="context.tool_stdout!=all_complete", weight=2]
      pick -> exit [condition="context.tool_stdout=all_complete"]
      work -> pick
    }`;
    const { result } = await runDot(source, {
      registry: createDefaultRegistry({
        dryRun: true,
        script: {
          pick: [{ stdout: 'task-1' }, { outcome: 'success', stdout: 'task-2' }, { stdout: 'all_complete' }],
        },
      }),
    });
    expect(result.status).toBe('success');
    expect(result.completedNodes).toEqual(['start', 'pick', 'work', 'pick', 'work', 'pick', 'exit']);
    expect(result.context.get('tool_stdout')).toBe('all_complete');
  });

  it('warns that a script entry for a tool node is ignored when the command runs for real', async () => {
    const workdir = tempDir();
    const { result, events } = await runDot(toolPipeline('echo real > out.txt'), {
      workdir,
      registry: createDefaultRegistry({ script: { run: [{ stdout: 'fake' }] } }),
    });
    expect(result.status).toBe('success');
    expect(readText(join(workdir, 'out.txt'))).toBe('real\n');
    expect(
      events.flatMap((event) =>
        event.type === 'stage.log' && event.level === 'warn' ? [event.message] : [],
      ),
    ).toEqual([
      `the simulation script's entry for tool node "run" is ignored: its command runs for real (script a tool node's output with --dry-run)`,
    ]);
  });

  it('fails with a clear reason when the working directory does not exist', async () => {
    const workdir = join(tempDir(), 'missing');
    const { result } = await runDot(toolPipeline('echo hi'), { workdir });
    expect(result.nodeOutcomes.run?.status).toBe('fail');
    expect(result.nodeOutcomes.run?.failureReason).toContain(`command could not be started in ${workdir}`);
  });

  it('sends the output live as tool.stdout / tool.stderr events while the command runs', async () => {
    const { result, events, logsRoot } = await runDot(
      toolPipeline('echo first; echo oops >&2; sleep 0.3; echo second'),
    );
    expect(result.status).toBe('success');
    const live = events.filter(
      (event) =>
        event.type === 'stage.custom' && (event.name === 'tool.stdout' || event.name === 'tool.stderr'),
    ) as Extract<(typeof events)[number], { type: 'stage.custom' }>[];
    const text = (name: string) =>
      live
        .filter((event) => event.name === name)
        .map((event) => (event.data as { text: string }).text)
        .join('');
    expect(text('tool.stdout')).toBe('first\nsecond\n');
    expect(text('tool.stderr')).toBe('oops\n');
    // "first" came in its own event, before the command ended.
    expect(live.filter((event) => event.name === 'tool.stdout').length).toBeGreaterThanOrEqual(2);
    const completed = events.find((event) => event.type === 'stage.completed' && event.nodeId === 'run')!;
    expect(live.every((event) => event.seq < completed.seq && event.nodeId === 'run')).toBe(true);
    expect(readText(join(logsRoot, 'run', 'stdout.txt'))).toBe('first\nsecond\n');
  });

  it('masks a secret the command prints in two writes in the live output, events.jsonl included', async () => {
    const secret = 'postgres://admin:hunter2pw@db.internal/prod';
    const { result, events, logsRoot } = await runDot(
      toolPipeline(
        "printf 'url=postgres://admin:hun'; sleep 0.3; printf 'ter2pw@db.internal/prod\\n'; echo done",
      ),
      { secretValues: [secret] },
    );
    expect(result.status).toBe('success');
    const live = events.flatMap((event) =>
      event.type === 'stage.custom' && event.name === 'tool.stdout'
        ? [(event.data as { text: string }).text]
        : [],
    );
    expect(live.join('')).toBe('url=[REDACTED]\ndone\n');
    expect(live.some((text) => text.includes('admin:hun') || text.includes('ter2pw'))).toBe(false);
    // The command's own text is in the events (it is the pipeline's, not a secret); the joined value never is.
    expect(readText(join(logsRoot, 'events.jsonl'))).not.toContain('hunter2pw');
    expect(readText(join(logsRoot, 'run', 'stdout.txt'))).toBe('url=[REDACTED]\ndone\n');
  });

  it('stops the live output at TOOL_LIVE_OUTPUT_MAX_CHARS and keeps all of it in stdout.txt', async () => {
    const { events, logsRoot } = await runDot(toolPipeline("head -c 100000 /dev/zero | tr '\\0' x"));
    const live = events.flatMap((event) =>
      event.type === 'stage.custom' && event.name === 'tool.stdout'
        ? [(event.data as { text: string }).text]
        : [],
    );
    const joined = live.join('');
    expect(joined.startsWith('x'.repeat(TOOL_LIVE_OUTPUT_MAX_CHARS))).toBe(true);
    expect(joined.slice(TOOL_LIVE_OUTPUT_MAX_CHARS)).toBe(
      '\n[live output stops here; stdout.txt in the stage directory holds all of it]\n',
    );
    expect(readText(join(logsRoot, 'run', 'stdout.txt'))).toHaveLength(100_000);
  });
});
