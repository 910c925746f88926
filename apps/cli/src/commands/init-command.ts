import { existsSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliCommand } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { CliError } from '../errors/cli-error.js';
import { displayPath } from '../load-pipeline.js';

/** Options of `attractor init`. */
export interface InitCommandOptions {
  /** Where the project goes (created when missing). Default: the current directory. */
  readonly directory?: string;
  readonly io: CliIo;
}

/** The starter project: each file of `templates/init/` and the name it gets (npm leaves `.gitignore` out of packages). */
const FILES = [
  { template: 'pipeline.dot', name: 'pipeline.dot' },
  { template: 'prompts/plan.md', name: 'prompts/plan.md' },
  { template: 'attractor.config.mjs', name: 'attractor.config.mjs' },
  { template: 'README.md', name: 'README.md' },
] as const;
const GITIGNORE_TEMPLATE = 'gitignore';
const RUNS_ENTRY = '.attractor/';

/**
 * `attractor init [dir]`: writes a starter project that validates and runs at once: `pipeline.dot` (an LLM stage whose
 * prompt is the file `prompts/plan.md`, a tool, a human gate, and a node of a custom handler), `attractor.config.mjs`
 * (that handler, a plain object: the folder needs no package installed), `README.md`, and a `.gitignore` that leaves
 * out the run directories (an existing `.gitignore` gets the entry added). Prints what it wrote and the commands to
 * try next.
 *
 * @throws {CliError} `CLI_USAGE` (exit 2) when one of the files already exists, naming them (nothing is written then).
 */
export async function initCommand(options: InitCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color);
  const target = resolve(io.cwd, options.directory ?? '.');
  const shown = displayPath(target, io.cwd);
  const taken = FILES.map((file) => file.name).filter((name) => existsSync(join(target, name)));
  if (taken.length > 0) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${shown === '.' ? 'This directory' : shown} already has ${taken.join(', ')}; attractor init writes nothing over existing files. Run it in an empty directory: attractor init <new-dir>.`,
    });
  }
  const templates = fileURLToPath(new URL('../../templates/init/', import.meta.url));
  for (const { template, name } of FILES) {
    await mkdir(dirname(join(target, name)), { recursive: true });
    await copyFile(join(templates, template), join(target, name));
  }
  const gitignore = join(target, '.gitignore');
  const written: string[] = FILES.map((file) => file.name);
  if (!existsSync(gitignore)) {
    await copyFile(join(templates, GITIGNORE_TEMPLATE), gitignore);
    written.push('.gitignore');
  } else {
    const text = await readFile(gitignore, 'utf8');
    const lines = text.split('\n').map((line) => line.trim());
    if (!lines.includes(RUNS_ENTRY) && !lines.includes('.attractor')) {
      await appendFile(gitignore, `${text.endsWith('\n') || text === '' ? '' : '\n'}${RUNS_ENTRY}\n`);
      written.push(`.gitignore (added ${RUNS_ENTRY})`);
    }
  }
  const command = cliCommand(io.env);
  const cd = shown === '.' ? '' : `  cd ${shown}\n`;
  io.stderr.write(
    `${colors.green('✔')} created a starter project in ${shown === '.' ? 'the current directory' : shown}: ${written.join(', ')}\n\nNext:\n${cd}  ${command} validate pipeline.dot\n  ${command} run pipeline.dot --simulate        (no model needed; answer the gate, or add --answer Y)\n  ${command} run pipeline.dot                   (for real: --model gpt-5.2 with OPENAI_API_KEY, or --backend claude-code, ...)\n`,
  );
  return 0;
}
