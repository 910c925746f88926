import { describe, expect, it } from 'vitest';
import { parseStylesheet } from '../src/parse-stylesheet.js';
import { resolveProperties } from '../src/resolve-properties.js';
import { corpusDirectory, readCorpusStylesheets } from './read-corpus.js';

const stylesheets = readCorpusStylesheets();

/**
 * The diagnostics each corpus stylesheet produces, as `code: text at the span -> suggestion`.
 * Fabro's stylesheets write `model:` and `provider:` where spec §8.4 says `llm_model` and
 * `llm_provider`; every other stylesheet uses the spec's properties and values.
 */
const EXPECTED_DIAGNOSTICS: Readonly<Record<string, readonly string[]>> = {
  '2389-research__tracker__kitchen-sink.dot': [],
  'danshapiro__kilroy__green-test-complex.dot': [],
  'danshapiro__kilroy__multi-tool-exercise-graph.dot': [],
  'danshapiro__kilroy__reference_template.dot': [],
  'danshapiro__kilroy__rogue-fast.dot': [],
  'danshapiro__kilroy__simple_example.dot': [],
  'danshapiro__kilroy__substack-spec-v01.dot': [],
  'fabro-sh__fabro__11-ensemble.dot': [
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: provider -> llm_provider',
    'unknown_property: model -> llm_model',
  ],
  'fabro-sh__fabro__implement-feature.dot': [
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
  ],
  'fabro-sh__fabro__spec-dod-multimodel.dot': [
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
    'unknown_property: model -> llm_model',
  ],
};

describe.skipIf(corpusDirectory === undefined)(
  'parseStylesheet on the corpus of real pipelines (spec §8)',
  () => {
    it('finds every stylesheet of the corpus', () => {
      expect(stylesheets.map((stylesheet) => stylesheet.file).sort()).toEqual(
        Object.keys(EXPECTED_DIAGNOSTICS).sort(),
      );
    });

    it.each(stylesheets.map((stylesheet) => [stylesheet.file, stylesheet.text] as const))(
      '%s parses with the recorded diagnostics',
      (file, text) => {
        const { rules, diagnostics } = parseStylesheet(text);
        expect(rules.length).toBeGreaterThan(0);
        expect(
          diagnostics.map(
            (diagnostic) =>
              `${diagnostic.code}: ${text.slice(diagnostic.span.offset, diagnostic.span.offset + diagnostic.span.length)} -> ${diagnostic.suggestion}`,
          ),
        ).toEqual(EXPECTED_DIAGNOSTICS[file]);
      },
    );

    it('resolves the kitchen-sink stylesheet by class with the * rule as the default', () => {
      const text = stylesheets.find(
        (stylesheet) => stylesheet.file === '2389-research__tracker__kitchen-sink.dot',
      )!.text;
      const stylesheet = parseStylesheet(text);
      const values = (classes: string[]) =>
        Object.fromEntries(
          Object.entries(resolveProperties(stylesheet, { id: 'n', shape: 'box', classes })).map(
            ([key, { value }]) => [key, value],
          ),
        );
      expect(values([])).toEqual({
        llm_model: 'claude-opus-4-6',
        llm_provider: 'anthropic',
        reasoning_effort: 'high',
      });
      expect(values(['opinion'])).toEqual({
        llm_model: 'gemini-3.5-flash',
        llm_provider: 'gemini',
        reasoning_effort: 'high',
      });
      expect(values(['draft', 'implement'])).toEqual({
        llm_model: 'gpt-5.2',
        llm_provider: 'openai',
        reasoning_effort: 'high',
      });
    });

    it('keeps the reasoning_effort of a Fabro rule while ignoring its model', () => {
      const text = stylesheets.find(
        (stylesheet) => stylesheet.file === 'fabro-sh__fabro__implement-feature.dot',
      )!.text;
      const resolved = resolveProperties(parseStylesheet(text), {
        id: 'review',
        shape: 'box',
        classes: ['coding'],
      });
      expect(Object.keys(resolved)).toEqual(['reasoning_effort']);
      expect(resolved.reasoning_effort?.value).toBe('high');
      expect(resolved.reasoning_effort?.rule.selector).toMatchObject({ kind: 'id', value: 'review' });
    });
  },
);
