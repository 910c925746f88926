import { describe, expect, it } from 'vitest';
import { StylesheetSyntaxError } from './errors/stylesheet-syntax-error.js';
import { parseStylesheet } from './parse-stylesheet.js';
import { resolveProperties } from './resolve-properties.js';

function syntaxErrorOf(text: string): StylesheetSyntaxError {
  try {
    parseStylesheet(text);
  } catch (error) {
    if (StylesheetSyntaxError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

function valuesOf(text: string): string[][] {
  return parseStylesheet(text).rules.map((rule) =>
    rule.declarations.map((declaration) => `${declaration.property}=${declaration.value}`),
  );
}

describe('parseStylesheet (spec §8.2) accepts', () => {
  const accepted: ReadonlyArray<readonly [text: string, declarations: readonly string[][]]> = [
    ['* { llm_model: claude-sonnet-4-5; }', [['llm_model=claude-sonnet-4-5']]],
    ['* { llm_model: claude-sonnet-4-5 }', [['llm_model=claude-sonnet-4-5']]],
    ['*{llm_model:a;llm_provider:b}', [['llm_model=a', 'llm_provider=b']]],
    ['box { llm_model: "claude-opus-4-6" }', [['llm_model=claude-opus-4-6']]],
    ['.fast { llm_model: "gemini-3-flash-preview" }', [['llm_model=gemini-3-flash-preview']]],
    ['#review { reasoning_effort: "high" }', [['reasoning_effort=high']]],
    ["#review { reasoning_effort: 'low' }", [['reasoning_effort=low']]],
    [
      '* { llm_model: openai/gpt-5.2:free; llm_provider: openrouter }',
      [['llm_model=openai/gpt-5.2:free', 'llm_provider=openrouter']],
    ],
    ['* { llm_model: "my \\"quoted\\" model" }', [['llm_model=my "quoted" model']]],
    ['* { llm_model: "a; b } c" }', [['llm_model=a; b } c']]],
    ['.branch-a { llm_model: x } .Code_Review { llm_model: y }', [['llm_model=x'], ['llm_model=y']]],
    ['Mdiamond { llm_model: x }', [['llm_model=x']]],
    ['#node_1 { llm_model: x } #2 { llm_model: y }', [['llm_model=x'], ['llm_model=y']]],
    ['\n  * {\n    llm_model: a;\n\n    llm_provider: b;\n  }\n', [['llm_model=a', 'llm_provider=b']]],
    ['/* defaults */ * { /* model */ llm_model: a; /* end */ }', [['llm_model=a']]],
    [
      '// defaults\n* { llm_model: a; // cheap\n llm_provider: b }\n// done',
      [['llm_model=a', 'llm_provider=b']],
    ],
    ['* { llm_model: gpt-5//comment right after the value\n}', [['llm_model=gpt-5']]],
    ['* { llm_model: a/*note*/; }', [['llm_model=a']]],
    ['* { }', [[]]],
    ['* {}', [[]]],
    ['', []],
    [' \n\t// only a comment\n', []],
  ];
  it.each(accepted)('%j', (text, declarations) => {
    expect(valuesOf(text)).toEqual(declarations);
  });
});

describe('parseStylesheet (spec §8.2) rejects', () => {
  const rejected: ReadonlyArray<
    readonly [text: string, offset: number, line: number, column: number, shortMessage: string]
  > = [
    ['* llm_model: a; }', 2, 1, 3, 'Expected "{"'],
    ['* { llm_model a }', 14, 1, 15, 'Expected ":"'],
    ['* { llm_model = a }', 14, 1, 15, 'Expected ":"'],
    ['* { llm_model: }', 15, 1, 16, 'Expected a value'],
    ['* { llm_model: a b }', 17, 1, 18, 'Expected "}" or ";"'],
    ['* { llm_model: a', 16, 1, 17, 'Expected "}"'],
    ['* { llm_model: a; ; }', 18, 1, 19, 'Expected "}" or a property name'],
    ['box, .code { llm_model: a }', 3, 1, 4, 'Expected "{"'],
    ['* { llm_model: a }\n#1-2 { llm_model: b }', 21, 2, 3, 'Expected "{"'],
    ['* { llm_model: a }\n# { llm_model: b }', 19, 2, 1, 'Expected a node id after "#"'],
    ['. { llm_model: b }', 0, 1, 1, 'Expected a class name after "."'],
    ['{ llm_model: b }', 0, 1, 1, 'Expected end of input or a selector: *, a shape name, #id or .class'],
    ['* { llm_model: "open }', 15, 1, 16, 'Unterminated string'],
    ["* { llm_model: 'open }", 15, 1, 16, 'Unterminated string'],
    ['* { llm_model: a }\n  /* never closed', 21, 2, 3, 'Unterminated comment'],
    ['* { "llm_model": a }', 4, 1, 5, 'Expected "}" or a property name'],
    [
      '* { llm_model: a } }',
      19,
      1,
      20,
      'Expected end of input or a selector: *, a shape name, #id or .class',
    ],
  ];
  it.each(rejected)('%j at offset %i (line %i, col %i): %s', (text, offset, line, column, shortMessage) => {
    const error = syntaxErrorOf(text);
    expect(error.shortMessage).toBe(shortMessage);
    expect(error.location).toEqual({ offset, line, column });
    expect(error.code).toBe('STYLESHEET_SYNTAX');
  });
});

describe('StylesheetSyntaxError (CONTRIBUTING.md "Errors")', () => {
  it('shows the line with a caret and says what was expected', () => {
    const error = syntaxErrorOf('* { llm_model: a }\n.code { llm_model b }');
    expect(error.message).toBe(
      [
        'Line 2, col 19: expected ":".',
        '  1 | * { llm_model: a }',
        '> 2 | .code { llm_model b }',
        '                        ^',
      ].join('\n'),
    );
    expect(error.expected).toBe('":"');
  });

  it('shows a window of a long line around the error, not the whole line (issue 34 §14)', () => {
    const value = 'a'.repeat(100_000);
    const error = syntaxErrorOf(`* { llm_model: ${value} ; } !!`);
    expect(error.location).toEqual({ offset: 100_020, line: 1, column: 100_021 });
    const [, marked, caret] = error.message.split('\n');
    expect(marked!.length).toBeLessThan(200);
    expect(marked).toMatch(/^> 1 \| …a+ ; } !!$/);
    // The caret stands under the "!".
    expect(caret!.indexOf('^')).toBe(marked!.indexOf('!'));
  });

  it('explains that selector lists are not supported', () => {
    expect(syntaxErrorOf('box, .code { llm_model: a }').message).toContain(
      'Fix: Selector lists are not supported: write one rule per selector.',
    );
  });

  it('explains how to write a declaration when "=" is used', () => {
    expect(syntaxErrorOf('* { llm_model = a }').message).toContain(
      'Fix: Write declarations as property: value, e.g. llm_model: claude-opus-4-6.',
    );
  });

  it('is recognised by isInstance and is an Error', () => {
    const error = syntaxErrorOf('* {');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('StylesheetSyntaxError');
    expect(StylesheetSyntaxError.isInstance(error)).toBe(true);
    expect(StylesheetSyntaxError.isInstance(new Error('x'))).toBe(false);
    expect(StylesheetSyntaxError.isInstance(undefined)).toBe(false);
  });
});

describe('parseStylesheet AST shape (spec §8.2, §8.3)', () => {
  it('records selectors, specificity, order and spans inside the stylesheet text', () => {
    const text = '* { llm_model: a; }\n#review { reasoning_effort: "high" }';
    expect(parseStylesheet(text)).toEqual({
      diagnostics: [],
      rules: [
        {
          selector: { kind: 'universal', value: '', span: { offset: 0, length: 1 } },
          specificity: 0,
          order: 0,
          declarations: [
            {
              property: 'llm_model',
              value: 'a',
              span: { offset: 4, length: 12 },
              propertySpan: { offset: 4, length: 9 },
              valueSpan: { offset: 15, length: 1 },
            },
          ],
          span: { offset: 0, length: 19 },
        },
        {
          selector: { kind: 'id', value: 'review', span: { offset: 20, length: 7 } },
          specificity: 3,
          order: 1,
          declarations: [
            {
              property: 'reasoning_effort',
              value: 'high',
              span: { offset: 30, length: 24 },
              propertySpan: { offset: 30, length: 16 },
              valueSpan: { offset: 48, length: 6 },
            },
          ],
          span: { offset: 20, length: 36 },
        },
      ],
    });
  });

  it('gives each selector kind its specificity', () => {
    const rules = parseStylesheet('#a {} .b {} box {} * {}').rules;
    expect(
      rules.map((rule) => [rule.selector.kind, rule.selector.value, rule.specificity, rule.order]),
    ).toEqual([
      ['id', 'a', 3, 0],
      ['class', 'b', 2, 1],
      ['shape', 'box', 1, 2],
      ['universal', '', 0, 3],
    ]);
  });
});

describe('parseStylesheet diagnostics', () => {
  it('warns about an unknown property, suggests the recognised one, and does not apply it', () => {
    const text = '* { modle: claude-opus-4-6; llm_model: x }';
    const { rules, diagnostics } = parseStylesheet(text);
    expect(rules[0]?.declarations.map((declaration) => declaration.property)).toEqual(['llm_model']);
    expect(diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'unknown_property',
        message: 'Unknown stylesheet property "modle"; it is ignored. Did you mean "llm_model"?',
        span: { offset: 4, length: 5 },
        fix: 'Rename "modle" to "llm_model".',
        suggestion: 'llm_model',
      },
    ]);
  });

  it("applies Fabro's model: and provider: as llm_model and llm_provider, with a warning (issue 19)", () => {
    const { rules, diagnostics } = parseStylesheet('* { model: claude-opus-4-6; provider: anthropic }');
    expect(rules[0]?.declarations.map((declaration) => [declaration.property, declaration.value])).toEqual([
      ['llm_model', 'claude-opus-4-6'],
      ['llm_provider', 'anthropic'],
    ]);
    expect(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.span])).toEqual([
      ['property_alias', { offset: 4, length: 5 }],
      ['property_alias', { offset: 28, length: 8 }],
    ]);
  });

  it('parses a model glob, reports it and does not apply it (issue 19)', () => {
    const { rules, diagnostics } = parseStylesheet(
      '* { llm_model: claude-sonnet-*; reasoning_effort: high }',
    );
    expect(rules[0]?.declarations.map((declaration) => declaration.property)).toEqual(['reasoning_effort']);
    expect(diagnostics).toMatchObject([
      { code: 'model_glob', severity: 'warning', span: { offset: 15, length: 15 } },
    ]);
    expect(diagnostics[0]?.message).toContain('has no catalogue');
  });

  it('parses a model glob with a character class or ?, as fnmatch writes them, and reports it (issue 33)', () => {
    const { rules, diagnostics } = parseStylesheet(
      '.planning { llm_model: gpt-[5-9]*; llm_provider: openai } .fast { llm_model: gemini-2.?-flash }',
    );
    expect(rules.map((rule) => rule.declarations.map((declaration) => declaration.property))).toEqual([
      ['llm_provider'],
      [],
    ]);
    expect(diagnostics).toMatchObject([
      { code: 'model_glob', severity: 'warning', span: { offset: 23, length: 10 } },
      { code: 'model_glob', severity: 'warning', span: { offset: 77, length: 16 } },
    ]);
    expect(diagnostics[0]?.message).toContain('"gpt-[5-9]*" is a glob');
  });

  it('applies a glob in an id or class selector, with a warning (issue 19)', () => {
    const stylesheet = parseStylesheet('#review_* { llm_model: a } .fast* { llm_model: b }');
    expect(stylesheet.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'selector_glob',
      'selector_glob',
    ]);
    expect(
      resolveProperties(stylesheet, { id: 'review_code', shape: 'box', classes: [] }).llm_model?.value,
    ).toBe('a');
    expect(
      resolveProperties(stylesheet, { id: 'plan', shape: 'box', classes: ['faster'] }).llm_model?.value,
    ).toBe('b');
    expect(resolveProperties(stylesheet, { id: 'reviewer', shape: 'box', classes: [] })).toEqual({});
  });

  const suggestions: ReadonlyArray<readonly [property: string, suggestion: string | undefined]> = [
    ['llm_modle', 'llm_model'],
    ['LLM_MODEL', 'llm_model'],
    ['llm-provider', 'llm_provider'],
    ['reasoning-effort', 'reasoning_effort'],
    ['reasoning_efort', 'reasoning_effort'],
    ['effort', 'reasoning_effort'],
    ['modle', 'llm_model'],
    ['temperature', undefined],
    ['color', undefined],
  ];
  it.each(suggestions)('suggests %j -> %j', (property, suggestion) => {
    const [diagnostic] = parseStylesheet(`* { ${property}: x }`).diagnostics;
    expect(diagnostic?.code).toBe('unknown_property');
    expect(diagnostic?.suggestion).toBe(suggestion);
    if (suggestion === undefined) {
      expect(diagnostic?.fix).toBe(
        `Remove "${property}": a stylesheet sets only llm_model, llm_provider, reasoning_effort, backend and mcp_servers.`,
      );
    }
  });

  const efforts: ReadonlyArray<readonly [value: string, suggestion: string | undefined]> = [
    ['HIGH', 'high'],
    ['Medium', 'medium'],
    ['hgh', 'high'],
    ['max', undefined],
    ['xhigh', 'high'],
  ];
  it.each(efforts)(
    'rejects reasoning_effort %j (suggesting %j) and does not apply it',
    (value, suggestion) => {
      const { rules, diagnostics } = parseStylesheet(`* { reasoning_effort: ${value} }`);
      expect(rules[0]?.declarations).toEqual([]);
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0]).toMatchObject({
        severity: 'error',
        code: 'invalid_value',
        span: { offset: 22, length: value.length },
      });
      expect(diagnostics[0]?.suggestion).toBe(suggestion);
    },
  );

  it('accepts low, medium and high', () => {
    expect(
      parseStylesheet(
        '* { reasoning_effort: low } .a { reasoning_effort: medium } #b { reasoning_effort: high }',
      ).diagnostics,
    ).toEqual([]);
  });

  it('rejects an empty quoted value', () => {
    const { rules, diagnostics } = parseStylesheet('* { llm_model: "" }');
    expect(rules[0]?.declarations).toEqual([]);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        code: 'invalid_value',
        message: 'Stylesheet property "llm_model" has an empty value; it is ignored.',
        span: { offset: 15, length: 2 },
        fix: 'Give "llm_model" a value or remove the declaration.',
      },
    ]);
  });

  it('warns about a shape selector that is not a Graphviz shape', () => {
    expect(parseStylesheet('review { llm_model: x }').diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'unknown_shape',
        message:
          'Selector "review" selects nodes with shape "review", which is not a Graphviz shape, so it matches no node.',
        span: { offset: 0, length: 6 },
        fix: 'To select the node with id review write "#review"; to select the class review write ".review".',
        suggestion: '#review',
      },
    ]);
  });

  it('accepts the shapes Attractor maps to handlers', () => {
    const shapes = [
      'Mdiamond',
      'Msquare',
      'box',
      'hexagon',
      'diamond',
      'component',
      'tripleoctagon',
      'parallelogram',
      'house',
    ];
    expect(
      parseStylesheet(shapes.map((shape) => `${shape} { llm_model: x }`).join('\n')).diagnostics,
    ).toEqual([]);
  });
});
