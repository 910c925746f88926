/**
 * The opt-in sandbox of the commands stages start (tool commands, agent CLIs; README "Security"): a
 * {@link CommandSandbox} turns the command line a handler would start into one that runs it confined. The one
 * implementation is Bubblewrap (`bwrap`, Debian's `bubblewrap`): a read-only view of the whole system, the
 * directories the stage may write (its working directory and stage directory, an agent's own state) writable, a
 * private `/tmp`, and no network unless the stage allows it. Defence in depth against a command that goes wrong,
 * not a security boundary against a determined attacker: the command still runs as the same user, sees every file
 * that user can read, and keeps the kernel's whole system-call surface.
 */
import { spawn } from 'node:child_process';
import { SandboxUnavailableError } from './errors/sandbox-unavailable-error.js';

/** What a stage's command may do inside the sandbox. */
export interface SandboxedCommand {
  /** The program (an absolute path, or a name looked up on `PATH`). */
  readonly file: string;
  readonly args: readonly string[];
  /** The working directory of the command (writable). */
  readonly cwd: string;
  /** Directories (or files) the command may write besides `cwd`: the stage directory, an agent's state. Missing ones are skipped. */
  readonly writable: readonly string[];
  /** Whether the command keeps the network (`sandbox_network=true` on a tool node; agent CLIs, which call their model). */
  readonly network: boolean;
}

/** Confines the commands stages start. Passed to the engine as `runPipeline({ sandbox })`, to handlers as `runtime.sandbox`. */
export interface CommandSandbox {
  /** The sandbox's name as the setting spells it: `bwrap`. */
  readonly kind: string;
  /** The command line to start instead of `command.file command.args`: the same command, confined. */
  wrap(command: SandboxedCommand): { readonly file: string; readonly args: readonly string[] };
}

/** Options of {@link createBubblewrapSandbox} and {@link checkBubblewrap}. */
export interface BubblewrapOptions {
  /** The `bwrap` program: a path, or a name looked up on `PATH`. Default: `bwrap`. */
  readonly bwrapPath?: string;
}

/**
 * The Bubblewrap sandbox. A command runs as `bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --bind <cwd>
 * <cwd> --bind-try <each writable> ... [--unshare-net] --die-with-parent --chdir <cwd> -- <file> <args>`: the whole
 * file system read-only, a private `/tmp`, the working directory and the writable paths writable, no network
 * unless `network`. The command stays in the process group the handler made (no new session), so a timeout or a
 * cancel still ends all of it. Check that `bwrap` works first with {@link checkBubblewrap}.
 */
export function createBubblewrapSandbox(options: BubblewrapOptions = {}): CommandSandbox {
  const bwrap = options.bwrapPath ?? 'bwrap';
  return {
    kind: 'bwrap',
    wrap(command) {
      const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
      args.push('--bind', command.cwd, command.cwd);
      for (const path of command.writable) {
        if (path !== command.cwd) args.push('--bind-try', path, path);
      }
      if (!command.network) args.push('--unshare-net');
      args.push('--die-with-parent', '--chdir', command.cwd, '--', command.file, ...command.args);
      return { file: bwrap, args };
    },
  };
}

/**
 * Checks that Bubblewrap can run here: starts `bwrap --ro-bind / / --unshare-net -- true` once. Resolves when it
 * exits 0.
 * @throws {SandboxUnavailableError} when the program is missing (`reason: 'missing'`: install Debian's `bubblewrap`) or
 *   fails (`reason: 'failed'`, with its message: user namespaces switched off, a container without the privilege).
 */
export async function checkBubblewrap(options: BubblewrapOptions = {}): Promise<void> {
  const bwrap = options.bwrapPath ?? 'bwrap';
  const result = await new Promise<{ code: number | null; error?: NodeJS.ErrnoException; stderr: string }>(
    (resolve) => {
      const child = spawn(bwrap, ['--ro-bind', '/', '/', '--unshare-net', '--', 'true'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-2000);
      });
      child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error, stderr }));
      child.once('close', (code) => resolve({ code, stderr }));
    },
  );
  if (result.error !== undefined) {
    const missing = result.error.code === 'ENOENT' || result.error.code === 'EACCES';
    throw new SandboxUnavailableError({
      reason: missing ? 'missing' : 'failed',
      bwrapPath: bwrap,
      detail: result.error.message,
    });
  }
  if (result.code !== 0) {
    throw new SandboxUnavailableError({
      reason: 'failed',
      bwrapPath: bwrap,
      detail: result.stderr.trim() || `exit code ${result.code}`,
    });
  }
}
