/**
 * Finds an agent's CLI before a run starts (preflight) and when a stage starts it: the npm package that brings the
 * agent, else the agent's executable on `PATH`.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_PACKAGES, type AgentName } from './agent-name.js';
import { AgentCliMissingError } from './errors/agent-cli-missing-error.js';

/** Where an agent was found. */
export interface AgentCliLocation {
  readonly agent: AgentName;
  /** The executable to spawn (Node itself for a CLI that is a Node script). */
  readonly command: string;
  /** Arguments that come before the agent's own (the script path for a Node script). */
  readonly args: readonly string[];
  /** `option`: `executablePath`; `package`: the npm package; `path`: the executable on `PATH`. */
  readonly source: 'option' | 'package' | 'path';
}

/** Options of {@link findAgentCli}. */
export interface FindAgentCliOptions {
  /** Use this executable (checked to exist and be executable). */
  readonly executablePath?: string;
  /** The environment whose `PATH` is searched for `claude`, `codex` or `gemini`. Default: no search. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Node's executable, for CLIs that are Node scripts. Default: `process.execPath`. */
  readonly nodePath?: string;
}

/** The executable each agent installs under, for the `PATH` search. */
const EXECUTABLES = {
  'claude-code': 'claude',
  codex: 'codex',
  'gemini-cli': 'gemini',
} as const satisfies Record<AgentName, string>;

/**
 * Finds `agent`: `executablePath` when given; else its npm package (see {@link AGENT_PACKAGES}; for Claude Code
 * the Agent SDK, which brings its own `claude` binary); else its executable on the env's `PATH`.
 *
 * @throws {AgentCliMissingError} naming the npm package to install when none is found.
 */
export function findAgentCli(agent: AgentName, options: FindAgentCliOptions = {}): AgentCliLocation {
  if (options.executablePath !== undefined) {
    if (!isExecutable(options.executablePath)) {
      throw new AgentCliMissingError({ agent, packageName: AGENT_PACKAGES[agent] });
    }
    return { agent, command: options.executablePath, args: [], source: 'option' };
  }
  if (agent === 'claude-code') {
    // The SDK spawns its bundled binary itself (its exports do not include package.json).
    if (resolves(AGENT_PACKAGES[agent])) return { agent, command: '', args: [], source: 'package' };
    throw new AgentCliMissingError({ agent, packageName: AGENT_PACKAGES[agent] });
  }
  const packageJson = resolvePackageJson(AGENT_PACKAGES[agent]);
  if (packageJson !== undefined) {
    const bin = readBin(packageJson, EXECUTABLES[agent]);
    if (bin !== undefined) {
      return { agent, command: options.nodePath ?? process.execPath, args: [bin], source: 'package' };
    }
  }
  const onPath = searchPath(EXECUTABLES[agent], options.env?.PATH);
  if (onPath !== undefined) return { agent, command: onPath, args: [], source: 'path' };
  throw new AgentCliMissingError({ agent, packageName: AGENT_PACKAGES[agent] });
}

function resolves(specifier: string): boolean {
  try {
    import.meta.resolve(specifier);
    return true;
  } catch {
    return false;
  }
}

function resolvePackageJson(packageName: string): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve(`${packageName}/package.json`));
  } catch {
    return undefined;
  }
}

function readBin(packageJsonPath: string, name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as {
      bin?: string | Record<string, string>;
    };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
    return bin === undefined ? undefined : join(dirname(packageJsonPath), bin);
  } catch {
    return undefined;
  }
}

function searchPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(':')) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
