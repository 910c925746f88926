import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registryWith, run, tempDir } from '../test/helpers.js';
import { InputsInvalidError } from './errors/inputs-invalid-error.js';
import { createJsonSchemaValidator } from './json-schema-validator.js';
import { parseInputText } from './pipeline-inputs.js';
import { graphFrom } from './test/graph-from.js';
import { createScriptedHandler } from './test/scripted-handler.js';

const TYPED = `digraph typed {
  graph [inputs="repo: string, issue: integer, labels?: string[]", outputs="summary, review.verdict, absent"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [prompt="Fix $input.repo#$input.issue"]
  start -> work -> exit
}`;

describe('run inputs and outputs (README "Typed data")', () => {
  it('puts the inputs in the context as input.<name>, and writes the declared outputs the context holds', async () => {
    const handler = createScriptedHandler({
      script: {
        work: [
          { status: 'success', contextUpdates: { summary: 'fixed', 'review.verdict': 'approve', other: 1 } },
        ],
      },
    });
    const { result, logsRoot } = await run({
      graph: graphFrom(TYPED),
      registry: registryWith(handler),
      inputs: { repo: 'acme/api', issue: 42 },
    });
    expect(result.status).toBe('success');
    const call = handler.calls.find((entry) => entry.nodeId === 'work');
    expect(call?.context).toMatchObject({ 'input.repo': 'acme/api', 'input.issue': 42 });
    expect(call?.context).not.toHaveProperty('input.labels');
    expect(result.output).toEqual({ summary: 'fixed', 'review.verdict': 'approve' });
    expect(JSON.parse(readFileSync(join(logsRoot, 'output.json'), 'utf8'))).toEqual(result.output);
    const manifest = JSON.parse(readFileSync(join(logsRoot, 'manifest.json'), 'utf8'));
    expect(manifest.initial_context).toEqual({ 'input.repo': 'acme/api', 'input.issue': 42 });
  });

  it('refuses mistyped, missing and undeclared inputs before any stage, naming field, type and value', async () => {
    const handler = createScriptedHandler();
    const dir = tempDir();
    const refused = run({
      graph: graphFrom(TYPED),
      registry: registryWith(handler),
      logsRoot: join(dir, 'run'),
      inputs: { issue: 'forty-two', labels: ['bug', 3], extra: true },
    });
    await expect(refused).rejects.toSatisfy(InputsInvalidError.isInstance);
    await expect(refused).rejects.toThrow(
      [
        'The inputs of graph "typed" do not match its declaration (inputs="repo: string, issue: integer, labels?: string[]"):',
        '  - input "repo" is required and missing (expected a string)',
        '  - input "extra" is not declared',
        '  - input "issue" must be an integer, got "forty-two"',
        '  - input "labels[1]" must be a string, got 3',
      ].join('\n'),
    );
    expect(handler.calls).toEqual([]);
    expect(existsSync(join(dir, 'run'))).toBe(false);
  });

  it('names the declared input an undeclared one is near, and how a list is written', async () => {
    const refused = run({
      graph: graphFrom(TYPED),
      registry: registryWith(createScriptedHandler()),
      inputs: { repo: 'acme/api', isue: 3, labels: 'bug' },
    });
    await expect(refused).rejects.toThrow(
      [
        '  - input "issue" is required and missing (expected an integer)',
        '  - input "isue" is not declared (did you mean "issue"?)',
        '  - input "labels" must be a list, got "bug" (a list is written as JSON: ["bug"])',
      ].join('\n'),
    );
  });

  it('refuses a run without its required inputs, and inputs for a graph that declares none', async () => {
    const handler = createScriptedHandler();
    await expect(run({ graph: graphFrom(TYPED), registry: registryWith(handler) })).rejects.toThrow(
      'input "issue" is required and missing (expected an integer)',
    );
    const plain = graphFrom('digraph plain { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }');
    await expect(
      run({ graph: plain, registry: registryWith(handler), inputs: { repo: 'x' } }),
    ).rejects.toThrow('Graph "plain" declares no inputs, but the run was given "repo".');
    expect(handler.calls).toEqual([]);
  });

  it('reads a JSON Schema file relative to the DOT file', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'inputs.json'),
      JSON.stringify({
        type: 'object',
        properties: { mode: { enum: ['fast', 'careful'] } },
        required: ['mode'],
      }),
    );
    const graph = graphFrom(
      'digraph file { graph [inputs="inputs.json"]; start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }',
    );
    const handler = createScriptedHandler();
    const sourcePath = join(dir, 'file.dot');
    await expect(
      run({ graph, registry: registryWith(handler), sourcePath, inputs: { mode: 'slow' } }),
    ).rejects.toThrow('input "mode" must be one of fast, careful, got "slow"');
    const { result } = await run({
      graph,
      registry: registryWith(handler),
      sourcePath,
      inputs: { mode: 'fast' },
    });
    expect(result.status).toBe('success');
    await expect(
      run({ graph, registry: registryWith(handler), sourcePath: join(dir, 'elsewhere', 'file.dot') }),
    ).rejects.toThrow(`Cannot read the input schema ${join(dir, 'elsewhere', 'inputs.json')}`);
  });
});

describe('createJsonSchemaValidator', () => {
  it('lists every problem with its field path, what is expected and the value', () => {
    const validate = createJsonSchemaValidator({
      type: 'object',
      properties: {
        review: {
          type: 'object',
          properties: { score: { type: 'number', minimum: 0 } },
          required: ['verdict'],
        },
      },
    });
    expect(validate({ review: { score: -1 } })).toEqual([
      { field: 'review.verdict', expected: 'a value (required)', message: 'is required and missing' },
      { field: 'review.score', expected: '>= 0', value: -1, message: 'must be >= 0, got -1' },
    ]);
    expect(validate({ review: { verdict: 'ok', score: 3 } })).toEqual([]);
  });
});

describe('parseInputText (--input name=value)', () => {
  it('keeps the text of a string input, JSON-parses others, and keeps text that is not JSON', () => {
    const schema = {
      type: 'object',
      properties: { version: { type: 'string' }, issue: { type: 'integer' } },
    };
    expect(parseInputText(schema, 'version', '1.0')).toBe('1.0');
    expect(parseInputText(schema, 'issue', '42')).toBe(42);
    expect(parseInputText(schema, 'issue', 'forty-two')).toBe('forty-two');
    expect(parseInputText(undefined, 'labels', '["a"]')).toEqual(['a']);
  });
});

describe('inputs carried as input.<name> context keys (a queued run)', () => {
  it('checks input.<name> keys of the initial context as inputs, and the inputs option wins over them', async () => {
    const handler = createScriptedHandler();
    await expect(
      run({
        graph: graphFrom(TYPED),
        registry: registryWith(handler),
        context: { 'input.repo': 'a', 'input.issue': 'x' },
      }),
    ).rejects.toThrow('input "issue" must be an integer, got "x"');
    const { result } = await run({
      graph: graphFrom(TYPED),
      registry: registryWith(handler),
      context: { 'input.repo': 'a', 'input.issue': 'x' },
      inputs: { issue: 5 },
    });
    expect(result.status).toBe('success');
    expect(result.context.get('input.issue')).toBe(5);
  });
});
