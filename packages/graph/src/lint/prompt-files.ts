/**
 * Prompt files: `prompt="@prompts/plan.md"` makes the text of that file the node's prompt (as the allouis and
 * brynary runners read it), so a long prompt lives in a Markdown file beside the pipeline. `prepareGraph` reads them
 * with its file reader, before the transforms (so `$goal` in the file is expanded); lint `prompt_file` reports a file
 * that is missing or that could not be read.
 */
import type { Graph, GraphNode } from '../graph.js';
import type { Diagnostic } from './diagnostic.js';
import type { GraphFileReader } from './graph-refs.js';
import { resolveGraphRef } from './resolve-graph-ref.js';
import { attributeSpan, nodeSpan, plainSpan } from './source-location.js';

const PROMPT_FILE = /^@([^\s"]+)$/;

/**
 * The file a prompt names, as written after the `@`, or `undefined` for a prompt that is text: the whole (trimmed)
 * value must be `@` and a path without blanks that has a `/` or a `.` (`@prompts/plan.md`, `@plan.md`).
 */
export function promptFileRef(prompt: string): string | undefined {
  const path = PROMPT_FILE.exec(prompt.trim())?.[1];
  return path !== undefined && (path.includes('/') || path.includes('.')) ? path : undefined;
}

/**
 * Gives each node whose `prompt` names a file ({@link promptFileRef}) the file's text as its prompt (the typed
 * `node.prompt`; `node.attributes.prompt` keeps the `@path` as written). Paths are relative to the directory of the
 * graph's file. A file that does not exist or cannot be read, or a graph prepared without a reader, leaves the prompt
 * as written and yields a `prompt_file` warning at the attribute's value.
 */
export function readPromptFiles(
  graph: Graph,
  read: GraphFileReader | undefined,
): { readonly graph: Graph; readonly diagnostics: readonly Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const texts = new Map<string, string | Error | undefined>();
  let changed = false;
  const nodes = [...graph.nodes.values()].map((node): GraphNode => {
    const attribute = node.attributes.prompt;
    const ref = attribute === undefined ? undefined : promptFileRef(attribute.value);
    if (ref === undefined) return node;
    const path = resolveGraphRef({ ref, parentFilename: graph.filename });
    if (!texts.has(path) && read !== undefined) {
      try {
        texts.set(path, read(path));
      } catch (error) {
        texts.set(path, error instanceof Error ? error : new Error(String(error)));
      }
    }
    const text = texts.get(path);
    if (typeof text === 'string') {
      changed = true;
      return { ...node, prompt: text };
    }
    const problem =
      read === undefined
        ? `names the prompt file "${ref}", which is not read here (the pipeline was given as text, not as a file)`
        : text === undefined
          ? `names the prompt file "${ref}", which does not exist (looked for ${path})`
          : `names the prompt file "${ref}", which cannot be read (${path}: ${text.message})`;
    const span = attributeSpan(attribute, nodeSpan(node));
    diagnostics.push({
      rule: 'prompt_file',
      severity: 'warning',
      message: `The prompt of "${node.id}" ${problem}; the stage would be sent "${attribute!.value.trim()}" as its prompt.`,
      nodeId: node.id,
      fix:
        read === undefined
          ? 'Run the pipeline from its file (attractor run <file.dot>), or write the prompt into the DOT file.'
          : `Create ${path}, or fix the path (relative to the directory of this DOT file).`,
      ...(span === undefined ? {} : { span: plainSpan(span) }),
    });
    return node;
  });
  return { graph: changed ? graph.with({ nodes }) : graph, diagnostics };
}
