/**
 * What a run changed in its workspace, over the API (README "Workspaces"; issue 28): `GET /pipelines/{id}/diff`, the
 * run's total diff (its start commit to its last), and `GET /pipelines/{id}/stage-diff?dir=<stage dir>`, what one
 * stage changed (its commit, from its `status.json`). Each answers with the changed files (status, lines added and
 * deleted) and the patch, masked like every response. The diffs come from the server's workspace provider
 * (`WorkspaceProvider.diff`), which fetches the commits of a run another machine executed when it must.
 */
import type { RunStore, SecretMasker, WorkspaceDiff, WorkspaceProvider } from '@attractor/engine';
import type { Hono } from 'hono';
import { ApiError } from './errors/api-error.js';
import { readStoredStageFile, stageDirectoryQuerySchema } from './stage-directory-files.js';

/** The body of `GET /pipelines/{id}/diff`: the run's workspace and what it changed since it started. */
export interface RunDiffResponse extends WorkspaceDiff {
  /** The workspace's mode (`git`, `copy`). */
  readonly mode: string;
  /** The run's branch (`attractor/<run-id>`). */
  readonly branch: string | null;
}

/** The body of `GET /pipelines/{id}/stage-diff`: the stage's commit and what it changed, or `commit: null`. */
export type StageDiffResponse =
  | ({ readonly dir: string; readonly commit: string } & WorkspaceDiff)
  | { readonly dir: string; readonly commit: null };

/** Options of {@link mountWorkspaceDiffRoutes}. */
export interface WorkspaceDiffRoutesOptions {
  /** The server's workspace provider; without one (or without `diff`), the routes answer 404 `NO_WORKSPACE`. */
  readonly workspace: WorkspaceProvider | undefined;
  /** The store of a run the server knows. @throws {ApiError} 404 for an unknown run. */
  readonly openStore: (runId: string) => Promise<RunStore>;
  readonly secrets: Pick<SecretMasker, 'mask'>;
}

/** Registers the two diff routes on `app` (behind its token, like every run route). */
export function mountWorkspaceDiffRoutes(app: Hono, options: WorkspaceDiffRoutesOptions): void {
  const diffOf = async (store: RunStore, runId: string, commit?: string): Promise<WorkspaceDiff> => {
    const record = (await store.readCheckpoint())?.workspace;
    const diff = options.workspace?.diff;
    if (record === undefined || diff === undefined) {
      throw new ApiError({
        status: 404,
        code: 'NO_WORKSPACE',
        message:
          record === undefined
            ? `Run "${runId}" works in place: it has no workspace whose commits show what it changed (start runs with --workspace git or copy).`
            : `This server has no workspace provider that reads diffs (start it with --workspace).`,
      });
    }
    try {
      return await diff.call(options.workspace, {
        record,
        store,
        ...(commit === undefined ? {} : { commit }),
      });
    } catch (error) {
      const reason = (error as { readonly code?: unknown }).code;
      if (reason !== 'WORKSPACE_REFUSED') throw error;
      throw new ApiError({
        status: 409,
        code: 'WORKSPACE_UNAVAILABLE',
        message: (error as Error).message,
        cause: error,
      });
    }
  };

  app.get('/pipelines/:id/diff', async (c) => {
    const runId = c.req.param('id');
    const store = await options.openStore(runId);
    const record = (await store.readCheckpoint())?.workspace;
    const diff = await diffOf(store, runId);
    const body: RunDiffResponse = {
      mode: record?.mode ?? '',
      branch: typeof record?.ref === 'string' ? record.ref : null,
      ...diff,
    };
    return c.json(options.secrets.mask(body));
  });

  app.get('/pipelines/:id/stage-diff', async (c) => {
    const runId = c.req.param('id');
    const query = stageDirectoryQuerySchema.safeParse(c.req.query());
    if (!query.success || query.data.name !== undefined) {
      throw new ApiError({
        status: 400,
        code: 'INVALID_REQUEST',
        message:
          'Give the stage with ?dir= (a stage directory such as "review", "fan/branches/a/check" or "review/visits/1").',
      });
    }
    const dir = query.data.dir;
    const store = await options.openStore(runId);
    const status = JSON.parse(await readStoredStageFile(store, dir, 'status.json')) as { commit?: unknown };
    if (typeof status.commit !== 'string') return c.json({ dir, commit: null } satisfies StageDiffResponse);
    const diff = await diffOf(store, runId, status.commit);
    const body: StageDiffResponse = { dir, commit: status.commit, ...diff };
    return c.json(options.secrets.mask(body));
  });
}
