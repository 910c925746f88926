import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { attractor, PIPELINES, temporaryDirectory } from './helpers/cli.js';

/** The <title> of every node group in a Graphviz SVG, with the group's polygon/ellipse fill. */
function nodeFills(svg: string): Map<string, string | undefined> {
  const document = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg) as {
    svg: { g: { g: unknown } };
  };
  const groups = ([] as Record<string, unknown>[]).concat(document.svg.g.g as Record<string, unknown>[]);
  const fills = new Map<string, string | undefined>();
  for (const group of groups) {
    if (group.class !== 'node') continue;
    const shape = (group.polygon ?? group.ellipse ?? group.path) as
      | Record<string, string>
      | Record<string, string>[];
    const first = Array.isArray(shape) ? shape[0] : shape;
    fills.set(String(group.title), first?.fill);
  }
  return fills;
}

describe('attractor render', () => {
  it('writes a well-formed SVG with one node group per pipeline node', async () => {
    const directory = await temporaryDirectory();
    const output = join(directory, 'out', 'build-and-test.svg');
    const result = await attractor(['render', join(PIPELINES, 'build-and-test.dot'), '-o', output]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('wrote');
    const svg = await readFile(output, 'utf8');
    expect(XMLValidator.validate(svg)).toBe(true);
    const fills = nodeFills(svg);
    expect([...fills.keys()].sort()).toEqual(
      [
        'all_green',
        'checks',
        'collect',
        'docs',
        'exit',
        'fix',
        'package',
        'plan',
        'report',
        'start',
        'syntax',
        'tests',
      ].sort(),
    );
    expect(svg).toContain('>Unit tests</text>');
  });

  it('prints the SVG on stdout without -o, also for a file with dialect keys Graphviz does not know', async () => {
    const result = await attractor(['render', join(PIPELINES, 'release-approval.dot')]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith('<?xml')).toBe(true);
    expect(XMLValidator.validate(result.stdout)).toBe(true);
    expect(result.stdout).toContain('[A] Approve and publish');
  });

  it('says which -o path cannot be written and why (exit 2), never a stack trace', async () => {
    const cwd = await temporaryDirectory();
    const pipeline = join(PIPELINES, 'build-and-test.dot');
    for (const [output, cause] of [
      ['/proc/x.svg', 'no such file or directory (ENOENT)'],
      ['.', 'a directory of that name exists (EISDIR)'],
    ] as const) {
      const result = await attractor(['render', pipeline, '-o', output], { cwd });
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.stderr).toContain(`error: Cannot write -o ${output}: ${cause}.`);
      expect(result.exitCode).toBe(2);
    }
  });

  it('refuses a pipeline with errors (exit 2) and names the problem', async () => {
    const directory = await temporaryDirectory();
    const file = join(directory, 'bad.dot');
    await import('node:fs/promises').then((fs) => fs.writeFile(file, 'digraph G {\n  a -> \n'));
    const result = await attractor(['render', file]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${file}:`);
    expect(result.stderr).toContain('1 error; the pipeline was not rendered.');
    expect(result.stdout).toBe('');
  });

  it('refuses --run with a run of another graph, naming both (issue 20 §7)', async () => {
    const dir = await temporaryDirectory();
    const ran = await attractor(
      [
        'run',
        join(PIPELINES, 'release-approval.dot'),
        '--simulate',
        '--auto-approve',
        '--logs-dir',
        join(dir, 'run'),
      ],
      { cwd: dir },
    );
    expect(ran.exitCode).toBe(0);
    const result = await attractor([
      'render',
      join(PIPELINES, 'build-and-test.dot'),
      '--run',
      join(dir, 'run'),
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /error: Run \S+ ran graph "\w+" from \S*release-approval\.dot \(sha256 [0-9a-f]{12}…\), not \S*build-and-test\.dot \(graph "\w+", sha256 [0-9a-f]{12}…\)\. Render the pipeline the run ran, or leave out --run\./,
    );
    const same = await attractor([
      'render',
      join(PIPELINES, 'release-approval.dot'),
      '--run',
      join(dir, 'run'),
    ]);
    expect(same.exitCode).toBe(0);
  });
});
