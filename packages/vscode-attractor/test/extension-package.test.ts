/**
 * The extension as it ships: `vsce package` (the real @vscode/vsce) builds the .vsix from the bundle, and the .vsix
 * holds what VS Code loads; the TextMate grammar, run by the real engine (vscode-textmate on vscode-oniguruma, as in
 * VS Code), highlights a pipeline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import oniguruma from 'vscode-oniguruma';
import textmate from 'vscode-textmate';
import yauzl from 'yauzl';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** Every file of a zip archive, by name. */
async function unzip(path: string): Promise<Map<string, Buffer>> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip
        .openReadStreamPromise(entry)
        .then((stream) => buffer(stream))
        .then((content) => {
          files.set(entry.fileName, content);
          zip.readEntry();
        }, reject);
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return files;
}

describe('the VS Code extension package', () => {
  it('vsce package builds a .vsix with the bundled client, the grammar and the manifest', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'attractor-vsix-')), 'attractor-pipelines.vsix');
    const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out],
      { cwd: root },
    );
    expect(stdout).toContain('Packaged:');
    const files = await unzip(out);
    expect([...files.keys()].sort()).toEqual(
      [
        '[Content_Types].xml',
        'extension.vsixmanifest',
        'extension/LICENSE.txt',
        'extension/dist/extension.cjs',
        'extension/language-configuration.json',
        'extension/package.json',
        'extension/readme.md',
        'extension/syntaxes/dot.tmLanguage.json',
      ].sort(),
    );
    const manifest = JSON.parse(files.get('extension/package.json')!.toString()) as {
      main: string;
      contributes: {
        languages: { id: string }[];
        grammars: { path: string }[];
        commands: { command: string }[];
      };
    };
    expect(manifest.main).toBe('./dist/extension.cjs');
    expect(manifest.contributes.languages[0]!.id).toBe('dot');
    expect(manifest.contributes.grammars[0]!.path).toBe('./syntaxes/dot.tmLanguage.json');
    expect(manifest.contributes.commands.map((command) => command.command)).toEqual([
      'attractor.preview',
      'attractor.restartServer',
    ]);
    // The client library is inside the bundle; only VS Code's own module is left to the editor.
    const bundle = files.get('extension/dist/extension.cjs')!.toString();
    expect(bundle).toMatch(/require\(["']vscode["']\)/);
    expect(bundle).not.toMatch(/require\(["']vscode-languageclient/);
    expect(bundle).toContain('attractor/render');
    expect(files.get('extension.vsixmanifest')!.toString()).toContain('Id="attractor-pipelines"');
  }, 120_000);

  it('highlights a pipeline with its TextMate grammar', async () => {
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (text: string) => new oniguruma.OnigString(text),
      }),
      loadGrammar: async (scope: string) =>
        scope === 'source.dot'
          ? textmate.parseRawGrammar(
              readFileSync(join(root, 'syntaxes', 'dot.tmLanguage.json'), 'utf8'),
              'dot.tmLanguage.json',
            )
          : null,
    });
    const grammar = (await registry.loadGrammar('source.dot'))!;
    const lines = [
      '// the pipeline',
      'digraph Review {',
      '  plan [label="Plan", prompt="Reach $goal\\n", max_retries=2, timeout="900s"]',
      '  node [shape=box]',
      '  plan -> exit [condition="outcome=success"] /* done */',
      '}',
    ];
    const scopes = new Map<string, string[]>();
    let state = textmate.INITIAL;
    for (const line of lines) {
      const result = grammar.tokenizeLine(line, state);
      for (const token of result.tokens) {
        const text = line.slice(token.startIndex, token.endIndex);
        if (!scopes.has(text)) scopes.set(text, token.scopes);
      }
      state = result.ruleStack;
    }
    const scopeOf = (text: string) => scopes.get(text)?.at(-1);
    expect(scopeOf(' the pipeline')).toBe('comment.line.double-slash.dot');
    expect(scopeOf('digraph')).toBe('storage.type.graph.dot');
    expect(scopeOf('Review')).toBe('entity.name.tag.node.dot');
    expect(scopeOf('label')).toBe('variable.other.property.dot');
    expect(scopeOf('Plan')).toBe('string.quoted.double.dot');
    expect(scopeOf('$goal')).toBe('variable.other.template.dot');
    expect(scopeOf('\\n')).toBe('constant.character.escape.dot');
    expect(scopeOf('2')).toBe('constant.numeric.dot');
    expect(scopeOf('node')).toBe('keyword.other.defaults.dot');
    expect(scopeOf('box')).toBe('constant.other.value.dot');
    expect(scopeOf('->')).toBe('keyword.operator.edge.dot');
    expect(scopeOf(' done ')).toBe('comment.block.dot');
  });
});
