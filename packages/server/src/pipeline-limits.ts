/**
 * Limits on what one request may ask the server to parse (issue 20 §3): the size of a pipeline, its nesting depth,
 * its attribute and node counts, the time its validation may take, and the depth of JSON in a request body. A
 * pipeline over a limit is refused before it is parsed (413 for size, 422 for the others) with the limit named, so
 * no request can stall the server or exhaust its memory.
 */
import { ApiError } from './errors/api-error.js';

/** The limits of {@link checkPipelineLimits} and the validation worker. */
export interface PipelineLimits {
  /** Largest pipeline source, in bytes (DOT text or a file of the pipelines directory). Default: 1,048,576 (1 MiB). */
  readonly maxPipelineBytes: number;
  /** Deepest nesting of `{ }` (subgraphs) in a pipeline. Default: 64. */
  readonly maxNestingDepth: number;
  /** Most attributes (`key=value`) in a pipeline. Default: 20,000. */
  readonly maxAttributes: number;
  /** Most nodes in a pipeline. Default: 5,000. */
  readonly maxNodes: number;
  /**
   * Longest a large pipeline's parse and validation may take in its worker thread, in milliseconds, counted from
   * when it starts (not while it waits for its turn). Default: 20,000.
   */
  readonly validateTimeoutMs: number;
  /** Largest heap of a validation worker thread, in megabytes. Default: 256. */
  readonly validateHeapMb: number;
  /** Deepest nesting of arrays and objects in a JSON request body (`context`). Default: 64. */
  readonly maxJsonDepth: number;
  /**
   * Largest pipeline validated on the server's own thread, in characters; larger ones go to a worker thread. Parse
   * and lint are linear in the text, so this bounds how long one validation holds the thread (a 17-node pipeline is
   * ~1.5 KB). Default: 32,768.
   */
  readonly inProcessBytes: number;
  /** Worker threads that validate large pipelines at once (at most the machine's cores). Default: 2. */
  readonly validateThreads: number;
  /**
   * Pipelines that may wait for their validation; past it a start is refused with `503 SERVER_BUSY` and
   * `Retry-After`. Default: 10,000.
   */
  readonly maxQueuedValidations: number;
  /**
   * Graphs of valid pipelines (up to `inProcessBytes`) kept by their source text, so a pipeline started again is not
   * parsed again and its runs share one graph. Default: 64.
   */
  readonly graphCacheSize: number;
}

/** The default limits. */
export const DEFAULT_PIPELINE_LIMITS: PipelineLimits = {
  maxPipelineBytes: 1024 * 1024,
  maxNestingDepth: 64,
  maxAttributes: 20_000,
  maxNodes: 5_000,
  validateTimeoutMs: 20_000,
  validateHeapMb: 256,
  maxJsonDepth: 64,
  inProcessBytes: 32 * 1024,
  validateThreads: 2,
  maxQueuedValidations: 10_000,
  graphCacheSize: 64,
};

function limitError(status: 413 | 422, limit: keyof PipelineLimits, message: string): ApiError {
  return new ApiError({ status, code: 'LIMIT_EXCEEDED', message, details: { limit } });
}

/**
 * Checks a pipeline's size, nesting depth and attribute count with one linear pass over the text (strings and
 * comments skipped), before any parsing.
 * @throws {ApiError} `LIMIT_EXCEEDED`: 413 over `maxPipelineBytes`, 422 over `maxNestingDepth` or `maxAttributes`.
 */
export function checkPipelineLimits(source: string, limits: PipelineLimits): void {
  const bytes = Buffer.byteLength(source);
  if (bytes > limits.maxPipelineBytes) {
    throw limitError(
      413,
      'maxPipelineBytes',
      `The pipeline is ${bytes} bytes, over this server's limit of ${limits.maxPipelineBytes} bytes (maxPipelineBytes).`,
    );
  }
  let depth = 0;
  let attributes = 0;
  for (let index = 0; index < source.length; index++) {
    const character = source[index];
    if (character === '"') {
      for (index++; index < source.length && source[index] !== '"'; index++)
        if (source[index] === '\\') index++;
    } else if (character === '/' && source[index + 1] === '/') {
      while (index < source.length && source[index] !== '\n') index++;
    } else if (character === '/' && source[index + 1] === '*') {
      const end = source.indexOf('*/', index + 2);
      index = end === -1 ? source.length : end + 1;
    } else if (character === '{') {
      depth++;
      // The graph's own braces are level 1; subgraphs start at 2.
      if (depth - 1 > limits.maxNestingDepth) {
        throw limitError(
          422,
          'maxNestingDepth',
          `The pipeline nests subgraphs more than ${limits.maxNestingDepth} deep (maxNestingDepth); flatten it or split it into sub-pipelines (graph_ref).`,
        );
      }
    } else if (character === '}') {
      depth--;
    } else if (character === '=') {
      attributes++;
      if (attributes > limits.maxAttributes) {
        throw limitError(
          422,
          'maxAttributes',
          `The pipeline has more than ${limits.maxAttributes} attributes (maxAttributes).`,
        );
      }
    }
  }
}

/** @throws {ApiError} `LIMIT_EXCEEDED` (422) when the pipeline has more than `maxNodes` nodes. */
export function checkNodeCount(nodes: number, limits: PipelineLimits): void {
  if (nodes > limits.maxNodes) {
    throw limitError(
      422,
      'maxNodes',
      `The pipeline has ${nodes} nodes, over this server's limit of ${limits.maxNodes} (maxNodes).`,
    );
  }
}

/**
 * Checks the nesting depth of a parsed JSON value without recursion (a 100,000-deep array must not overflow the
 * stack here or in the schema check after it).
 * @throws {ApiError} `LIMIT_EXCEEDED` (422) deeper than `maxJsonDepth`.
 */
export function checkJsonDepth(value: unknown, limits: PipelineLimits): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= limits.maxJsonDepth) {
      throw limitError(
        422,
        'maxJsonDepth',
        `The request body nests arrays and objects more than ${limits.maxJsonDepth} deep (maxJsonDepth).`,
      );
    }
    for (const child of Object.values(item)) stack.push({ value: child, depth: depth + 1 });
  }
}
