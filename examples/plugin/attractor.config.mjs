// Plug-ins for the attractor CLI in this project: `attractor run`, `resume`, `fork`, `validate` and `serve` load
// this file from the working directory (or the file --config names).
import { defineHandler } from '@attractor/engine';
import { z } from 'zod';

// A custom handler: nodes with type="deploy" run it. Lint checks `region` against the schema and conditions on
// its outcomes against `outcomes`.
const deploy = defineHandler({
  type: 'deploy',
  attributes: z.object({
    region: z.enum(['eu', 'us']),
    replicas: z.coerce.number().int().positive().optional(),
  }),
  outcomes: ['success', 'fail'],
  async execute({ node, attributes }) {
    const replicas = attributes.replicas ?? 1;
    return {
      status: 'success',
      notes: `deployed ${replicas} replica(s) to ${attributes.region}`,
      contextUpdates: { [`${node.id}.region`]: attributes.region, [`${node.id}.replicas`]: replicas },
    };
  },
});

// An LLM backend of our own (here it only echoes the prompt's last line; a real one would call a model).
const echo = {
  async run(request) {
    return `Draft: ${request.prompt.trim().split('\n').at(-1)}`;
  },
};

// An interviewer of our own: approves every human gate with its first option.
const approveAll = {
  async ask(question) {
    const [first] = question.options;
    return first === undefined ? { value: 'yes' } : { value: first.key, selectedOption: first };
  },
};

export default {
  handlers: [deploy],
  backends: { echo },
  interviewers: { 'approve-all': approveAll },
  defaults: { backend: 'echo', interviewer: 'approve-all' },
};
