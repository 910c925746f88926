/**
 * The built-in handlers' declarations (spec §4.3–§4.11, §9.4): their capabilities ({@link SPEC_HANDLER_TRAITS}) and
 * the zod schema of the node attributes each reads, made from the attribute table's value types. The handlers
 * package passes them to the engine's `defineHandler` like any handler's (`defineHandler({ type: 'tool',
 * ...SPEC_HANDLER_DECLARATIONS.tool, execute })`), and lint falls back on them for a handler type no registered
 * handler declares, so a graph validated without a registry is checked with the schemas its handlers run with.
 */
import * as z from 'zod/mini';
import type { BuiltInHandlerType, Graph, GraphNode } from './graph.js';
import {
  type AttributesSchema,
  attributeChecks,
  attributeSchema,
  lenientAttributeSchema,
} from './handler-attributes.js';
import { type HandlerTraits, SPEC_HANDLER_TRAITS } from './handler-traits.js';
import type { HandlerLintInfo } from './lint/diagnostic.js';

/** The attributes every handler that calls the LLM with the node's prompt reads (spec §4.5, §5.4, §8). */
const LLM_ATTRIBUTES = {
  prompt: attributeSchema('prompt'),
  llm_model: attributeSchema('llm_model'),
  llm_provider: attributeSchema('llm_provider'),
  reasoning_effort: attributeSchema('reasoning_effort'),
  backend: attributeSchema('backend'),
  // A bad fidelity is `fidelity_valid`'s warning: the stage runs with the default mode.
  fidelity: lenientAttributeSchema('fidelity'),
  thread_id: attributeSchema('thread_id'),
  'tool_hooks.pre': attributeSchema('tool_hooks.pre'),
  'tool_hooks.post': attributeSchema('tool_hooks.post'),
  // Under the sandbox: whether the AI backend's shell commands and tool hooks keep the network.
  sandbox_network: attributeSchema('sandbox_network'),
  mcp_servers: attributeSchema('mcp_servers'),
};

/**
 * The declarations of the spec's built-in handler types: `SPEC_HANDLER_TRAITS` plus `attributes`, the zod object
 * schema of the node attributes the handler reads (each optional, typed by {@link attributeSchema}: `max_parallel`
 * parses to a number, `join_policy` to a `JoinPolicy`, `manager.poll_interval` to milliseconds).
 */
export const SPEC_HANDLER_DECLARATIONS = {
  start: { ...SPEC_HANDLER_TRAITS.start, attributes: z.object({}) },
  exit: { ...SPEC_HANDLER_TRAITS.exit, attributes: z.object({}) },
  codergen: {
    ...SPEC_HANDLER_TRAITS.codergen,
    attributes: z.object({
      ...LLM_ATTRIBUTES,
      tools: attributeSchema('tools'),
      output_schema: attributeSchema('output_schema'),
      out_map: attributeSchema('out_map'),
    }),
  },
  'wait.human': {
    ...SPEC_HANDLER_TRAITS['wait.human'],
    attributes: z.object({
      'human.default_choice': attributeSchema('human.default_choice'),
      'human.input': attributeSchema('human.input'),
      'human.context_key': attributeSchema('human.context_key'),
    }),
  },
  conditional: { ...SPEC_HANDLER_TRAITS.conditional, attributes: z.object({}) },
  parallel: {
    ...SPEC_HANDLER_TRAITS.parallel,
    attributes: z.object({
      max_parallel: attributeSchema('max_parallel'),
      join_policy: attributeSchema('join_policy'),
      join_k: attributeSchema('join_k'),
      branch_timeout: attributeSchema('branch_timeout'),
    }),
  },
  'parallel.fan_in': {
    ...SPEC_HANDLER_TRAITS['parallel.fan_in'],
    attributes: z.object({
      ...LLM_ATTRIBUTES,
      fan_in_mode: attributeSchema('fan_in_mode'),
      join_merge: attributeSchema('join_merge'),
    }),
  },
  tool: {
    ...SPEC_HANDLER_TRAITS.tool,
    attributes: z.object({
      tool_command: attributeSchema('tool_command'),
      tool_output_max_bytes: attributeSchema('tool_output_max_bytes'),
      sandbox_network: attributeSchema('sandbox_network'),
      output_schema: attributeSchema('output_schema'),
      out_map: attributeSchema('out_map'),
    }),
  },
  'stack.manager_loop': {
    ...SPEC_HANDLER_TRAITS['stack.manager_loop'],
    attributes: z.object({
      prompt: attributeSchema('prompt'),
      'stack.child_dotfile': attributeSchema('stack.child_dotfile'),
      'stack.child_workdir': attributeSchema('stack.child_workdir'),
      'stack.child_autostart': attributeSchema('stack.child_autostart'),
      'manager.poll_interval': attributeSchema('manager.poll_interval'),
      'manager.max_cycles': attributeSchema('manager.max_cycles'),
      'manager.stop_condition': attributeSchema('manager.stop_condition'),
      'manager.actions': attributeSchema('manager.actions'),
    }),
  },
  subgraph: {
    ...SPEC_HANDLER_TRAITS.subgraph,
    attributes: z.object({ graph_ref: attributeSchema('graph_ref'), out_map: attributeSchema('out_map') }),
  },
  foreach: {
    ...SPEC_HANDLER_TRAITS.foreach,
    attributes: z.object({
      over: attributeSchema('over'),
      as: attributeSchema('as'),
      mode: attributeSchema('mode'),
      max_parallel: attributeSchema('max_parallel'),
      on_item_error: attributeSchema('on_item_error'),
      collect: attributeSchema('collect'),
      branch_timeout: attributeSchema('branch_timeout'),
    }),
  },
} satisfies Record<BuiltInHandlerType, HandlerTraits & { readonly attributes: AttributesSchema }>;

