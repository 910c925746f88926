/**
 * `attractor new`: the model (a scripted OpenAI-compatible server on 127.0.0.1, the only fake) writes a pipeline;
 * lint's diagnostics go back to it until the pipeline is clean, then it is formatted, rendered and simulated. Through
 * the built binary.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicWire, prepareAgentTestHome, startScriptedServer } from '@attractor/backend-agent-cli/test';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';

const KEY = 'sk-test-new-8c2e51';

/** A first draft with two lint errors: no exit node, and an edge to a node that has none. */
const BROKEN = `Here is the pipeline:

\`\`\`dot
digraph ReviewDocs {
  graph [goal="Review the documentation"]
  start [shape=Mdiamond]
  read [label="Read", prompt="Read the docs and list what is unclear"]
  check [shape=parallelogram, label="Check links", tool_command="npx linkinator docs"]
  start -> read -> check
  check -> read [condition="outcome=fail"]
}
\`\`\`
`;

/** The corrected draft: unformatted on purpose (one line per node, odd spacing). */
const CLEAN = `\`\`\`dot
digraph ReviewDocs {
  graph [goal="Review the documentation"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  read [label="Read", prompt="Read the docs and list what is unclear. Say DOCS_OK when nothing is."]
  check [shape=parallelogram,label="Check links",tool_command="npx linkinator docs"]
  start -> read -> check
  check -> read [condition="outcome=fail", label="broken links"]
  check -> exit [condition="outcome=success"]
}
\`\`\`
`;

const options = (server: { baseURL: string }) => ['--base-url', server.baseURL, '--model', 'gpt-test'];

/** The user messages the server received, one per request. */
const prompts = (server: { requests: readonly { messages: readonly { role: string; text: string }[] }[] }) =>
  server.requests.map((request) =>
    request.messages
      .filter((message) => message.role === 'user')
      .map((message) => message.text)
      .join('\n'),
  );

