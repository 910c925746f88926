/**
 * `--sandbox bwrap`: tool stages and agent CLI stages run under Debian's Bubblewrap (`.ci/system-deps` installs it):
 * the system read-only, the working directory and the stage directory writable, no network unless the node says
 * `sandbox_network=true`. The "outside" directory is under /var/tmp (a real directory of the machine that the
 * sandbox shows read-only; /tmp is private inside it), and the network probe is an HTTP server this test starts on
 * 127.0.0.1. Claude Code runs against the scripted Anthropic server (the only fake: the model).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { PipelineEvent } from '@attractor/engine';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { attractor, runOnServer, temporaryDirectory } from './helpers/cli.js';
import { useScriptedClaudeCode } from './helpers/scripted-claude-code.js';

/** Bubblewrap is on this machine; CI installs it (`.ci/system-deps`) and never skips. */
const withBwrap = spawnSync('bwrap', ['--version']).status === 0 || process.env.CI === 'true';
if (!withBwrap) console.log('bubblewrap (bwrap) is not installed: the CLI sandbox tests are skipped');

let outside: string;
let probe: Server;
let probeUrl: string;
let probeHits = 0;

beforeAll(async () => {
  probe = createServer((_request, response) => {
    probeHits += 1;
    response.end('reached');
  });
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  probeUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterEach(async () => {
  if (outside !== undefined) await rm(outside, { recursive: true, force: true });
});

/** A fresh directory outside the run's writable places (and outside /tmp). */
async function outsideDirectory(): Promise<string> {
  outside = await mkdtemp('/var/tmp/attractor-outside-');
  return outside;
}

async function readEvents(runDir: string): Promise<PipelineEvent[]> {
  return (await readFile(join(runDir, 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as PipelineEvent);
}

/** `node -e` that fetches the probe server and exits 0 when it answered, 7 when it could not be reached. */
function fetchProbe(): string {
  return `node -e \\"fetch('${probeUrl}').then(() => process.exit(0), () => process.exit(7))\\"`;
}

describe.runIf(withBwrap)('attractor run --sandbox bwrap', { timeout: 120_000 }, () => {
  it('a tool stage writes in its workdir and stage directory, cannot write outside, and reaches 127.0.0.1 only with sandbox_network=true', async () => {
    const cwd = await temporaryDirectory();
    const workdir = await temporaryDirectory();
    const escapePath = join(await outsideDirectory(), 'escape.txt');
    await writeFile(
      join(cwd, 'tools.dot'),
      `digraph Tools {
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  write   [shape=parallelogram, tool_command="echo made > made.txt && echo noted > \\"$ATTRACTOR_STAGE_DIR/note.txt\\""]
  escape  [shape=parallelogram, tool_command="echo escaped > ${escapePath}"]
  offline [shape=parallelogram, tool_command="${fetchProbe()}"]
  online  [shape=parallelogram, sandbox_network=true, tool_command="${fetchProbe()}"]
  start -> write -> escape
  escape -> offline [condition="outcome=fail"]
  escape -> exit    [condition="outcome=success"]
  offline -> online [condition="outcome=fail"]
  offline -> exit   [condition="outcome=success"]
  online -> exit
}
`,
    );
    probeHits = 0;
    const result = await attractor(
      ['run', 'tools.dot', '--sandbox', 'bwrap', '--workdir', workdir, '--logs-dir', 'run'],
      { cwd },
    );

    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(workdir, 'made.txt'), 'utf8')).toBe('made\n');
    expect(await readFile(join(cwd, 'run', 'write', 'note.txt'), 'utf8')).toBe('noted\n');
    // Outside the writable places the file system is read-only.
    expect(existsSync(escapePath)).toBe(false);
    expect(await readFile(join(cwd, 'run', 'escape', 'stderr.txt'), 'utf8')).toContain(
      'Read-only file system',
    );
    // No network: the probe was reached once, by the stage that allows it.
    const exits = (await readEvents(join(cwd, 'run')))
      .filter((event) => event.type === 'stage.completed')
      .map((event) => [event.nodeId, event.status]);
    expect(exits).toEqual([
      ['start', 'success'],
      ['write', 'success'],
      ['escape', 'fail'],
      ['offline', 'fail'],
      ['online', 'success'],
      ['exit', 'success'],
    ]);
    expect(await readFile(join(cwd, 'run', 'offline', 'status.json'), 'utf8')).toContain(
      'exited with code 7',
    );
    expect(probeHits).toBe(1);
    // resume keeps the sandbox the run was started with.
    expect(JSON.parse(await readFile(join(cwd, 'run', 'cli-options.json'), 'utf8'))).toMatchObject({
      sandbox: 'bwrap',
    });
  });

  it('without --sandbox the same commands are not confined (what the sandbox prevents)', async () => {
    const cwd = await temporaryDirectory();
    const escapePath = join(await outsideDirectory(), 'escape.txt');
    await writeFile(
      join(cwd, 'free.dot'),
      `digraph Free { start [shape=Mdiamond]; exit [shape=Msquare]
  escape [shape=parallelogram, tool_command="echo escaped > ${escapePath} && ${fetchProbe()}"]
  start -> escape -> exit }
`,
    );
    probeHits = 0;
    const result = await attractor(['run', 'free.dot', '--logs-dir', 'run'], { cwd });
    expect(result.exitCode).toBe(0);
    expect(await readFile(escapePath, 'utf8')).toBe('escaped\n');
    expect(probeHits).toBe(1);
  });

  it('refuses to start, saying how to fix it, where Bubblewrap is missing ($ATTRACTOR_BWRAP names no program), and leaves no run directory', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'one.dot'),
      'digraph One { start [shape=Mdiamond]; exit [shape=Msquare]; t [shape=parallelogram, tool_command="true"]; start -> t -> exit }\n',
    );
    const missing = join(cwd, 'no-such-bwrap');
    const result = await attractor(['run', 'one.dot', '--sandbox', 'bwrap', '--logs-dir', 'run'], {
      cwd,
      env: { ATTRACTOR_BWRAP: missing },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `--sandbox bwrap: The sandbox needs Bubblewrap, but ${missing} is not installed`,
    );
    expect(result.stderr).toContain('apt-get install bubblewrap');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(join(cwd, 'run'))).toBe(false);

    // The config file's defaults.sandbox asks for it too, and a value it does not know is refused.
    await writeFile(
      join(cwd, 'attractor.config.mjs'),
      "export default { defaults: { sandbox: 'bwrap' } };\n",
    );
    const configured = await attractor(['run', 'one.dot', '--logs-dir', 'run'], {
      cwd,
      env: { ATTRACTOR_BWRAP: missing },
    });
    expect(configured.exitCode).toBe(2);
    expect(configured.stderr).toContain('--sandbox bwrap: The sandbox needs Bubblewrap');
    await writeFile(
      join(cwd, 'attractor.config.mjs'),
      "export default { defaults: { sandbox: 'docker' } };\n",
    );
    const unknown = await attractor(['run', 'one.dot', '--logs-dir', 'run'], { cwd });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('defaults.sandbox is "docker"; use one of "bwrap", "none".');
  });

  it('serve --sandbox bwrap confines the runs it executes; serve and worker refuse to start without Bubblewrap', async () => {
    const cwd = await temporaryDirectory();
    const escapePath = join(await outsideDirectory(), 'escape.txt');
    const child = attractor(['serve', '--port', '0', '--allow-tools', '--simulate', '--sandbox', 'bwrap'], {
      cwd,
    });
    try {
      const state = await runOnServer(
        child,
        `digraph Served { start [shape=Mdiamond]; exit [shape=Msquare]
  escape [shape=parallelogram, tool_command="echo escaped > ${escapePath}"]
  start -> escape -> exit }`,
      );
      expect(state).toBe('fail');
      expect(existsSync(escapePath)).toBe(false);
    } finally {
      child.kill('SIGTERM');
    }
    await child;

    const missing = { ATTRACTOR_BWRAP: join(cwd, 'no-such-bwrap') };
    const serve = await attractor(['serve', '--port', '0', '--sandbox', 'bwrap'], { cwd, env: missing });
    expect(serve.exitCode).toBe(2);
    expect(serve.stderr).toContain('--sandbox bwrap: The sandbox needs Bubblewrap');
    const worker = await attractor(
      [
        'worker',
        '--store',
        'postgres://127.0.0.1:1/none',
        '--queue',
        'postgres://127.0.0.1:1/none',
        '--sandbox',
        'bwrap',
      ],
      { cwd, env: missing },
    );
    expect(worker.exitCode).toBe(2);
    expect(worker.stderr).toContain('--sandbox bwrap: The sandbox needs Bubblewrap');
  });

  it('lint: sandbox_network must be a boolean, and it is inert on a node that runs no command', async () => {
    const cwd = await temporaryDirectory();
    await writeFile(
      join(cwd, 'lint.dot'),
      `digraph Lint { start [shape=Mdiamond]; exit [shape=Msquare]
  t [shape=parallelogram, tool_command="true", sandbox_network=sometimes]
  gate [shape=hexagon, label="Go?", sandbox_network=true]
  start -> t -> gate -> exit }
`,
    );
    const result = await attractor(['validate', 'lint.dot'], { cwd });
    expect(result.stdout).toMatch(/lint\.dot:2:\d+: error\[attribute_type\]: .*sandbox_network/);
    expect(result.stdout).toMatch(
      /lint\.dot:3:\d+: warning\[inert_attribute\]: Node "gate" is a wait\.human node, which ignores sandbox_network/,
    );
  });
});

