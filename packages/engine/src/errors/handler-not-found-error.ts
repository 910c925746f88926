import { AttractorError, isErrorOf } from '@attractor/errors';

/**
 * Thrown by `HandlerRegistry.resolve` when no handler matches a node's type or shape and the registry has no
 * default handler. The run loop turns it into a FAIL of that node.
 */
export class HandlerNotFoundError extends AttractorError<'HANDLER_NOT_FOUND'> {
  override readonly name = 'HandlerNotFoundError';
  readonly nodeId: string;
  /** The handler type the node resolved to (explicit `type` or from its shape). */
  readonly handlerType: string;
  readonly retryable = false;

  constructor(options: {
    nodeId: string;
    handlerType: string;
    registered: readonly string[];
    location?: string;
  }) {
    const where = options.location === undefined ? '' : ` (${options.location})`;
    super({
      code: 'HANDLER_NOT_FOUND',
      message:
        `No handler is registered for type "${options.handlerType}" of node "${options.nodeId}"${where}. ` +
        `Registered types: ${options.registered.length === 0 ? '(none)' : options.registered.join(', ')}. ` +
        `Register one with registry.register("${options.handlerType}", handler) or fix the node's type/shape.`,
    });
    this.nodeId = options.nodeId;
    this.handlerType = options.handlerType;
  }

  /** True for a `HandlerNotFoundError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(HandlerNotFoundError);
}