describe('attractor new', () => {
  it('feeds lint errors back to the model, then writes the clean answer formatted, with an SVG, simulated once', async () => {
    const server = await startScriptedOpenAIServer({
      apiKey: KEY,
      script: [
        { type: 'text', text: BROKEN },
        { type: 'text', text: CLEAN },
      ],
    });
    try {
      const cwd = await temporaryDirectory();
      const result = await attractor(
        ['new', 'Review the docs and check their links', '-o', 'review.dot', ...options(server)],
        { cwd, env: { OPENAI_API_KEY: KEY } },
      );
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('Round 1 of 3: asking the model for a pipeline');
      expect(result.stdout).toContain('Round 2 of 3: asking the model to fix it');
      expect(result.stdout).toContain('✔ wrote review.dot (4 nodes, 4 edges) and review.svg');
      expect(result.stdout).toContain('✔ a simulated run reached the exit: start → read → check → exit');

      // The first prompt holds the product's reference and the description; the second the draft and its errors.
      const [first, second] = prompts(server);
      expect(first).toContain('Review the docs and check their links');
      expect(first).toContain('- shape=parallelogram: tool; reads ');
      expect(first).toContain('- join_policy (node; ');
      expect(first).toContain('digraph FixFailingTests');
      expect(second).toContain('check -> read [condition="outcome=fail"]');
      expect(second).toMatch(/review\.dot:\d+:\d+: error\[[a-z_]+\]: .*exit/);
      expect(server.requests).toHaveLength(2);

      // The file validates, is formatted as `attractor fmt` formats, and the SVG is Graphviz's.
      const written = await readFile(join(cwd, 'review.dot'), 'utf8');
      expect(written).toContain(
        'check [shape=parallelogram, label="Check links", tool_command="npx linkinator docs"]',
      );
      const validate = await attractor(['validate', 'review.dot'], { cwd });
      expect(validate.exitCode).toBe(0);
      expect((await attractor(['fmt', '--check', 'review.dot'], { cwd })).exitCode).toBe(0);
      expect(await readFile(join(cwd, 'review.svg'), 'utf8')).toMatch(/<svg[\s\S]*ReviewDocs[\s\S]*<\/svg>/);
      // Nothing but those two files.
      expect(existsSync(join(cwd, 'review.draft.dot'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('names the file after the graph when -o is not given, and does not overwrite one without --force', async () => {
    const server = await startScriptedOpenAIServer({ apiKey: KEY, script: [{ type: 'text', text: CLEAN }] });
    try {
      const cwd = await temporaryDirectory();
      const result = await attractor(['new', 'Review the docs', ...options(server)], {
        cwd,
        env: { OPENAI_API_KEY: KEY },
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('✔ wrote review-docs.dot (4 nodes, 4 edges) and review-docs.svg');
      expect(server.requests).toHaveLength(1);

      await writeFile(join(cwd, 'mine.dot'), 'digraph Mine {}\n');
      const refused = await attractor(['new', 'Review the docs', '-o', 'mine.dot', ...options(server)], {
        cwd,
        env: { OPENAI_API_KEY: KEY },
      });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(
        'mine.dot already exists. Pass another -o file, or --force to replace it.',
      );
      // Refused before any model call.
      expect(server.requests).toHaveLength(1);
      expect(await readFile(join(cwd, 'mine.dot'), 'utf8')).toBe('digraph Mine {}\n');
    } finally {
      await server.close();
    }
  });

  it('simulates a draft that declares required inputs with a minimal value of each, never a stack trace', async () => {
    const typed = `\`\`\`dot
digraph Greet {
  graph [goal="Greet someone", inputs="name: string, times: integer"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  greet [label="Greet", prompt="Greet $input.name, $input.times times"]
  start -> greet -> exit
}
\`\`\`
`;
    const server = await startScriptedOpenAIServer({ apiKey: KEY, script: [{ type: 'text', text: typed }] });
    try {
      const cwd = await temporaryDirectory();
      const result = await attractor(['new', 'Greet someone', '-o', 'greet.dot', ...options(server)], {
        cwd,
        env: { OPENAI_API_KEY: KEY },
      });
      expect(result.stderr).not.toContain('    at ');
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('a simulated run reached the exit: start → greet → exit');
      expect(await readFile(join(cwd, 'greet.dot'), 'utf8')).toContain(
        'inputs="name: string, times: integer"',
      );
    } finally {
      await server.close();
    }
  });

  it('says which -o path cannot be written and why (exit 2), never a stack trace', async () => {
    const server = await startScriptedOpenAIServer({ apiKey: KEY, script: [{ type: 'text', text: CLEAN }] });
    try {
      const cwd = await temporaryDirectory();
      const result = await attractor(
        ['new', 'Review the docs', '-o', '/proc/review.dot', ...options(server)],
        {
          cwd,
          env: { OPENAI_API_KEY: KEY },
        },
      );
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.stderr).toContain(
        'error: Cannot write -o /proc/review.dot: no such file or directory (ENOENT). Give -o a writable path.',
      );
      expect(result.exitCode).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('stops after --rounds answers that are never right, with a clear message and the last draft kept (exit 1)', async () => {
    const server = await startScriptedOpenAIServer({
      apiKey: KEY,
      script: [
        { type: 'text', text: BROKEN },
        { type: 'text', text: 'I cannot write DOT.' },
      ],
    });
    try {
      const cwd = await temporaryDirectory();
      const result = await attractor(
        ['new', 'Review the docs', '-o', 'review.dot', '--rounds', '2', ...options(server)],
        { cwd, env: { OPENAI_API_KEY: KEY } },
      );
      expect(result.exitCode).toBe(1);
      expect(server.requests).toHaveLength(2);
      // The second prompt says why the first answer was refused; the second answer had no DOT at all.
      expect(prompts(server)[1]).toMatch(/error\[/);
      expect(result.stderr).toContain('The answer holds no DOT digraph');
      expect(result.stderr).toContain(
        'error: the model gave no usable pipeline in 2 rounds (The answer holds no DOT digraph: give the whole pipeline in one ```dot fenced block.); its last draft is in review.draft.dot.',
      );
      expect(await readFile(join(cwd, 'review.draft.dot'), 'utf8')).toBe('I cannot write DOT.\n');
      expect(existsSync(join(cwd, 'review.dot'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('shows the model an example that lints clean, is formatted and takes every edge in simulation', async () => {
    const example = fileURLToPath(new URL('../templates/new/example.dot', import.meta.url));
    const validate = await attractor(['validate', example]);
    expect(validate.stderr).toBe('');
    expect(validate.exitCode).toBe(0);
    expect((await attractor(['fmt', '--check', example])).exitCode).toBe(0);
    const routes = await attractor(['test', example, '--routes']);
    expect(routes.stdout).toContain('✔ Every edge taken (loops twice), every gate reached.');
    expect(routes.exitCode).toBe(0);
  });

  it('says which key is missing before asking anything (exit 2)', async () => {
    const cwd = await temporaryDirectory();
    const result = await attractor(['new', 'Review the docs', '--model', 'gpt-test'], {
      cwd,
      env: { OPENAI_API_KEY: '' },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'error: The model cannot be asked for a pipeline:\n  - set OPENAI_API_KEY for provider openai: the model that writes the pipeline (model gpt-test)',
    );
  });

  it('asks for a model without naming a stage the user never wrote (exit 2)', async () => {
    // Once: 'LLM stage "author" names no model: set llm_model on the node ...', about attractor's own stage.
    const cwd = await temporaryDirectory();
    const result = await attractor(['new', 'Review the docs'], { cwd, env: { OPENAI_API_KEY: 'sk-test' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'error: The model cannot be asked for a pipeline:\n  - no model is chosen for the model that writes the pipeline: pass --model (e.g. --model claude-sonnet-4-6), or set defaults.model in the config file',
    );
  });
});

// Generous: each round starts the real claude CLI, slow on a busy machine.
describe('attractor new --backend claude-code', { timeout: 120_000 }, () => {
  it('asks the real claude CLI (against a scripted Anthropic server) and feeds lint errors back to it', async () => {
    const server = await startScriptedServer(anthropicWire);
    try {
      const { env } = await prepareAgentTestHome({
        agent: 'claude-code',
        server,
        path: process.env.PATH ?? '/usr/bin:/bin',
      });
      // The server answers by the last scenario marker of the conversation, and each round is a fresh one: the
      // first draft carries the marker of the second round, whose prompt quotes the draft.
      const broken = BROKEN.replace('digraph ReviewDocs {', 'digraph ReviewDocs {\n  // [[scenario:revise]]');
      server.script({ author: [{ text: broken }], revise: [{ text: CLEAN }] });
      const cwd = await temporaryDirectory();
      const result = await attractor(
        [
          'new',
          'Review the docs and check their links [[scenario:author]]',
          '-o',
          'review.dot',
          '--backend',
          'claude-code',
          '--model',
          'claude-test-1',
        ],
        { cwd, env },
      );
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain('Round 2 of 3: asking the model to fix it');
      expect(result.stdout).toContain('✔ wrote review.dot (4 nodes, 4 edges) and review.svg');
      const revised = server.requests.filter((request) => request.scenario === 'revise');
      expect(revised).toHaveLength(1);
      expect(JSON.stringify(revised[0]?.body)).toContain('error[terminal_node]');
      expect((await attractor(['validate', 'review.dot'], { cwd })).exitCode).toBe(0);
      // Nothing went to another host (the server is also the agent's proxy).
      expect(server.outbound).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
