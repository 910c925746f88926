/**
 * The stage directories of a run directory (spec §5.6 plus DESIGN.md "Run directory"): `{node}/` for the top-level
 * walk, `{parallel node}/branches/{branch}/{node}/` for stages inside parallel branches (nested to any depth), and
 * `{stage}/visits/{n}/` for earlier visits of a node. The API lists them and serves a fixed set of file names from
 * them, always through the run's `RunStore` (the engine's file store on a local run directory, which never reads
 * through a link leading out of it; a shared store such as PostgreSQL otherwise), so local and shared runs answer
 * alike.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStore, StoredFileInfo } from '@attractor/engine';
import { z } from 'zod';
import { ApiError } from './errors/api-error.js';
import { STAGE_FILES } from './run-directory-files.js';

/** The files a stage directory may hold that the API serves (spec §5.6 and the tool handler's output). */
export const STAGE_DIRECTORY_FILES = STAGE_FILES;

/** One of {@link STAGE_DIRECTORY_FILES}. */
export type StageDirectoryFileName = (typeof STAGE_DIRECTORY_FILES)[number];

const SEGMENT = '[A-Za-z_][A-Za-z0-9_]*';
const BRANCH = '[A-Za-z0-9._-]+';
/**
 * A stage directory relative to the run directory: `node`, `fan/branches/a/node` (any depth), optionally followed by
 * `/visits/<n>`. No `..`: branch ids may hold dots but never only dots.
 */
const STAGE_DIRECTORY_PATTERN = new RegExp(
  `^(?:${SEGMENT}/branches/${BRANCH}/)*${SEGMENT}(?:/visits/[0-9]+)?$`,
);

/** How deep parallel blocks nest inside parallel blocks for their stages to be listed. */
const MAX_BRANCH_DEPTH = 8;

/** A stage path the run details list: `node`, or `fan/branches/a/node` up to {@link MAX_BRANCH_DEPTH} deep. */
const LISTED_STAGE_PATTERN = new RegExp(
  `^(?:${SEGMENT}/branches/${BRANCH}/){0,${MAX_BRANCH_DEPTH}}${SEGMENT}$`,
);

/** The query of `GET /pipelines/{id}/stage` and `GET /pipelines/{id}/stage-file`. */
export const stageDirectoryQuerySchema = z.strictObject({
  dir: z
    .string()
    .regex(
      STAGE_DIRECTORY_PATTERN,
      'dir must be a stage directory such as "review", "fan/branches/a/check" or "review/visits/1"',
    )
    .refine((dir) => !dir.split('/').some((part) => /^\.+$/.test(part)), 'dir must not contain "." or ".."'),
  name: z.enum(STAGE_DIRECTORY_FILES).optional(),
});

/** A stage directory and what it holds, as `GET /pipelines/{id}/stage` reports it. */
export const stageDirectorySchema = z.object({
  /** Relative to the run directory, `/`-separated. */
  dir: z.string(),
  /** The node the directory belongs to. */
  nodeId: z.string(),
  /** The branch ids from the outermost parallel block inward (empty for the top-level walk), as in `branchPath`. */
  branchPath: z.array(z.string()),
  /** The served files that exist, with their size in bytes. */
  files: z.array(z.object({ name: z.enum(STAGE_DIRECTORY_FILES), bytes: z.number().int().nonnegative() })),
  /** Earlier visits kept under `visits/<n>/`, in ascending order. */
  visits: z.array(z.number().int().positive()),
});

/** See {@link stageDirectorySchema}. */
export type StageDirectory = z.infer<typeof stageDirectorySchema>;

/**
 * The run directories of a run's child pipelines (sub-pipelines, manager loops), which the engine creates inside
 * their node's stage directory (`{node}/child/`, in parallel branches too): directories below the run directory
 * that hold an `events.jsonl`, not looking inside those (grandchildren are their child's business) or in `visits/`.
 */
export function listChildRunDirectories(runDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of safeReaddir(dir)) {
      if (entry === 'visits') continue;
      const path = join(dir, entry);
      if (existsSync(join(path, 'events.jsonl'))) found.push(path);
      else if (depth < MAX_BRANCH_DEPTH * 3 && safeIsDirectory(path)) walk(path, depth + 1);
    }
  };
  walk(runDir, 0);
  return found;
}

function safeIsDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Splits a stage directory (`fan/branches/a/check/visits/2`) into its stage path and the visit prefix (`visits/2/`). */
function storedStage(dir: string): {
  stagePath: string;
  prefix: string;
  nodeId: string;
  branchPath: string[];
} {
  const parts = dir.split('/');
  const visitAt = parts.indexOf('visits');
  const stageParts = visitAt === -1 ? parts : parts.slice(0, visitAt);
  return {
    stagePath: stageParts.join('/'),
    prefix: visitAt === -1 ? '' : `${parts.slice(visitAt).join('/')}/`,
    nodeId: stageParts.at(-1)!,
    branchPath: stageParts.filter((_, index) => index % 3 === 2),
  };
}

