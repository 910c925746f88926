/**
 * The repository's compose.yaml (README "Running on several machines") cannot run here (no Docker), so its syntax
 * and its commands are checked: it parses, has the basics of the Compose schema, and every flag it passes to
 * `attractor` is one that command accepts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { attractor, REPO_ROOT } from './helpers/cli.js';

interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly volumes?: readonly string[];
  readonly depends_on?: Readonly<Record<string, { readonly condition: string }>>;
  readonly healthcheck?: { readonly test: readonly string[] };
  readonly ports?: readonly string[];
  readonly stop_grace_period?: string;
}

interface ComposeFile {
  readonly name?: string;
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes?: Readonly<Record<string, unknown>>;
}

const TOP_LEVEL_KEYS = new Set(['name', 'services', 'volumes', 'networks', 'configs', 'secrets', 'include']);

async function readCompose(): Promise<ComposeFile> {
  return parse(await readFile(join(REPO_ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as ComposeFile;
}

describe('compose.yaml (issue 18)', () => {
  it('parses and keeps to the Compose schema: known top-level keys, an image per service, declared volumes and dependencies', async () => {
    const compose = await readCompose();
    for (const key of Object.keys(compose)) {
      expect(TOP_LEVEL_KEYS.has(key) || key.startsWith('x-'), `top-level key ${key}`).toBe(true);
    }
    const names = Object.keys(compose.services);
    expect(names).toEqual(expect.arrayContaining(['postgres', 'worker-1', 'worker-2', 'server']));
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.image ?? service.build, `${name} has an image`).toBeDefined();
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/')) {
          expect(Object.keys(compose.volumes ?? {}), `${name} mounts volume ${source}`).toContain(source);
        }
      }
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(names, `${name} depends on ${dependency}`).toContain(dependency);
        if (condition === 'service_healthy') expect(compose.services[dependency]?.healthcheck).toBeDefined();
      }
    }
  });

  it('runs two workers and the server against one PostgreSQL for store and queue, sharing the working directories', async () => {
    const { services } = await readCompose();
    const postgres = services.postgres!;
    expect(postgres.image).toMatch(/^postgres:\d+/);
    for (const name of ['worker-1', 'worker-2', 'server']) {
      const service = services[name]!;
      expect(service.environment?.ATTRACTOR_STORE_URL).toMatch(
        /^postgres:\/\/attractor:.+@postgres:5432\/attractor$/,
      );
      expect(service.environment?.ATTRACTOR_QUEUE_URL).toBe(service.environment?.ATTRACTOR_STORE_URL);
      expect(service.volumes).toContain('work:/work');
    }
    expect(services['worker-1']?.command?.slice(2, 3)).toEqual(['worker']);
    expect(services['worker-1']?.command).toContain('/work');
    expect(services.server?.command?.slice(2, 3)).toEqual(['serve']);
  });

  it('gives each worker more time to stop than its drain, and the same queue key as the server (issue 34)', async () => {
    const { services } = await readCompose();
    for (const name of ['worker-1', 'worker-2']) {
      const service = services[name]!;
      const command = service.command ?? [];
      const drainSeconds = Number(command[command.indexOf('--drain-seconds') + 1]);
      const grace = /^(\d+)s$/.exec(service.stop_grace_period ?? '');
      expect(drainSeconds).toBeGreaterThan(0);
      expect(Number(grace?.[1])).toBeGreaterThan(drainSeconds);
      expect(service.environment?.ATTRACTOR_QUEUE_KEY).toBe(
        services.server?.environment?.ATTRACTOR_QUEUE_KEY,
      );
    }
    expect(services.server?.environment?.ATTRACTOR_QUEUE_KEY).toMatch(/ATTRACTOR_QUEUE_KEY/);
  });

  it('passes only flags that its attractor commands accept', async () => {
    const { services } = await readCompose();
    for (const service of Object.values(services)) {
      const command = service.command;
      if (command?.[1] !== 'apps/cli/bin/attractor.js') continue;
      const subcommand = command[2]!;
      const help = await attractor([subcommand, '--help']);
      expect(help.exitCode).toBe(0);
      for (const flag of command.filter((part) => part.startsWith('--'))) {
        expect(help.stdout, `attractor ${subcommand} ${flag}`).toContain(`${flag} `);
      }
    }
  });
});
