import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../index.js';
import { prepareGraph } from '../prepare-graph.js';
import { resolveGraphRef } from './resolve-graph-ref.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes `files` (path → DOT) under a fresh temporary directory and returns it. */
function tree(files: Readonly<Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), 'attractor-graph-refs-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The real file system, as the CLI reads it: missing files are `undefined`. */
function readGraphFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parentOf(ref: string, extra = ''): string {
  return `digraph parent {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  checks [type="subgraph", graph_ref="${ref}"${extra}]
  start -> checks -> exit
}
`;
}

const child = 'digraph child { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }\n';

function refErrors(root: string, file: string): string[] {
  const path = join(root, file);
  return prepareGraph(readFileSync(path, 'utf8'), { filename: path, readGraphFile })
    .diagnostics.filter((diagnostic) => diagnostic.rule === 'subgraph_ref')
    .map((diagnostic) => formatDiagnostic(diagnostic, readFileSync(path, 'utf8')).replaceAll(root, '<root>'));
}

describe('subgraph_ref file checks of prepareGraph (spec §9.4)', () => {
  it('accepts a graph_ref that exists, relative to the parent file', () => {
    const root = tree({
      'pipelines/main/pipeline.dot': parentOf('../checks/pipeline.dot'),
      'pipelines/checks/pipeline.dot': child,
    });
    expect(refErrors(root, 'pipelines/main/pipeline.dot')).toEqual([]);
  });

  it('reports a graph_ref that does not exist at the attribute value, with the resolved path and a fix', () => {
    const root = tree({ 'main/pipeline.dot': parentOf('../checks-core/pipeline.dot') });
    expect(refErrors(root, 'main/pipeline.dot')).toEqual([
      [
        '<root>/main/pipeline.dot:4:38: error[subgraph_ref]: Subgraph node "checks": graph_ref "../checks-core/pipeline.dot" does not exist (looked for <root>/checks-core/pipeline.dot).',
        '> 4 |   checks [type="subgraph", graph_ref="../checks-core/pipeline.dot"]',
        '    |                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
        '  fix: Fix the path, which is relative to the directory of this DOT file, or create <root>/checks-core/pipeline.dot.',
      ].join('\n'),
    ]);
  });

  it('reports a sub-pipeline with errors, quoting its first error with file:line:col', () => {
    const broken =
      'digraph child {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  t [shape=parallelogram]\n  start -> t -> exit\n}\n';
    const root = tree({ 'parent.dot': parentOf('child.dot'), 'child.dot': broken });
    const [error] = refErrors(root, 'parent.dot');
    expect(error).toMatch(
      /^<root>\/parent\.dot:4:38: error\[subgraph_ref\]: Subgraph node "checks": the sub-pipeline "child\.dot" has 1 error; the first: <root>\/child\.dot:4:3: .*tool_command/,
    );
    expect(error).toContain('fix: Fix <root>/child.dot; validate it on its own to see every problem.');
  });

  it('detects a cycle of graph_refs instead of following it forever', () => {
    const root = tree({
      'a.dot': parentOf('b.dot'),
      'b.dot': parentOf('./sub/../a.dot'),
      'self.dot': parentOf('self.dot'),
    });
    expect(refErrors(root, 'self.dot')).toEqual([
      expect.stringContaining(
        'Subgraph node "checks": graph_ref "self.dot" leads back to <root>/self.dot, a pipeline that includes this one: <root>/self.dot → <root>/self.dot. Running it would never end.',
      ),
    ]);
    const [error] = refErrors(root, 'a.dot');
    expect(error).toContain(
      'the sub-pipeline "b.dot" has 1 error; the first: <root>/b.dot:4:38: Subgraph node "checks": graph_ref "./sub/../a.dot" leads back to <root>/a.dot, a pipeline that includes this one: <root>/a.dot → <root>/b.dot → <root>/a.dot.',
    );
  });

  it('reads each referenced file once per prepareGraph call', () => {
    const root = tree({
      'parent.dot': parentOf('child.dot').replace(
        'start -> checks -> exit',
        'again [type="subgraph", graph_ref="./child.dot"]\n  start -> checks -> again -> exit',
      ),
      'child.dot': child,
    });
    const reads: string[] = [];
    const path = join(root, 'parent.dot');
    const { diagnostics } = prepareGraph(readFileSync(path, 'utf8'), {
      filename: path,
      readGraphFile: (file) => {
        reads.push(file);
        return readGraphFile(file);
      },
    });
    expect(diagnostics.filter((diagnostic) => diagnostic.severity === 'error')).toEqual([]);
    expect(reads).toEqual([join(root, 'child.dot')]);
  });

  it('reports a reader failure as "cannot be read", and checks nothing without a reader', () => {
    const root = tree({ 'parent.dot': parentOf('child.dot') });
    mkdirSync(join(root, 'child.dot'));
    expect(refErrors(root, 'parent.dot')[0]).toContain(
      'Subgraph node "checks": graph_ref "child.dot" cannot be read (<root>/child.dot: EISDIR',
    );
    const missing = prepareGraph(parentOf('missing.dot'), { filename: join(root, 'x.dot') });
    expect(missing.diagnostics.filter((diagnostic) => diagnostic.rule === 'subgraph_ref')).toEqual([]);
  });
});