describe.runIf(withBwrap)('attractor run --sandbox bwrap --backend claude-code', { timeout: 120_000 }, () => {
  const claude = useScriptedClaudeCode();

  it('Claude Code reaches its model and writes in the workdir; its shell cannot write outside', async () => {
    const cwd = await temporaryDirectory();
    const workdir = await temporaryDirectory();
    const escapePath = join(await outsideDirectory(), 'escape.txt');
    await writeFile(
      join(cwd, 'agent.dot'),
      `digraph Agent { start [shape=Mdiamond]; exit [shape=Msquare]
  implement [prompt="Write hello.txt [[scenario:sandboxed]]"]
  start -> implement -> exit }
`,
    );
    claude.server.script({
      sandboxed: [
        {
          tool: 'Write',
          input: { file_path: join(workdir, 'hello.txt'), content: 'Hello from the sandbox\n' },
        },
        { tool: 'Bash', input: { command: `echo escaped > ${escapePath}`, description: 'Write outside' } },
        { text: 'Wrote hello.txt.' },
      ],
    });
    const result = await attractor(
      [
        'run',
        'agent.dot',
        '--backend',
        'claude-code',
        '--agent-permissions',
        'full',
        '--model',
        'claude-test-1',
        '--sandbox',
        'bwrap',
        '--workdir',
        workdir,
        '--logs-dir',
        'run',
      ],
      // Claude Code refuses full permissions as root unless told it runs in a sandbox (CI runs as root).
      { cwd, env: { ...claude.env, IS_SANDBOX: '1' } },
    );

    expect(result.stderr).toBe('');
    expect(result.exitCode, result.stdout).toBe(0);
    expect(await readFile(join(workdir, 'hello.txt'), 'utf8')).toBe('Hello from the sandbox\n');
    expect(existsSync(escapePath)).toBe(false);
    const bash = (await readEvents(join(cwd, 'run'))).find(
      (event) => event.type === 'agent.tool_call.completed' && event.toolName === 'Bash',
    );
    expect(bash).toMatchObject({ isError: true });
    expect(bash?.type === 'agent.tool_call.completed' && bash.output).toContain('Read-only file system');
    expect(await readFile(join(cwd, 'run', 'implement', 'response.md'), 'utf8')).toBe('Wrote hello.txt.');
  });
});
