import { resolve } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { CliError } from '../errors/cli-error.js';
import { nodeStates, summarizeRun } from '../inspect/summarize-run.js';
import { displayPath, loadPipeline } from '../load-pipeline.js';
import { renderSvg } from '../render/render-svg.js';
import { readRunAnywhere } from '../shared/read-run-anywhere.js';
import { writeOutputFile } from '../write-output-file.js';

/** Options of `attractor render`. */
export interface RenderCommandOptions {
  readonly file: string;
  /** Write the SVG here; default: stdout. */
  readonly output?: string;
  /** Colour nodes by their state in this run directory (or run id of the shared store). */
  readonly run?: string;
  /** The shared run store (`--store`; default `ATTRACTOR_STORE_URL`). */
  readonly store?: string;
  readonly io: CliIo;
}

/**
 * `attractor render <file.dot> [-o out.svg] [--run DIR]`: renders the pipeline to SVG with Graphviz compiled to
 * WebAssembly (`@viz-js/viz`, offline). With `--run`, nodes are filled by their status in that run: green
 * succeeded, red failed, yellow running or interrupted, grey not reached.
 *
 * @throws {CliError} for a missing file, a pipeline with errors, a missing run directory, or a run of another
 *   graph (its recorded sha256 differs; both names are given), or an `-o` path that cannot be written.
 */
export async function renderCommand(options: RenderCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color);
  const { graph } = await loadPipeline({ path: options.file, io, colors, refused: 'rendered' });
  let statuses: ReturnType<typeof nodeStates> | undefined;
  if (options.run !== undefined) {
    const run = await readRunAnywhere(options.run, {
      io,
      ...(options.store === undefined ? {} : { store: options.store }),
    });
    // Statuses of another graph's run would colour the wrong nodes (issue 20 §7).
    const { graphFingerprint } = await import('@attractor/engine/internal');
    const sha = graphFingerprint(graph);
    const recorded = run.checkpoint?.graph_sha256 ?? run.manifest.source_sha256;
    if (recorded !== sha) {
      const source = run.manifest.source_path === undefined ? '' : ` from ${run.manifest.source_path}`;
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `Run ${options.run} ran graph "${run.manifest.graph_name}"${source} (sha256 ${recorded.slice(0, 12)}…), not ${options.file} (graph "${graph.id}", sha256 ${sha.slice(0, 12)}…). Render the pipeline the run ran, or leave out --run.`,
      });
    }
    statuses = nodeStates(summarizeRun(run));
  }
  const svg = await renderSvg(graph, {
    name: options.file,
    ...(statuses === undefined ? {} : { statuses }),
  });
  if (options.output === undefined) {
    io.stdout.write(svg);
    return 0;
  }
  const target = resolve(io.cwd, options.output);
  await writeOutputFile({ path: target, text: svg, shown: options.output, flag: '-o' });
  io.stderr.write(`${colors.green('✔')} wrote ${displayPath(target, io.cwd)}\n`);
  return 0;
}
