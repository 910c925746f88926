import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z as zod } from 'zod';
import * as z from 'zod/mini';
import { ATTRIBUTE_DEFINITIONS, type AttributeKey } from './attribute-schema.js';
import { BUILT_IN_HANDLER_TYPE_NAMES } from './graph.js';
import { attributeChecks, attributeSchema, lenientAttributeSchema } from './handler-attributes.js';
import { SPEC_HANDLER_TRAITS } from './handler-traits.js';
import { SPEC_HANDLER_DECLARATIONS } from './spec-handler-declarations.js';

/** Values of every value type of the table, good and bad. */
const SAMPLES = [
  '',
  'x',
  '0',
  '3',
  ' 4 ',
  '-1',
  '2.5',
  'true',
  'false',
  '15m',
  '250ms',
  '300',
  'none',
  'all',
  'read_file,grep',
  'rm',
  'observe, steer',
  'dance',
  'wait_all',
  'k_of_n',
  'merge',
  'pick',
  'text',
  'voice',
  'low',
  'api',
  'claude',
  'summary:high',
];

describe('SPEC_HANDLER_DECLARATIONS', () => {
  it('declares every built-in handler type with its spec traits and a zod object schema', () => {
    expect(Object.keys(SPEC_HANDLER_DECLARATIONS)).toEqual(Object.keys(SPEC_HANDLER_TRAITS));
    expect(new Set(Object.keys(SPEC_HANDLER_DECLARATIONS))).toEqual(new Set(BUILT_IN_HANDLER_TYPE_NAMES));
    for (const [type, { attributes, ...traits }] of Object.entries(SPEC_HANDLER_DECLARATIONS)) {
      expect(traits).toEqual(SPEC_HANDLER_TRAITS[type]);
      expect(attributes._zod.def.type).toBe('object');
    }
  });

  it('declares only node keys of the attribute table, typed as the table types them', () => {
    for (const { attributes } of Object.values(SPEC_HANDLER_DECLARATIONS)) {
      const { checkAttributes, parseAttributes } = attributeChecks(attributes);
      for (const key of Object.keys(attributes.shape)) {
        const definition = ATTRIBUTE_DEFINITIONS[key as AttributeKey];
        expect(definition?.scopes, key).toContain('node');
        for (const text of SAMPLES) {
          const typed = definition.parse(text);
          const parsed = parseAttributes({ [key]: text });
          // fidelity is lenient: fidelity_valid warns about a bad mode and the stage runs with the default.
          expect(parsed, `${key}="${text}"`).toEqual(
            typed === undefined && key !== 'fidelity'
              ? { ok: false, problems: checkAttributes({ [key]: text }) }
              : { ok: true, value: { [key]: typed } },
          );
        }
      }
    }
  });

  it('parses DOT strings into typed values, durations in milliseconds', () => {
    const { parseAttributes } = attributeChecks(SPEC_HANDLER_DECLARATIONS.parallel.attributes);
    expect(parseAttributes({ max_parallel: '3', join_policy: 'quorum', branch_timeout: '2m' })).toEqual({
      ok: true,
      value: { max_parallel: 3, join_policy: 'quorum', branch_timeout: 120_000 },
    });
    const manager = attributeChecks(SPEC_HANDLER_DECLARATIONS['stack.manager_loop'].attributes);
    expect(manager.parseAttributes({ 'manager.actions': 'observe, steer' })).toEqual({
      ok: true,
      value: { 'manager.actions': ['observe', 'steer'] },
    });
    expect(
      attributeChecks(SPEC_HANDLER_DECLARATIONS.codergen.attributes).parseAttributes({ tools: 'none' }),
    ).toEqual({ ok: true, value: { tools: [] } });
  });
});

