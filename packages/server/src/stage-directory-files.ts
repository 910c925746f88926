/**
 * The stage directories of a run directory (spec §5.6 plus docs/architecture.md "Run directory"): `{node}/`
 * for the top-level walk, `{parallel node}/branches/{branch}/{node}/` for stages inside parallel branches
 * (nested to any depth), and `{stage}/visits/{n}/` for earlier visits of a node. The API lists them and
 * serves a fixed set of file names from them, always through the run's `RunStore` (the engine's file store on
 * a local run directory, which never reads through a link leading out of it; a shared store such as
 * PostgreSQL otherwise), so local and shared runs answer alike.
 */
import { type Dirent, existsSync, readdirSync } from 'node:fs';
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
 * A stage directory relative to the run directory: `node`, `fan/branches/a/node` or a foreach item's `each/items/3/node`
 * (any depth), optionally followed by `/visits/<n>`. No `..`: branch ids may hold dots but never only dots.
 */
const STAGE_DIRECTORY_PATTERN = new RegExp(
  `^(?:${SEGMENT}/(?:branches/${BRANCH}|items/[0-9]+)/)*${SEGMENT}(?:/visits/[0-9]+)?$`,
);

/** How deep parallel blocks nest inside parallel blocks for their stages to be listed. */
const MAX_BRANCH_DEPTH = 8;

/** The query of `GET /pipelines/{id}/stage` and `GET /pipelines/{id}/stage-file`. */
export const stageDirectoryQuerySchema = z.strictObject({
  dir: z
    .string()
    .regex(
      STAGE_DIRECTORY_PATTERN,
      'dir must be a stage directory such as "review", "fan/branches/a/check", "each/items/3/check" or "review/visits/1"',
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
      // Symbolic links are never followed: the engine makes none, and one could lead out of the runs directory.
      if (entry.name === 'visits' || !entry.isDirectory()) continue;
      const path = join(dir, entry.name);
      if (existsSync(join(path, 'events.jsonl'))) found.push(path);
      else if (depth < MAX_BRANCH_DEPTH * 3) walk(path, depth + 1);
    }
  };
  walk(runDir, 0);
  return found;
}

