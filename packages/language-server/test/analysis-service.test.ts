/**
 * The analysis worker's queue (through `AnalysisService`, with the built worker of `dist/`): a job waits its delay in
 * the worker, a newer job of the same document replaces one still waiting, and a cancelled one is dropped. Each
 * replaced or cancelled job resolves at once, without its delay running out.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnalysisService } from '../src/analysis-service.js';

const WORKER = new URL('../dist/analysis-worker.js', import.meta.url);
/** Longer than any test may wait: a job with this delay that resolved was replaced or cancelled, not run. */
const NEVER_MS = 3_600_000;
const BROKEN = 'digraph G {\n  start [shape=Mdiamond]\n  start -> \n}\n';
const VALID = 'digraph G {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n';

let service: AnalysisService;
beforeEach(() => {
  service = new AnalysisService({ workerUrl: WORKER });
});
afterEach(async () => {
  await service.dispose();
});

describe('the analysis worker', () => {
  it('lints only the newest text of a document when newer ones come during the delay', async () => {
    const older = service.analyze({ document: 'file:///a.dot', delayMs: NEVER_MS, text: BROKEN });
    const other = service.analyze({ document: 'file:///b.dot', delayMs: 0, text: BROKEN });
    const newer = service.analyze({ document: 'file:///a.dot', delayMs: 0, text: VALID });
    expect(await older).toBeUndefined();
    expect((await newer)?.diagnostics.toJSON().filter((diagnostic) => diagnostic.severity === 1)).toEqual([]);
    // Another document's job is not replaced.
    expect((await other)?.diagnostics.toJSON().map((diagnostic) => diagnostic.code)).toEqual(['dot_syntax']);
  });

  it('drops a waiting job when its document is closed', async () => {
    const waiting = service.analyze({ document: 'file:///a.dot', delayMs: NEVER_MS, text: VALID });
    // The worker exists once the job is sent; cancel goes to it after the job.
    service.cancel('file:///a.dot');
    expect(await waiting).toBeUndefined();
    const next = await service.analyze({ document: 'file:///a.dot', delayMs: 0, text: BROKEN });
    expect(next?.diagnostics.toJSON().map((diagnostic) => diagnostic.code)).toEqual(['dot_syntax']);
    expect(next?.phases.map((phase) => phase.name)).toEqual([
      'to-worker',
      'debounce',
      'project',
      'lint',
      'convert',
      'from-worker',
    ]);
  });
});