describe('attributeSchema and attributeChecks', () => {
  it("words a bad value with the table's expectation and carries it as `expected`", () => {
    const checks = attributeChecks(z.object({ join_k: attributeSchema('join_k') }));
    expect(checks.attributeKeys).toEqual(['join_k']);
    expect(checks.checkAttributes({ join_k: 'two' })).toEqual([
      {
        key: 'join_k',
        message: 'expected a positive integer such as 4',
        expected: 'a positive integer such as 4',
      },
    ]);
    expect(checks.checkAttributes({})).toEqual([]);
  });

  it("reports another schema's issues with zod's message and no `expected`", () => {
    const checks = attributeChecks(zod.object({ region: zod.enum(['eu', 'us']) }));
    const [problem, ...rest] = checks.checkAttributes({ region: 'mars' });
    expect(rest).toEqual([]);
    expect(problem).toEqual({ key: 'region', message: 'Invalid option: expected one of "eu"|"us"' });
  });

  it('reports a missing required key, and checks of the whole object, like a parse of the whole object', () => {
    const required = attributeChecks(
      zod.object({ region: zod.enum(['eu', 'us']), note: zod.optional(zod.string()) }),
    );
    expect(required.checkAttributes({ note: 'x' })).toEqual([
      { key: 'region', message: 'Invalid option: expected one of "eu"|"us"' },
    ]);
    expect(required.checkAttributes({ region: 'eu' })).toEqual([]);
    const exclusive = attributeChecks(
      zod
        .object({ a: zod.optional(zod.string()), b: zod.optional(zod.string()) })
        .refine((value) => value.a === undefined || value.b === undefined, {
          message: 'a or b',
          path: ['b'],
        }),
    );
    expect(exclusive.checkAttributes({ a: '1' })).toEqual([]);
    expect(exclusive.checkAttributes({ a: '1', b: '2' })).toEqual([{ key: 'b', message: 'a or b' }]);
  });

  it('lets a lenient key through as undefined', () => {
    const checks = attributeChecks(z.object({ fidelity: lenientAttributeSchema('fidelity') }));
    expect(checks.parseAttributes({ fidelity: 'fulll' })).toEqual({
      ok: true,
      value: { fidelity: undefined },
    });
    expect(checks.parseAttributes({ fidelity: 'compact' })).toEqual({
      ok: true,
      value: { fidelity: 'compact' },
    });
  });
});

/** Every non-test `.ts` file under `directory`, except the test kit in `src/test/`. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .filter(
      (path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.split(/[\\/]/).includes('test'),
    )
    .map((path) => join(directory, path));
}

/** The code of a TypeScript file without its comments (good enough for the sources checked here). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

describe('who names a built-in handler type', () => {
  const packages = fileURLToPath(new URL('../../', import.meta.url));
  const files = [
    ...sourceFiles(join(packages, 'engine', 'src')),
    ...sourceFiles(join(packages, 'graph', 'src', 'lint')),
    join(packages, 'graph', 'src', 'attribute-schema.ts'),
  ];
  const quotedType =
    /'(wait\.human|parallel\.fan_in|stack\.manager_loop|codergen|tool|conditional|subgraph|parallel)'/g;

  it('checks the engine, the lint rules and the attribute table', () => {
    expect(files.length).toBeGreaterThan(60);
    expect(files.some((file) => file.endsWith(join('lint', 'rules', 'inert-attribute.ts')))).toBe(true);
    expect(files.some((file) => file.endsWith(join('engine', 'src', 'run-pipeline.ts')))).toBe(true);
    // The pattern finds a quoted type in code, not in a comment.
    expect(withoutComments("// 'tool'\nconst type = 'tool';").match(quotedType)).toEqual(["'tool'"]);
  });

  it('finds no quoted built-in type there: they ask the declarations (handler-traits, spec-handler-declarations)', () => {
    const named = files.flatMap((file) =>
      [...withoutComments(readFileSync(file, 'utf8')).matchAll(quotedType)].map(
        (match) => `${file.slice(packages.length)}: ${match[0]}`,
      ),
    );
    expect(named).toEqual([]);
  });
});