describe('manager_child_dotfile file checks of prepareGraph (spec §4.11)', () => {
  const supervisor = (nodeAttribute: string, graphAttribute = '') => `digraph supervisor {
  ${graphAttribute}
  start [shape=Mdiamond]
  exit [shape=Msquare]
  watch [shape=house${nodeAttribute}]
  start -> watch -> exit
}
`;

  function managerErrors(root: string, file: string): string[] {
    const path = join(root, file);
    const source = readFileSync(path, 'utf8');
    return prepareGraph(source, { filename: path, readGraphFile })
      .diagnostics.filter((diagnostic) => diagnostic.rule === 'manager_child_dotfile')
      .map((diagnostic) => formatDiagnostic(diagnostic, source).replaceAll(root, '<root>'));
  }

  it('accepts a node-level stack.child_dotfile that exists next to the parent file', () => {
    const root = tree({
      'sup/main.dot': supervisor(', "stack.child_dotfile"="child.dot"'),
      'sup/child.dot': child,
    });
    expect(managerErrors(root, 'sup/main.dot')).toEqual([]);
  });

  it('says what to write for a child path written from a directory above the file (a Fabro workflow root, issue 33)', () => {
    const root = tree({
      'workflows/fixture/parent.fabro': supervisor(', stack.child_workflow="workflows/fixture/child.fabro"'),
      'workflows/fixture/child.fabro': child,
    });
    const [error] = managerErrors(root, 'workflows/fixture/parent.fabro');
    expect(error?.split('\n')[0]).toBe(
      '<root>/workflows/fixture/parent.fabro:5:44: error[manager_child_dotfile]: Manager loop node "watch": stack.child_workflow "workflows/fixture/child.fabro" does not exist next to this DOT file (looked for <root>/workflows/fixture/workflows/fixture/child.fabro), but <root>/workflows/fixture/child.fabro does: the path is written from <root>, as some projects of other runners write it from their workflow root.',
    );
    expect(error).toContain(
      '  fix: Write stack.child_workflow="child.fabro": paths are relative to the directory of this DOT file.',
    );
  });

  it('reports a missing child file at the node attribute, with the resolved path', () => {
    const root = tree({ 'main.dot': supervisor(', "stack.child_dotfile"="kid.dot"') });
    expect(managerErrors(root, 'main.dot')).toEqual([
      [
        '<root>/main.dot:5:45: error[manager_child_dotfile]: Manager loop node "watch": stack.child_dotfile "kid.dot" does not exist (looked for <root>/kid.dot).',
        '> 5 |   watch [shape=house, "stack.child_dotfile"="kid.dot"]',
        '    |                                             ^^^^^^^^^',
        '  fix: Fix the path, which is relative to the directory of this DOT file, or create <root>/kid.dot.',
      ].join('\n'),
    ]);
  });

  it("checks a graph-level stack.child_dotfile, pointing at the graph attribute, and quotes the child's first error", () => {
    const broken =
      'digraph child {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  t [shape=parallelogram]\n  start -> t -> exit\n}\n';
    const root = tree({
      'main.dot': supervisor('', 'graph ["stack.child_dotfile"="child.dot"]'),
      'child.dot': broken,
    });
    const [error, ...rest] = managerErrors(root, 'main.dot');
    expect(rest).toEqual([]);
    expect(error).toMatch(
      /^<root>\/main\.dot:2:32: error\[manager_child_dotfile\]: Manager loop node "watch": the sub-pipeline "child\.dot" has \d+ errors?; the first: <root>\/child\.dot:\d+:\d+: /,
    );
  });

  it('detects a supervisor that supervises itself', () => {
    const root = tree({ 'loop.dot': supervisor(', "stack.child_dotfile"="loop.dot"') });
    expect(managerErrors(root, 'loop.dot')[0]).toContain(
      'Manager loop node "watch": stack.child_dotfile "loop.dot" leads back to <root>/loop.dot, a pipeline that includes this one',
    );
  });
});

describe('resolveGraphRef', () => {
  it('resolves against the parent file directory, keeps absolute paths and normalises', () => {
    expect(resolveGraphRef({ ref: '../checks/pipeline.dot', parentFilename: '/p/main/pipeline.dot' })).toBe(
      '/p/checks/pipeline.dot',
    );
    expect(resolveGraphRef({ ref: '/abs/./x.dot', parentFilename: '/p/main.dot' })).toBe('/abs/x.dot');
    expect(resolveGraphRef({ ref: 'x.dot', parentFilename: 'pipelines/main.dot' })).toBe('pipelines/x.dot');
    expect(resolveGraphRef({ ref: './x.dot' })).toBe('x.dot');
  });
});