/** Stage directory `dir` described from its stage's file listing; undefined when it has nothing the API serves. */
function describeListing(dir: string, stored: readonly StoredFileInfo[]): StageDirectory | undefined {
  const { prefix, nodeId, branchPath } = storedStage(dir);
  const files: StageDirectory['files'] = [];
  for (const name of STAGE_DIRECTORY_FILES) {
    const file = stored.find((entry) => entry.name === `${prefix}${name}`);
    if (file !== undefined) files.push({ name, bytes: file.sizeBytes });
  }
  const visitPattern = new RegExp(`^${prefix}visits/([0-9]+)/[^/]+$`);
  const visits = [
    ...new Set(stored.map((entry) => visitPattern.exec(entry.name)?.[1]).filter((v) => v !== undefined)),
  ]
    .map(Number)
    .filter((visit) => visit > 0)
    .sort((a, b) => a - b);
  if (files.length === 0 && visits.length === 0) return undefined;
  return { dir, nodeId, branchPath, files, visits };
}

/**
 * One stage directory of a run with its served files and earlier visits, read through the run's store (the file
 * store on a local run directory, or a shared store such as PostgreSQL): `dir` (validated by
 * {@link stageDirectoryQuerySchema}) names a stage path, optionally followed by `visits/<n>`.
 * @throws {ApiError} `NOT_FOUND` (404) when the stage holds none of the served files and no earlier visit.
 */
export async function describeStoredStageDirectory(store: RunStore, dir: string): Promise<StageDirectory> {
  const described = describeListing(dir, await store.listStageFiles(storedStage(dir).stagePath));
  if (described === undefined) {
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `No stage directory "${dir}" in the run (the stage has not started yet, or the path is wrong).`,
    });
  }
  return described;
}

/**
 * The UTF-8 text of file `name` (one of {@link STAGE_DIRECTORY_FILES}) of stage directory `dir`, read through the
 * run's store (a file that is a symbolic link out of a local run directory reads as missing).
 * @throws {ApiError} `NOT_FOUND` (404) when the stage has not written it.
 */
export async function readStoredStageFile(
  store: RunStore,
  dir: string,
  name: StageDirectoryFileName,
): Promise<string> {
  const { stagePath, prefix } = storedStage(dir);
  const bytes = await store.readStageFile(stagePath, `${prefix}${name}`);
  if (bytes === undefined) {
    throw new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `No file "${dir}/${name}" in the run: the stage has not written it (yet).`,
    });
  }
  return new TextDecoder().decode(bytes);
}

/**
 * The text of `{nodeId}/{file}` (`GET /pipelines/{id}/stages/{node}/{file}`), where `file` is one of
 * {@link STAGE_DIRECTORY_FILES}, read through the run's store. Refuses anything else.
 * @throws {ApiError} `NOT_FOUND` (404) for a name that is not a node id or a served file, or a missing file.
 */
export async function readStoredNodeFile(store: RunStore, nodeId: string, file: string): Promise<string> {
  const notFound = (why: string) =>
    new ApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: `No stage file "${nodeId}/${file}": ${why}. Stage files are ${STAGE_DIRECTORY_FILES.join(', ')} of a node id.`,
    });
  if (!new RegExp(`^${SEGMENT}$`).test(nodeId)) throw notFound('not a node id');
  if (!(STAGE_DIRECTORY_FILES as readonly string[]).includes(file)) throw notFound('not a stage file name');
  const bytes = await store.readStageFile(nodeId, file);
  if (bytes === undefined) throw notFound('the stage has not written it');
  return new TextDecoder().decode(bytes);
}

/**
 * The stages of a run as `GET /pipelines/{id}` reports them, read through the run's store: `stageDirectories`,
 * every stage (top-level and inside parallel branches, sorted by path) holding a served file, each described as
 * {@link describeStoredStageDirectory} does; and `stages`, the served files at the top of the stage of each of
 * `nodeIds` that has one (in the order of `nodeIds`).
 */
export async function listStoredStages(
  store: RunStore,
  nodeIds: readonly string[],
): Promise<{
  stages: { nodeId: string; files: StageDirectoryFileName[] }[];
  stageDirectories: StageDirectory[];
}> {
  const stageDirectories: StageDirectory[] = [];
  const topLevel = new Map<string, StageDirectory>();
  for (const stagePath of await store.listStages()) {
    if (!LISTED_STAGE_PATTERN.test(stagePath)) continue;
    const described = describeListing(stagePath, await store.listStageFiles(stagePath));
    if (described === undefined) continue;
    stageDirectories.push(described);
    if (!stagePath.includes('/')) topLevel.set(stagePath, described);
  }
  const stages: { nodeId: string; files: StageDirectoryFileName[] }[] = [];
  for (const nodeId of nodeIds) {
    const files = topLevel.get(nodeId)?.files.map((file) => file.name) ?? [];
    if (files.length > 0) stages.push({ nodeId, files });
  }
  return { stages, stageDirectories };
}
