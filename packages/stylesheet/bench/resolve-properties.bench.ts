import { bench, describe } from 'vitest';
import { parseStylesheet } from '../src/parse-stylesheet.js';
import { resolveProperties } from '../src/resolve-properties.js';

const text = `
  * { llm_model: claude-opus-4-6; llm_provider: anthropic; reasoning_effort: high; }
  .implement { llm_model: gpt-5.4; llm_provider: openai; reasoning_effort: high; }
  .draft { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }
  .opinion { llm_model: gemini-3.5-flash; llm_provider: gemini; reasoning_effort: high; }
  #critical_review { llm_model: gpt-5.2; llm_provider: openai; reasoning_effort: high; }
`;
const stylesheet = parseStylesheet(text);
const node = { id: 'critical_review', shape: 'box', classes: ['draft', 'implement'] };

describe('a five-rule stylesheet (the corpus kitchen-sink plus an id rule)', () => {
  bench('parseStylesheet', () => {
    parseStylesheet(text);
  });
  bench('resolveProperties for one node', () => {
    resolveProperties(stylesheet, node);
  });
});
