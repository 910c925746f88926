import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentCliMissingError, findAgentCli } from './index.js';

describe('findAgentCli (preflight)', () => {
  it('finds each agent through the npm package that brings it', () => {
    expect(findAgentCli('claude-code')).toMatchObject({ source: 'package' });
    const codex = findAgentCli('codex', { nodePath: '/usr/bin/node' });
    expect(codex).toMatchObject({ command: '/usr/bin/node', source: 'package' });
    expect(codex.args[0]).toMatch(/@openai[/\\]codex[/\\]bin[/\\]codex\.js$/);
    expect(findAgentCli('gemini-cli').args[0]).toMatch(/@google[/\\]gemini-cli[/\\]bundle[/\\]gemini\.js$/);
  });

  it('takes an executablePath that exists and names the npm package when it does not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'find-agent-'));
    const script = join(dir, 'codex');
    await writeFile(script, '#!/bin/sh\n');
    await chmod(script, 0o755);
    expect(findAgentCli('codex', { executablePath: script })).toEqual({
      agent: 'codex',
      command: script,
      args: [],
      source: 'option',
    });
    let thrown: unknown;
    try {
      findAgentCli('gemini-cli', { executablePath: join(dir, 'missing') });
    } catch (error) {
      thrown = error;
    }
    expect(AgentCliMissingError.isInstance(thrown)).toBe(true);
    expect((thrown as AgentCliMissingError).packageName).toBe('@google/gemini-cli');
    expect((thrown as Error).message).toContain('npm install @google/gemini-cli');
  });
});
