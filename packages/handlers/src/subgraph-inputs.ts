/**
 * The inputs a sub-pipeline node gives its child (README "Typed data"): its `input.<name>` attributes, read as
 * `attractor run --input` reads them and checked against the child's `inputs` as a top-level run's are.
 */
import { dirname } from 'node:path';
import {
  InputsInvalidError,
  type JsonValue,
  parseInputText,
  readInputSchema,
  validatePipelineInputs,
} from '@attractor/engine';
import { type Graph, SUBGRAPH_INPUT_PREFIX } from '@attractor/graph';

/** What {@link subgraphInputs} returns: the child's inputs by name, or why the node fails. */
export type SubgraphInputsResult =
  | { readonly ok: true; readonly inputs: Readonly<Record<string, JsonValue>> }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads the node's `input.<name>` values (already expanded, by `<name>`) as the CLI's `--input` does
 * (`parseInputText`: a string input keeps the text, any other is JSON-parsed when it is JSON) and checks them with
 * `validatePipelineInputs`, the check a run makes before its first stage (a schema file relative to the child's DOT
 * file). A missing, mistyped or undeclared input is `{ ok: false, reason }`: the checker's message (each field, the
 * type expected, the value given) after the node id and `graph_ref`, then which `input.<name>` attribute to set or
 * remove.
 *
 * @param options.nodeId the sub-pipeline node's id; `ref` its `graph_ref` as written; `child` the child graph,
 *   read from `childPath`; `texts` the expanded `input.<name>` values by name.
 */
export async function subgraphInputs(options: {
  readonly nodeId: string;
  readonly ref: string;
  readonly child: Graph;
  readonly childPath: string;
  readonly texts: Readonly<Record<string, string>>;
}): Promise<SubgraphInputsResult> {
  const { nodeId, ref, child, texts } = options;
  const where = `Subgraph node "${nodeId}" (graph_ref="${ref}")`;
  const baseDirectory = dirname(options.childPath);
  try {
    const schema = await readInputSchema({ graph: child, baseDirectory });
    const given: Record<string, JsonValue> = {};
    for (const [name, text] of Object.entries(texts)) given[name] = parseInputText(schema, name, text);
    return { ok: true, inputs: await validatePipelineInputs({ graph: child, inputs: given, baseDirectory }) };
  } catch (error) {
    if (!InputsInvalidError.isInstance(error)) throw error;
    const attributes = (undeclared: boolean) => [
      ...new Set(
        error.problems
          .filter((problem) => (problem.message === 'is not declared') === undeclared)
          .map((problem) => `${SUBGRAPH_INPUT_PREFIX}${problem.field.split(/[.[]/)[0]}`),
      ),
    ];
    const undeclared = attributes(true);
    const unset = attributes(false);
    const fixes = [
      ...(unset.length === 0
        ? []
        : [
            `set ${unset.map((attribute) => `${attribute}="..."`).join(', ')} on "${nodeId}" (a value, or $context.<key>, $input.<name>, $item.<name>)`,
          ]),
      ...(undeclared.length === 0
        ? []
        : [
            `remove ${undeclared.join(', ')} from "${nodeId}" or declare ${undeclared.length === 1 ? 'it' : 'them'} in the inputs of ${ref}`,
          ]),
    ];
    return {
      ok: false,
      reason: `${where}: ${error.message}${fixes.length === 0 ? '' : `\nFix: ${fixes.join('; ')}.`}`,
    };
  }
}
