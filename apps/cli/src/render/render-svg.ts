import type { Graph } from '@attractor/graph';
import { CliError } from '../errors/cli-error.js';
import type { StageState } from '../inspect/summarize-run.js';
import { toGraphvizDot } from './to-graphviz-dot.js';

/**
 * Renders a pipeline as SVG with Graphviz compiled to WebAssembly (`@viz-js/viz`, offline), nodes filled by their
 * state in a run when `statuses` is given (`attractor render --run`). Used by `attractor render` and by the preview
 * of `attractor lsp`.
 *
 * @throws {CliError} `CLI_INVALID_INPUT` (exit 1) when Graphviz reports errors: "Graphviz could not render <name>:
 *   <its messages>".
 */
export async function renderSvg(
  graph: Graph,
  options: { readonly name: string; readonly statuses?: ReadonlyMap<string, StageState> },
): Promise<string> {
  const dot = toGraphvizDot(graph, options.statuses === undefined ? {} : { statuses: options.statuses });
  const { instance } = await import('@viz-js/viz');
  const viz = await instance();
  const result = viz.render(dot, { format: 'svg' });
  if (result.status !== 'success') {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      exitCode: 1,
      message: `Graphviz could not render ${options.name}: ${result.errors.map((error) => error.message).join('; ')}`,
    });
  }
  return result.output;
}
