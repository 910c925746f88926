import type { CodergenBackend } from '../codergen-backend.js';
import { describeCodergenBackendContract } from './codergen-backend-contract.js';

/** A reference backend: echoes the prompt, honours the signal, reports a usage event. */
const echo: CodergenBackend = {
  async run(request) {
    if (request.abortSignal.aborted) return { status: 'fail', failureReason: 'cancelled' };
    request.emit({ type: 'agent.usage', inputTokens: request.prompt.length, outputTokens: 3 });
    return `echo: ${request.prompt}`;
  },
};

describeCodergenBackendContract('echo reference backend', { createBackend: () => echo });
