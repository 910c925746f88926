/**
 * The zod schemas of the API's request bodies (spec §9.5). Unknown fields are refused so a typo is reported, not
 * silently ignored.
 */
import { z } from 'zod';
import { forkContextSchema } from './fork-context.js';

/** `POST /pipelines`: DOT text or a file under the pipelines directory, plus backend and run options. */
export const startPipelineBodySchema = z
  .strictObject({
    dot: z.string().min(1, 'dot must not be empty').optional(),
    file: z.string().min(1, 'file must not be empty').optional(),
    simulate: z.boolean().optional(),
    model: z.string().min(1).optional(),
    provider: z.string().min(1).optional(),
    maxSteps: z.number().int().positive().optional(),
    context: z.record(z.string(), z.json()).optional(),
    /** The pipeline's inputs (README "Typed data"), checked against the graph's `inputs` before the run starts. */
    inputs: z.record(z.string(), z.json()).optional(),
  })
  .refine((body) => (body.dot === undefined) !== (body.file === undefined), {
    message:
      'Send exactly one of "dot" (DOT source text) and "file" (a .dot path under the pipelines directory).',
  });

/** The body of `POST /pipelines`. */
export type StartPipelineBody = z.infer<typeof startPipelineBodySchema>;

/** `POST /pipelines/{id}/questions/{qid}/answer`: an option key or label, yes/no, or text. */
export const answerBodySchema = z
  .strictObject({
    value: z.string().optional(),
    text: z.string().optional(),
  })
  .refine((body) => body.value !== undefined || body.text !== undefined, {
    message: 'Send {"value": <option key, yes or no>} or {"text": <free text>}.',
  });

/** `POST /pipelines/{id}/resume`: optionally the node to continue at. */
export const resumeBodySchema = z.strictObject({
  from: z.string().min(1).optional(),
});

/**
 * Body of `POST /pipelines/{id}/fork`: the completed stage to fork after (`node` or `node@visit`, the latest visit
 * by default), optionally an edited DOT source for the new run (default: the source run's), context values to set over
 * the checkpoint's, and whether to simulate its LLM stages (default: as the source run was started; false for a run
 * the server did not start).
 */
export const forkBodySchema = z.strictObject({
  from: z.string().min(1),
  dot: z.string().min(1).optional(),
  simulate: z.boolean().optional(),
  /** Values set over the checkpoint's context (see {@link forkContextSchema}). Default: none. */
  context: forkContextSchema.optional(),
});
