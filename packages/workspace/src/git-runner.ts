/**
 * Runs the git CLI (through execa) for the workspace: the one place this package starts processes. Every command
 * runs with the workspace's identity and with the settings that keep a run's commits to itself: no hooks, no
 * signing, no automatic gc, and no `GIT_DIR`/`GIT_WORK_TREE`/`GIT_INDEX_FILE` inherited from a caller.
 */
import { execa } from 'execa';
import { GitCommandError } from './errors/git-command-error.js';

/** The author and committer of a run's commits. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

/** The identity of a run's commits unless configured: never the user's own (README "Workspaces"). */
export const DEFAULT_IDENTITY: GitIdentity = { name: 'Attractor', email: 'attractor@localhost' };

/** Options of {@link GitRunner.run}. */
export interface GitRunOptions {
  /** The directory git runs in. Default: the runner's. */
  readonly cwd?: string;
  /** Extra environment (e.g. `GIT_INDEX_FILE` of a temporary index). */
  readonly env?: Readonly<Record<string, string>>;
  /** Text written to git's stdin. */
  readonly input?: string;
  /** Exit codes that are answers, not failures (`diff --quiet` exits 1 when there are differences). Default: [0]. */
  readonly okExitCodes?: readonly number[];
}

/** The result of a git command. */
export interface GitResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs git commands in one directory with one identity. */
export interface GitRunner {
  /** The directory commands run in by default. */
  readonly cwd: string;
  /**
   * Runs `git <args>` and returns its output (stdout without the final newline).
   * @throws {GitCommandError} when git exits with a code not in `okExitCodes`, or does not start.
   */
  run(args: readonly string[], options?: GitRunOptions): Promise<GitResult>;
  /** Like {@link run}, returning stdout only. */
  text(args: readonly string[], options?: GitRunOptions): Promise<string>;
  /** The same runner in another directory. */
  at(cwd: string): GitRunner;
}

/** Options of {@link createGitRunner}. */
export interface GitRunnerOptions {
  readonly cwd: string;
  /**
   * Author and committer. Default: {@link DEFAULT_IDENTITY}. `'user'`: git's own configuration (the user's identity),
   * for commits the user asked for in their checkout (`apply --merge`).
   */
  readonly identity?: GitIdentity | 'user';
  /** The git binary. Default: `git` on the PATH. */
  readonly gitPath?: string;
}

/** The settings every command gets: a run's commits run no hooks, need no key and start no gc. */
const CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'core.quotepath=false',
];

/** Creates a {@link GitRunner}. */
export function createGitRunner(options: GitRunnerOptions): GitRunner {
  const identity = options.identity ?? DEFAULT_IDENTITY;
  const gitPath = options.gitPath ?? 'git';
  const baseEnv: Record<string, string | undefined> = {
    ...(identity === 'user'
      ? {}
      : {
          GIT_AUTHOR_NAME: identity.name,
          GIT_AUTHOR_EMAIL: identity.email,
          GIT_COMMITTER_NAME: identity.name,
          GIT_COMMITTER_EMAIL: identity.email,
        }),
    // A caller's (a git hook's) repository settings must not redirect the workspace's commands.
    GIT_DIR: undefined,
    GIT_WORK_TREE: undefined,
    GIT_INDEX_FILE: undefined,
    GIT_OBJECT_DIRECTORY: undefined,
    GIT_PREFIX: undefined,
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  };
  const make = (cwd: string): GitRunner => {
    const run = async (args: readonly string[], runOptions: GitRunOptions = {}): Promise<GitResult> => {
      const where = runOptions.cwd ?? cwd;
      const result = await execa(gitPath, [...CONFIG, ...args], {
        cwd: where,
        env: { ...baseEnv, ...runOptions.env },
        reject: false,
        stripFinalNewline: true,
        maxBuffer: 1_000_000_000,
        ...(runOptions.input === undefined ? { stdin: 'ignore' as const } : { input: runOptions.input }),
      });
      const exitCode = result.exitCode;
      if (exitCode === undefined || !(runOptions.okExitCodes ?? [0]).includes(exitCode)) {
        throw new GitCommandError({
          args,
          cwd: where,
          exitCode,
          stderr: String(result.stderr ?? '') || String(result.cause ?? ''),
          ...(result.cause === undefined ? {} : { cause: result.cause }),
        });
      }
      return { exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
    };
    return {
      cwd,
      run,
      text: async (args, runOptions) => (await run(args, runOptions)).stdout,
      at: make,
    };
  };
  return make(options.cwd);
}

/**
 * Reads an identity written `Name <email>` (as git prints one), e.g. `Build Bot <bot@example.com>`.
 * @returns undefined when the text is not of that form.
 */
export function parseGitIdentity(text: string): GitIdentity | undefined {
  const match = /^\s*([^<>]*[^<>\s])\s*<([^<>\s]+)>\s*$/.exec(text);
  return match === null ? undefined : { name: match[1]!, email: match[2]! };
}

/** `Name <email>`. */
export function formatGitIdentity(identity: GitIdentity): string {
  return `${identity.name} <${identity.email}>`;
}
