/**
 * Real git repositories for the tests: made with the git CLI in temporary directories, with a user's identity of
 * their own, and read back byte for byte (files, index, stash) to prove a run left them alone.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type RunResult, resumePipeline, runPipeline } from '@attractor/engine';
import { tempDir } from '@attractor/engine/test';
import type { Graph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { execa } from 'execa';
import { createWorkspaceProvider, type WorkspaceMode } from '../src/index.js';

/** Runs git in `cwd` as the test's user and returns stdout. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const result = await execa('git', args, {
    cwd,
    env: {
      GIT_AUTHOR_NAME: 'Test User',
      GIT_AUTHOR_EMAIL: 'user@example.com',
      GIT_COMMITTER_NAME: 'Test User',
      GIT_COMMITTER_EMAIL: 'user@example.com',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
    stripFinalNewline: true,
  });
  return result.stdout;
}

/** Writes files (relative path → text) under `root`, creating directories. */
export function writeFiles(root: string, files: Readonly<Record<string, string>>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A repository with two commits' worth of files and `.attractor/` ignored, like a project using Attractor. */
export async function makeRepository(files: Readonly<Record<string, string>> = {}): Promise<string> {
  const root = tempDir('workspace-repo-');
  await git(root, 'init', '-q', '-b', 'main');
  writeFiles(root, {
    'README.md': '# project\n',
    'src/app.txt': 'line 1\nline 2\nline 3\n',
    '.gitignore': 'node_modules/\n*.log\n.attractor/\n',
    ...files,
  });
  await git(root, 'add', '-A');
  await git(root, 'commit', '-q', '-m', 'initial');
  return root;
}

/**
 * Everything of a checkout a run must not change: each file's bytes outside `.git` (except `skip`), the index file's
 * bytes, HEAD, the branches and the stash (as sha256 hashes, for a readable diff when one changed).
 */
export async function snapshotCheckout(
  root: string,
  skip: readonly string[] = ['.attractor'],
): Promise<Record<string, string>> {
  const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex').slice(0, 16);
  const snapshot: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      const rel = relative(root, path);
      if (rel === '.git' || skip.includes(rel)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else snapshot[`file ${rel}`] = sha(readFileSync(path));
    }
  };
  walk(root);
  snapshot.index = sha(readFileSync(join(root, '.git', 'index')));
  snapshot.head = await git(root, 'rev-parse', 'HEAD');
  snapshot.refs = await git(
    root,
    'for-each-ref',
    '--format=%(refname) %(objectname)',
    'refs/heads/main',
    'refs/stash',
  );
  snapshot.stash = await git(root, 'stash', 'list');
  snapshot.status = await git(root, '--no-optional-locks', 'status', '--porcelain=v1', '-uall');
  return snapshot;
}

/**
 * Runs `graph` with a git workspace, cancels it once the stage `nodeId` has written `waitFor` (a file its command
 * writes before it waits for `$ATTRACTOR_LOGS_ROOT/go`), then writes `go` and resumes it.
 */
export async function interruptAndResume(options: {
  readonly graph: Graph;
  readonly repo: string;
  readonly logsRoot: string;
  readonly nodeId: string;
  readonly waitFor: string;
  /** Called between the interrupted run and the resume. */
  readonly between?: () => void | Promise<void>;
  /** The first run's workspace mode (the resume gets the default provider). Default: git. */
  readonly mode?: WorkspaceMode;
}): Promise<{ readonly first: RunResult; readonly resumed: RunResult }> {
  const services = {
    graph: options.graph,
    registry: createDefaultRegistry(),
    workdir: options.repo,
    logsRoot: options.logsRoot,
  };
  const controller = new AbortController();
  const first = await runPipeline({
    ...services,
    workspace: createWorkspaceProvider({ mode: options.mode ?? 'git' }),
    abortSignal: controller.signal,
    onEvent: (event) => {
      if (event.type !== 'stage.started' || event.nodeId !== options.nodeId) return;
      const wait = () => (existsSync(options.waitFor) ? controller.abort() : setTimeout(wait, 20));
      wait();
    },
  });
  await options.between?.();
  writeFileSync(join(options.logsRoot, 'go'), '');
  const resumed = await resumePipeline({ ...services, workspace: createWorkspaceProvider() });
  return { first, resumed };
}
