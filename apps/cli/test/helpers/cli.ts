/**
 * Runs the `attractor` command (bin/attractor.js, which loads the bundle built in dist/) as a real child process
 * with execa.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type ResultPromise } from 'execa';

/**
 * The `attractor` command as an installed package links it: a link named `attractor` to bin/attractor.js (which loads
 * the build in dist/; turbo runs `build` before `test`). Hints then spell the command `attractor`; started by the
 * script's own path they say `node <path>/attractor.js` (cli-command.ts).
 */
export const BIN = fileURLToPath(new URL('./bin/attractor', import.meta.url));
/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** examples/pipelines in the repository. */
export const PIPELINES = join(REPO_ROOT, 'examples', 'pipelines');
/** examples/sample-project in the repository. */
export const SAMPLE_PROJECT = join(REPO_ROOT, 'examples', 'sample-project');
/** This package's test fixtures. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * The environment of the child: the parent's without provider keys, colour settings and the package-manager markers
 * that change printed hints (`npm_command`, `npm_config_user_agent`), with `ATTRACTOR_WORKSPACE=in-place`, plus
 * `extra`.
 */
export function childEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (
      /^OPENAI_|^ANTHROPIC_|^GOOGLE_GENERATIVE_AI_|^GEMINI_API_KEY$|^FORCE_COLOR$|^NO_COLOR$|^CI$|^npm_command$|^npm_config_user_agent$/.test(
        key,
      )
    )
      continue;
    env[key] = value;
  }
  // Runs of the repository's own pipelines work in place unless a test asks for a workspace: a git workspace would
  // add worktrees and attractor/* branches to this repository (README "Workspaces").
  return { ...env, NO_COLOR: '1', ATTRACTOR_WORKSPACE: 'in-place', ...extra };
}

/** Starts `attractor <args>`; resolves with exit code and output, never rejects on a non-zero exit. */
export function attractor(
  args: readonly string[],
  options: {
    readonly cwd?: string;
    readonly env?: Readonly<Record<string, string>>;
    readonly input?: string;
  } & Pick<Options, 'timeout'> = {},
): ResultPromise<{ reject: false; extendEnv: false }> {
  return execa('node', [BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: childEnv(options.env),
    extendEnv: false,
    reject: false,
    ...(options.input === undefined ? { stdin: 'ignore' } : { input: options.input }),
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
  }) as ResultPromise<{ reject: false; extendEnv: false }>;
}

/** A fresh temporary directory. */
export function temporaryDirectory(prefix = 'attractor-cli-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** Reads the child's stdout until the URL and token lines are printed. */
export async function waitForBanner(
  child: ReturnType<typeof attractor>,
): Promise<{ url: string; token: string }> {
  let text = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      const token = /^Token: (.+)$/m.exec(text)?.[1];
      if (url !== undefined && token !== undefined) resolve({ url, token });
    });
    child.then(
      (result) => reject(new Error(`serve exited early (${result.exitCode}): ${result.stderr}`)),
      reject,
    );
  });
}

/**
 * `attractor worker` for the shared-queue tests: workdirs under `<dir>/work`, heartbeats every 10 s, supervision every
 * second (a SIGKILLed worker's job is noticed within about 11 s), plus `extra` arguments.
 */
export function attractorWorker(
  dir: string,
  env: Readonly<Record<string, string>>,
  extra: readonly string[] = [],
): ReturnType<typeof attractor> {
  return attractor(
    [
      'worker',
      '--workdir-root',
      join(dir, 'work'),
      '--heartbeat-seconds',
      '10',
      '--supervise-seconds',
      '1',
      // The test pipelines have tool stages, which a worker runs only when allowed.
      '--allow-tools',
      ...extra,
    ],
    { cwd: dir, env },
  );
}

/**
 * Collects what `child` prints on `stream` and resolves with it once it contains `text`.
 * @throws {Error} after `timeoutMs` (default 60 s), with what was printed.
 */
export async function waitForOutput(
  child: ReturnType<typeof attractor>,
  stream: 'stdout' | 'stderr',
  text: string,
  timeoutMs = 60_000,
): Promise<string> {
  let printed = '';
  child[stream]?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const deadline = Date.now() + timeoutMs;
  while (!printed.includes(text)) {
    if (Date.now() > deadline) throw new Error(`"${text}" never came on ${stream}; it printed: ${printed}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return printed;
}

/**
 * Asks a served run's state (`GET /pipelines/<id>`) every 100 ms until it is no longer `running`, and resolves
 * with it (`running` still after `timeoutMs`, default 90 s).
 */
export async function waitForServedRun(options: {
  readonly url: string;
  readonly id: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  let state = 'running';
  while (state === 'running' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const response = await fetch(`${options.url}/pipelines/${options.id}`, { headers: options.headers });
    state = ((await response.json()) as { state: string }).state;
  }
  return state;
}
