import type { SimulationScriptKeyCheck } from '@attractor/handlers';
import type { Colors } from '../colors.js';
import { firstLine } from '../display/format-values.js';

/** How many node ids the warning lists before it says how many more there are. */
const LISTED_NODE_IDS = 40;

/**
 * The warning `run` and `resume` print to stderr before the run when keys of the `--simulate-script` file name no
 * node of the pipeline or of its sub-pipelines (so their steps would never be used), or `undefined` when every key
 * names a node. One `warning[simulate_script]` line per key, compiler-style (`<script file>: "<key>" ...`, with
 * "Did you mean ...?" when a node id is close), then the node ids that exist and the child pipelines that could
 * not be read (their nodes are not known).
 *
 * @param options.scriptFile - the script file as shown to the user (relative to the current directory).
 */
export function formatScriptKeyWarning(options: {
  readonly scriptFile: string;
  readonly check: SimulationScriptKeyCheck;
  readonly colors: Colors;
  readonly displayPath: (path: string) => string;
}): string | undefined {
  const { check, colors, scriptFile } = options;
  if (check.unknownKeys.length === 0) return undefined;
  const lines = check.unknownKeys.map(({ key, suggestion }) =>
    colors.bold(
      colors.yellow(
        `${scriptFile}: warning[simulate_script]: "${key}" names no node of the pipeline or its sub-pipelines, so its steps are never used.${suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`}`,
      ),
    ),
  );
  const shown = check.nodeIds.slice(0, LISTED_NODE_IDS).join(', ');
  const more = check.nodeIds.length - LISTED_NODE_IDS;
  lines.push(`  node ids: ${shown}${more > 0 ? `, … (${more} more)` : ''}`);
  for (const child of check.unreadChildren) {
    lines.push(
      `  not checked: ${options.displayPath(child.path)} (${firstLine(child.reason).line}); keys for its nodes may be reported above`,
    );
  }
  lines.push(
    `  fix: Rename each key to the id of the node it scripts (keys are node ids, also those of sub-pipelines), or remove it.`,
  );
  return lines.join('\n');
}
