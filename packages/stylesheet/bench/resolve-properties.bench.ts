import { test } from 'vitest';
import { parseStylesheet as parseStylesheetExport } from '../src/parse-stylesheet.js';
import { resolveProperties as resolvePropertiesExport } from '../src/resolve-properties.js';

// A benchmark takes as long as its samples take: minutes on a loaded 2-core machine, not vitest's default limit.
const BENCH_TIMEOUT_MS = 900_000;

// Bound once: vitest 5 runs benchmarks through its module runner, whose export getters would be timed too.
const parseStylesheet = parseStylesheetExport;
const resolveProperties = resolvePropertiesExport;

const text = `
  * { llm_model: claude-opus-4-6; llm_provider: anthropic; reasoning_effort: high; }
  .implement { llm_model: gpt-5.4; llm_provider: openai; reasoning_effort: high; }
  .draft { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }
  .opinion { llm_model: gemini-3.5-flash; llm_provider: gemini; reasoning_effort: high; }
  #critical_review { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }
`;
const stylesheet = parseStylesheet(text);
const node = { id: 'critical_review', shape: 'box', classes: ['draft', 'implement'] };

test('a five-rule stylesheet (the corpus kitchen-sink plus an id rule)', {
  timeout: BENCH_TIMEOUT_MS,
}, async ({ bench }) => {
  await bench.compare(
    bench('parseStylesheet', () => {
      parseStylesheet(text);
    }),
    bench('resolveProperties for one node', () => {
      resolveProperties(stylesheet, node);
    }),
  );
});
