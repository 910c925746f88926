/**
 * The handler registry of spec §4.2: handler type string → handler, with shape-based resolution and a default.
 */
import {
  type Graph,
  type GraphNode,
  type HandlerLintInfo,
  type HandlerTraits,
  handlerTraits,
  SHAPE_TO_HANDLER_TYPE,
} from '@attractor/graph';
import { type DeclaredHandler, isDeclaredHandler } from './define-handler.js';
import { HandlerNotFoundError } from './errors/handler-not-found-error.js';
import type { Handler } from './handler.js';

/** Options of {@link HandlerRegistry}'s constructor. */
export interface HandlerRegistryOptions {
  /** Handlers by type string, registered in order. */
  readonly handlers?: Readonly<Record<string, Handler>>;
  /**
   * The handler for nodes whose type and shape match nothing registered (spec §4.2 step 3; normally the codergen
   * handler). Default: none, so such nodes fail with `HandlerNotFoundError`.
   */
  readonly defaultHandler?: Handler;
}

/**
 * Maps handler type strings to handlers (spec §4.2).
 *
 * Resolution order: (1) the node's explicit `type` when registered, (2) the type its `shape` maps to
 * (spec §2.8) when registered, (3) the default handler.
 *
 * @example
 * const registry = new HandlerRegistry({ defaultHandler: codergen });
 * registry.register('my_custom_type', myHandler);
 * registry.resolve(graph.node('review')!, graph);
 */
export class HandlerRegistry {
  readonly #handlers = new Map<string, Handler>();
  #defaultHandler: Handler | undefined;

  constructor(options: HandlerRegistryOptions = {}) {
    for (const [type, handler] of Object.entries(options.handlers ?? {})) this.register(type, handler);
    this.#defaultHandler = options.defaultHandler;
  }

  /**
   * Registers a handler for a type string, or a declared handler (`defineHandler`) under its own type; registering
   * an already-registered type replaces its handler.
   */
  register(handler: DeclaredHandler): this;
  register(type: string, handler: Handler): this;
  register(typeOrHandler: string | DeclaredHandler, handler?: Handler): this {
    if (typeof typeOrHandler === 'string') this.#handlers.set(typeOrHandler, handler!);
    else this.#handlers.set(typeOrHandler.type, typeOrHandler);
    return this;
  }

  /**
   * What the registered declared handlers say about themselves, by type, for `validate(graph, { handlers })` of
   * `@attractor/graph`: their attribute keys and schema checks, and their outcomes.
   */
  lintInfo(): Map<string, HandlerLintInfo> {
    const info = new Map<string, HandlerLintInfo>();
    for (const [type, handler] of this.#handlers)
      if (isDeclaredHandler(handler)) info.set(type, handler.lintInfo);
    return info;
  }

  /**
   * The capabilities of the handler a node resolves to (what the engine asks instead of comparing type strings):
   * a handler made by `defineHandler` declares its own; for a plain handler, or a node no registered type matches,
   * they are the spec's for the node's handler type (`SPEC_HANDLER_TRAITS` of `@attractor/graph`).
   */
  traitsOf(node: GraphNode, graph: Graph): HandlerTraits {
    const type = this.resolveType(node);
    const handler = type === undefined ? undefined : this.#handlers.get(type);
    if (handler !== undefined && isDeclaredHandler(handler)) return handler.traits;
    return handlerTraits(graph, node);
  }

  /** Sets (or with `undefined`, clears) the default handler. */
  setDefault(handler: Handler | undefined): this {
    this.#defaultHandler = handler;
    return this;
  }

  /** The default handler, if any. */
  get defaultHandler(): Handler | undefined {
    return this.#defaultHandler;
  }

  /** Whether a handler is registered for this exact type string (the default handler does not count). */
  has(type: string): boolean {
    return this.#handlers.has(type);
  }

  /** The handler registered for a type string, if any. */
  get(type: string): Handler | undefined {
    return this.#handlers.get(type);
  }

  /** The registered type strings in registration order (for lint's `type_known` rule). */
  types(): string[] {
    return [...this.#handlers.keys()];
  }

  /**
   * The type string a node resolves to in this registry: its explicit `type` if registered, else its shape's type
   * if registered, else `undefined` (the default handler applies).
   */
  resolveType(node: GraphNode): string | undefined {
    if (node.type !== undefined && node.type !== '' && this.#handlers.has(node.type)) return node.type;
    const shapeType = (SHAPE_TO_HANDLER_TYPE as Record<string, string | undefined>)[node.shape];
    if (shapeType !== undefined && this.#handlers.has(shapeType)) return shapeType;
    return undefined;
  }

  /**
   * The handler for a node (spec §4.2).
   * @throws {HandlerNotFoundError} when nothing matches and there is no default handler.
   */
  resolve(node: GraphNode, graph: Graph): Handler {
    const type = this.resolveType(node);
    if (type !== undefined) return this.#handlers.get(type)!;
    if (this.#defaultHandler !== undefined) return this.#defaultHandler;
    const span = node.span;
    const filename = span?.filename ?? graph.filename;
    const location =
      span === undefined ? filename : `${filename ?? '<input>'}:${span.start.line}:${span.start.column}`;
    throw new HandlerNotFoundError({
      nodeId: node.id,
      handlerType: graph.handlerType(node),
      registered: this.types(),
      ...(location === undefined ? {} : { location }),
    });
  }
}
