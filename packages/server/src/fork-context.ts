/**
 * The `context` of `POST /pipelines/{id}/fork`: values set over the source checkpoint's context (time travel: "Fork
 * from here" with an edited context). Keys the engine writes itself are refused, each with how to do it instead.
 */
import { z } from 'zod';
import { forkContextKeyProblem } from './fork-context-key-problem.js';

/** A fork's context edits: a JSON object whose keys pass {@link forkContextKeyProblem}. */
export const forkContextSchema = z
  .record(z.string(), z.json(), 'context must be a JSON object of key: value')
  .superRefine((context, issues) => {
    for (const key of Object.keys(context)) {
      const problem = forkContextKeyProblem(key);
      if (problem !== undefined) issues.addIssue({ code: 'custom', message: problem });
    }
  });