/** The keys a built-in handler declares, made on first use. */
let handlerKeys: ReadonlySet<string> | undefined;

/**
 * The keys some built-in handler declares in its attribute schema: the keys only some handlers read (`tool_command`,
 * `join_policy`, a foreach's `mode`…); every other known key applies to every node.
 */
export function builtInHandlerKeys(): ReadonlySet<string> {
  handlerKeys ??= new Set(
    [...specHandlerLintInfo().values()].flatMap((declaration) => declaration.attributeKeys ?? []),
  );
  return handlerKeys;
}

/** The spec declarations as lint reads them, made on first use. */
let specLintInfo: ReadonlyMap<string, HandlerLintInfo> | undefined;

/** The built-in handler types' lint info (traits, outcomes, attribute keys and checks), in declaration order. */
export function specHandlerLintInfo(): ReadonlyMap<string, HandlerLintInfo> {
  specLintInfo ??= new Map(
    Object.entries(SPEC_HANDLER_DECLARATIONS).map(([type, { attributes, ...traits }]) => [
      type,
      { ...traits, ...attributeChecks(attributes) },
    ]),
  );
  return specLintInfo;
}

/**
 * What the handler of handler type `type` declares (attributes, outcomes, capabilities): the registered handler's
 * declaration (`declared`, e.g. `HandlerRegistry.lintInfo()`), else the built-in one of {@link
 * SPEC_HANDLER_DECLARATIONS}, else undefined (a custom type nothing declares). Pure.
 */
export function declarationOfType(
  type: string,
  declared?: ReadonlyMap<string, HandlerLintInfo>,
): HandlerLintInfo | undefined {
  return declared?.get(type) ?? specHandlerLintInfo().get(type);
}

/** {@link declarationOfType} of a node's handler type (`graph.handlerType(node)`). Pure. */
export function handlerDeclaration(
  graph: Graph,
  node: GraphNode,
  declared?: ReadonlyMap<string, HandlerLintInfo>,
): HandlerLintInfo | undefined {
  return declarationOfType(graph.handlerType(node), declared);
}

/** The attribute keys of each declaration, as a set (lint asks for every attribute of every node). */
const keySets = new WeakMap<HandlerLintInfo, ReadonlySet<string>>();

/** Whether `declaration` lists `key` among its `attributeKeys`. Pure. */
export function declaresAttribute(declaration: HandlerLintInfo | undefined, key: string): boolean {
  if (declaration?.attributeKeys === undefined) return false;
  let keys = keySets.get(declaration);
  if (keys === undefined) {
    keys = new Set(declaration.attributeKeys);
    keySets.set(declaration, keys);
  }
  return keys.has(key);
}
