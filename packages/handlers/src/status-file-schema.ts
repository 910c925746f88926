/**
 * The `status.json` contract of spec Appendix C, checked with zod so a malformed file written by a command or an
 * agent fails the stage with a reason that names the file and the bad field.
 */
import type { JsonValue, Outcome } from '@attractor/engine';
import { statusFileToOutcome } from '@attractor/engine/internal';
import { z } from 'zod';

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ]),
);

/** Appendix C: `outcome` is required; the other fields are optional. Extra fields are ignored. */
const statusFileSchema = z.object({
  outcome: z.string().trim().min(1, 'must be an outcome word such as "success", "fail" or a custom word'),
  preferred_label: z.string().optional(),
  suggested_next_ids: z.array(z.string()).optional(),
  context_updates: z.record(z.string(), jsonValue).optional(),
  notes: z.string().optional(),
  failure_reason: z.string().optional(),
  retryable: z.boolean().optional(),
});

/**
 * Parses the text of a `status.json` (spec Appendix C) into an outcome. Never throws: invalid JSON or a field of
 * the wrong type gives a non-retryable FAIL outcome whose reason names `path` and the field.
 */
export function parseStatusFile(text: string, path: string): Outcome {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return {
      status: 'fail',
      failureReason: `${path} is not valid JSON (${(error as Error).message}); write an object such as {"outcome": "success"} (spec Appendix C)`,
      retryable: false,
    };
  }
  const parsed = statusFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length === 0 ? 'the file' : `"${issue.path.join('.')}"`;
    return {
      status: 'fail',
      failureReason: `${path} does not follow the status file contract (spec Appendix C): ${field} ${issue.message}`,
      retryable: false,
    };
  }
  return statusFileToOutcome(parsed.data);
}