function safeReaddir(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Splits a stage directory (`fan/branches/a/check/visits/2`) into its stage path and visit (`2`, when it has one). */
function storedStage(dir: string): {
  stagePath: string;
  visit?: string;
  nodeId: string;
  branchPath: string[];
} {
  const parts = dir.split('/');
  const visitAt = parts.indexOf('visits');
  const stageParts = visitAt === -1 ? parts : parts.slice(0, visitAt);
  return {
    stagePath: stageParts.join('/'),
    ...(visitAt === -1 ? {} : { visit: parts[visitAt + 1]! }),
    nodeId: stageParts.at(-1)!,
    // A foreach item's part of a branch path is `items/<n>`, as in its events.
    branchPath: stageParts
      .map((part, index) => (stageParts[index - 1] === 'items' ? `items/${part}` : part))
      .filter((_, index) => index % 3 === 2),
  };
}

/** The prefix of a stored file name inside a stage's own visit directory `visits/<visit>/`, or `''`. */
function visitPrefix(visit: string | undefined): string {
  return visit === undefined ? '' : `visits/${visit}/`;
}

/** Where one file of a stage's listing belongs, by {@link classifyStageFile}. */
interface StageFilePlace {
  /** The `/branches/<b>/<node>` steps from the listed stage down to the file's stage; `''` for the stage itself. */
  readonly subdir: string;
  /** The branch ids of those steps, outermost first. */
  readonly branchPath: string[];
  /** The earlier visit (`visits/<visit>/…`, a positive number) the file was kept in, if any. */
  readonly visit?: string;
  /** The served file it is (directly in the stage, or directly in its visit directory), if it is one. */
  readonly served?: StageDirectoryFileName;
}

const SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`);
const BRANCH_PATTERN = new RegExp(`^${BRANCH}$`);
const ITEM_PATTERN = /^[0-9]+$/;

/**
 * Where file `name` of a stage's listing (`RunStore.listStageFiles`, names relative to the stage) belongs: walks
 * `branches/<branch>/<node>/` down to the nested branch stage it is in (at most {@link MAX_BRANCH_DEPTH} deep), then
 * takes a served file directly there, or any file below `visits/<n>/` (n > 0) as a mark of that earlier visit.
 * Undefined for anything else (a child run's files, other files of the stage).
 */
function classifyStageFile(name: string): StageFilePlace | undefined {
  const parts = name.split('/');
  let subdir = '';
  const branchPath: string[] = [];
  let index = 0;
  while (
    (parts[index] === 'branches' || parts[index] === 'items') &&
    parts.length > index + 3 &&
    (parts[index] === 'branches' ? BRANCH_PATTERN : ITEM_PATTERN).test(parts[index + 1]!) &&
    !/^\.+$/.test(parts[index + 1]!) &&
    SEGMENT_PATTERN.test(parts[index + 2]!) &&
    branchPath.length < MAX_BRANCH_DEPTH
  ) {
    branchPath.push(parts[index] === 'items' ? `items/${parts[index + 1]}` : parts[index + 1]!);
    subdir = `${subdir}/${parts[index]}/${parts[index + 1]}/${parts[index + 2]}`;
    index += 3;
  }
  const rest = parts.slice(index);
  const served = (file: string | undefined) =>
    (STAGE_DIRECTORY_FILES as readonly string[]).includes(file ?? '')
      ? { served: file as StageDirectoryFileName }
      : {};
  if (rest.length === 1) {
    const file = served(rest[0]);
    return file.served === undefined ? undefined : { subdir, branchPath, ...file };
  }
  if (rest.length >= 3 && rest[0] === 'visits' && /^[0-9]+$/.test(rest[1]!) && Number(rest[1]) > 0) {
    return { subdir, branchPath, visit: rest[1]!, ...(rest.length === 3 ? served(rest[2]) : {}) };
  }
  return undefined;
}

/** Stage directory `dir` described from its stage's file listing; undefined when it has nothing the API serves. */
function describeListing(dir: string, stored: readonly StoredFileInfo[]): StageDirectory | undefined {
  const { visit, nodeId, branchPath } = storedStage(dir);
  const sizes = new Map<string, number>();
  const visits = new Set<number>();
  for (const entry of stored) {
    const place = classifyStageFile(entry.name);
    if (place === undefined || place.subdir !== '') continue;
    if (place.visit === visit && place.served !== undefined) sizes.set(place.served, entry.sizeBytes);
    // An earlier visit keeps no visits of its own.
    else if (visit === undefined && place.visit !== undefined) visits.add(Number(place.visit));
  }
  const described = toStageDirectory({ dir, nodeId, branchPath }, { sizes, visits });
  return described.files.length === 0 && described.visits.length === 0 ? undefined : described;
}

/** What a stage directory holds, as {@link classifyStageFile} sorted its files: served file sizes and visits. */
interface StageContents {
  /** Bytes by served file name. */
  readonly sizes: Map<string, number>;
  readonly visits: Set<number>;
}

/** A {@link StageDirectory}: its served files in the order of {@link STAGE_DIRECTORY_FILES}, visits ascending. */
function toStageDirectory(
  where: Pick<StageDirectory, 'dir' | 'nodeId' | 'branchPath'>,
  contents: StageContents,
): StageDirectory {
  return {
    ...where,
    files: STAGE_DIRECTORY_FILES.filter((name) => contents.sizes.has(name)).map((name) => ({
      name,
      bytes: contents.sizes.get(name)!,
    })),
    visits: [...contents.visits].sort((a, b) => a - b),
  };
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
  const { stagePath, visit } = storedStage(dir);
  const bytes = await store.readStageFile(stagePath, `${visitPrefix(visit)}${name}`);
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
 * Checks the `{node}/{file}` of `GET /pipelines/{id}/stages/{node}/{file}`: `nodeId` must be a node id (no path
 * separators, no dots) and `file` one of {@link STAGE_DIRECTORY_FILES}. Returns `file` as that type.
 * @throws {ApiError} `NOT_FOUND` (404) naming the stage file and the files a stage may serve, for anything else.
 */
export function checkNodeFile(nodeId: string, file: string): StageDirectoryFileName {
  if (!SEGMENT_PATTERN.test(nodeId)) throw nodeFileNotFound(nodeId, file, 'not a node id');
  if (!(STAGE_DIRECTORY_FILES as readonly string[]).includes(file)) {
    throw nodeFileNotFound(nodeId, file, 'not a stage file name');
  }
  return file as StageDirectoryFileName;
}

/** The 404 of a `{nodeId}/{file}` stage file the route does not serve, saying why. */
function nodeFileNotFound(nodeId: string, file: string, why: string): ApiError {
  return new ApiError({
    status: 404,
    code: 'NOT_FOUND',
    message: `No stage file "${nodeId}/${file}": ${why}. Stage files are ${STAGE_DIRECTORY_FILES.join(', ')} of a node id.`,
  });
}

/**
 * The text of `{nodeId}/{file}` (`GET /pipelines/{id}/stages/{node}/{file}`), where `file` is one of
 * {@link STAGE_DIRECTORY_FILES}, read through the run's store (the file store of a local run directory, or a
 * shared store). Refuses anything else.
 * @throws {ApiError} `NOT_FOUND` (404) for a name that is not a node id or a served file, or a missing file.
 */
export async function readStoredNodeFile(store: RunStore, nodeId: string, file: string): Promise<string> {
  const bytes = await store.readStageFile(nodeId, checkNodeFile(nodeId, file));
  if (bytes === undefined) throw nodeFileNotFound(nodeId, file, 'the stage has not written it');
  return new TextDecoder().decode(bytes);
}

/** Which served files (of {@link STAGE_DIRECTORY_FILES}) each top-level node has, as `RunDetails.stages` lists them. */
export interface StoredStageListing {
  /** Per node of `nodeIds` (in that order) that has at least one served file directly in its stage. */
  readonly stages: { nodeId: string; files: StageDirectoryFileName[] }[];
  /**
   * Every stage directory (top-level and inside parallel branches at any depth) holding a served file or an earlier
   * visit, sorted by `dir` (parents before their branch stages).
   */
  readonly stageDirectories: StageDirectory[];
}

/**
 * The stage listing of `RunDetails` (`stages` and `stageDirectories`) read through a run store, for a run directory
 * and a shared store alike: one `listStageFiles` per top-level stage, whose names cover its visits and its parallel
 * branches' stages. Child runs kept inside a stage are not stages of this run and are left out.
 * @param nodeIds the graph's node ids (or the completed ones when the graph is unknown), for `stages`
 */
export async function readStoredStageListing(
  store: RunStore,
  nodeIds: readonly string[],
): Promise<StoredStageListing> {
  const tops = [...new Set((await store.listStages()).map((stagePath) => stagePath.split('/')[0]!))];
  const byDir = new Map<string, StageContents & { readonly branchPath: string[] }>();
  for (const top of tops) {
    if (!SEGMENT_PATTERN.test(top)) continue;
    for (const file of await store.listStageFiles(top)) {
      const place = classifyStageFile(file.name);
      if (place === undefined) continue;
      const dir = `${top}${place.subdir}`;
      let entry = byDir.get(dir);
      if (entry === undefined) {
        entry = { sizes: new Map(), visits: new Set(), branchPath: place.branchPath };
        byDir.set(dir, entry);
      }
      if (place.visit !== undefined) entry.visits.add(Number(place.visit));
      else if (place.served !== undefined) entry.sizes.set(place.served, file.sizeBytes);
    }
  }
  const stageDirectories: StageDirectory[] = [...byDir.entries()]
    .map(([dir, entry]) =>
      toStageDirectory({ dir, nodeId: dir.split('/').at(-1)!, branchPath: entry.branchPath }, entry),
    )
    .filter((directory) => directory.files.length > 0 || directory.visits.length > 0)
    .sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  const stages: StoredStageListing['stages'] = [];
  for (const nodeId of nodeIds) {
    if (!SEGMENT_PATTERN.test(nodeId)) continue;
    const files = byDir.get(nodeId)?.sizes;
    const served = STAGE_DIRECTORY_FILES.filter((name) => files?.has(name) === true);
    if (served.length > 0) stages.push({ nodeId, files: served });
  }
  return { stages, stageDirectories };
}
