import { describe, expect, it } from 'vitest';
import { strictSchemaProblem, strictSchemaVariant, withoutOptionalNulls } from './strict-json-schema.js';

describe('strictSchemaProblem (OpenAI strict structured outputs)', () => {
  it('takes a schema whose every object is closed and lists every property as required', () => {
    expect(
      strictSchemaProblem({
        type: 'object',
        properties: {
          verdict: { type: 'string', enum: ['approve', 'reject'] },
          issues: {
            type: 'array',
            items: {
              type: 'object',
              properties: { line: { type: 'integer' } },
              required: ['line'],
              additionalProperties: false,
            },
          },
        },
        required: ['verdict', 'issues'],
        additionalProperties: false,
      }),
    ).toBeUndefined();
  });

  it('names an object that allows other properties, at its place', () => {
    expect(
      strictSchemaProblem({
        type: 'object',
        properties: { verdict: { type: 'string' } },
        required: ['verdict'],
        additionalProperties: true,
      }),
    ).toBe("In context=(), 'additionalProperties' is required to be supplied and to be false.");
    expect(
      strictSchemaProblem({
        type: 'object',
        properties: {
          issues: { type: 'array', items: { type: 'object', properties: { line: { type: 'integer' } } } },
        },
        required: ['issues'],
        additionalProperties: false,
      }),
    ).toBe(
      "In context=('properties', 'issues', 'items'), 'additionalProperties' is required to be supplied and to be false.",
    );
  });

  it('names the first property that is not required (an optional field of the compact form)', () => {
    expect(
      strictSchemaProblem({
        type: 'object',
        properties: { verdict: { type: 'string' }, issues: { type: 'array', items: { type: 'string' } } },
        required: ['verdict'],
        additionalProperties: false,
      }),
    ).toBe(
      "In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'issues'.",
    );
  });

  it('looks into anyOf and $defs', () => {
    expect(
      strictSchemaProblem({
        anyOf: [{ type: 'string' }, { $ref: '#/$defs/item' }],
        $defs: { item: { type: 'object', properties: {} } },
      }),
    ).toBe(
      "In context=('$defs', 'item'), 'additionalProperties' is required to be supplied and to be false.",
    );
  });
});

describe('strictSchemaVariant and withoutOptionalNulls', () => {
  const compact = {
    type: 'object',
    properties: {
      verdict: { type: 'string' },
      issues: { type: 'array', items: { type: 'object', properties: { line: { type: 'integer' } } } },
    },
    required: ['verdict'],
    additionalProperties: true,
  };

  it('closes every object, requires every property, and lets an optional one be null', () => {
    const variant = strictSchemaVariant(compact);
    expect(variant).toEqual({
      type: 'object',
      properties: {
        verdict: { type: 'string' },
        issues: {
          anyOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                properties: { line: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
                required: ['line'],
                additionalProperties: false,
              },
            },
            { type: 'null' },
          ],
        },
      },
      required: ['verdict', 'issues'],
      additionalProperties: false,
    });
    expect(strictSchemaProblem(variant)).toBeUndefined();
  });

  it('gives a strict schema back as it is, and nothing for a free-form object', () => {
    const strict = { type: 'object', properties: {}, required: [], additionalProperties: false };
    expect(strictSchemaVariant(strict)).toBe(strict);
    expect(
      strictSchemaVariant({ type: 'object', properties: { meta: { type: 'object' } }, required: ['meta'] }),
    ).toBeUndefined();
  });

  it('leaves out the nulls of optional properties, keeps required ones and other values', () => {
    expect(
      withoutOptionalNulls({ verdict: 'approve', issues: [{ line: null }, { line: 3 }] }, compact),
    ).toEqual({ verdict: 'approve', issues: [{}, { line: 3 }] });
    expect(withoutOptionalNulls({ verdict: null, issues: null }, compact)).toEqual({ verdict: null });
  });
});
