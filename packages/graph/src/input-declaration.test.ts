import { describe, expect, it } from 'vitest';
import { parseInputDeclaration, parseOutputsDeclaration } from './input-declaration.js';
import { parseOutMap, parseOutputSchemaDeclaration } from './output-schema-declaration.js';

describe('parseInputDeclaration (README "Typed data")', () => {
  it('turns the compact form into an object schema that requires the names without ? and refuses others', () => {
    expect(parseInputDeclaration('repo: string, issue: integer, labels?: string[]')).toEqual({
      ok: true,
      declaration: {
        kind: 'fields',
        fields: [
          { name: 'repo', type: 'string', optional: false },
          { name: 'issue', type: 'integer', optional: false },
          { name: 'labels', type: 'string[]', optional: true },
        ],
        schema: {
          type: 'object',
          properties: {
            repo: { type: 'string' },
            issue: { type: 'integer' },
            labels: { type: 'array', items: { type: 'string' } },
          },
          required: ['repo', 'issue'],
          additionalProperties: false,
        },
      },
    });
  });

  it('reads lists of lists, any, and blanks around the parts', () => {
    const parsed = parseInputDeclaration(' grid :number [ ] [ ] , extra ? : any ');
    expect(parsed.ok && parsed.declaration.kind === 'fields' && parsed.declaration.schema).toEqual({
      type: 'object',
      properties: { grid: { type: 'array', items: { type: 'array', items: { type: 'number' } } }, extra: {} },
      required: ['grid'],
      additionalProperties: false,
    });
  });

  it('takes a value ending in .json for a JSON Schema file', () => {
    expect(parseInputDeclaration(' schemas/inputs.json ')).toEqual({
      ok: true,
      declaration: { kind: 'file', path: 'schemas/inputs.json' },
    });
  });

  it('reports an unknown type at the type, a bad name at the name, a duplicate and a missing colon', () => {
    const int = {
      message:
        '"int" is not a type: write one of string, integer, number, boolean, object, any, optionally followed by [] for a list',
      offset: 21,
      length: 3,
    };
    expect(parseInputDeclaration('repo: string, issue: int')).toEqual({
      ok: false,
      error: int,
      errors: [int],
    });
    expect(parseInputDeclaration('repo: string, 2x: string')).toMatchObject({
      ok: false,
      error: { offset: 14, length: 2 },
    });
    expect(parseInputDeclaration('repo: string, repo: integer')).toMatchObject({
      ok: false,
      error: { message: 'input "repo" is declared twice', offset: 14 },
    });
    expect(parseInputDeclaration('repo string')).toMatchObject({
      ok: false,
      error: { offset: 0, length: 11 },
    });
    expect(parseInputDeclaration('repo: string,')).toMatchObject({ ok: false, error: { offset: 13 } });
  });

  it('reports every bad entry, in the order they appear', () => {
    const parsed = parseInputDeclaration('a: strng, , 2x: string, a: string, b: int');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.errors.map((error) => [error.offset, error.message])).toEqual([
      [3, expect.stringContaining('"strng" is not a type')],
      [9, 'an empty entry (two commas, or a comma at the end)'],
      [12, expect.stringContaining('"2x" is not an input name')],
      [24, 'input "a" is declared twice'],
      [38, expect.stringContaining('"int" is not a type')],
    ]);
  });
});

describe('parseOutputsDeclaration', () => {
  it('lists dotted context keys and refuses other text', () => {
    expect(parseOutputsDeclaration('summary, review.verdict')).toEqual({
      ok: true,
      keys: ['summary', 'review.verdict'],
    });
    expect(parseOutputsDeclaration('')).toEqual({ ok: true, keys: [] });
    expect(parseOutputsDeclaration('summary, review..verdict')).toMatchObject({
      ok: false,
      error: { offset: 9, length: 15 },
    });
    expect(parseOutputsDeclaration('a, a')).toMatchObject({
      ok: false,
      error: { message: 'output "a" is listed twice' },
    });
  });
});

describe('parseOutputSchemaDeclaration and parseOutMap', () => {
  it('reads inline JSON, a file, and the compact form (other fields allowed)', () => {
    expect(parseOutputSchemaDeclaration('{"type": "object", "required": ["verdict"]}')).toEqual({
      ok: true,
      declaration: { kind: 'schema', schema: { type: 'object', required: ['verdict'] } },
    });
    expect(parseOutputSchemaDeclaration('schemas/review.json')).toEqual({
      ok: true,
      declaration: { kind: 'file', path: 'schemas/review.json' },
    });
    expect(parseOutputSchemaDeclaration('verdict: string')).toEqual({
      ok: true,
      declaration: {
        kind: 'schema',
        schema: {
          type: 'object',
          properties: { verdict: { type: 'string' } },
          required: ['verdict'],
          additionalProperties: true,
        },
      },
    });
    expect(parseOutputSchemaDeclaration('[1]')).toMatchObject({ ok: false });
  });

  it('reads out_map entries with dotted paths on both sides', () => {
    expect(parseOutMap('verdict -> review.verdict, summary.text->summary')).toEqual({
      ok: true,
      entries: [
        { field: 'verdict', key: 'review.verdict', keyOffset: 11 },
        { field: 'summary.text', key: 'summary', keyOffset: 41 },
      ],
    });
    expect(parseOutMap('verdict review')).toMatchObject({ ok: false, error: { offset: 0, length: 14 } });
  });
});
