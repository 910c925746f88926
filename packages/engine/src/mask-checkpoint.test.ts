import { describe, expect, it } from 'vitest';
import { checkpointSchema } from './checkpoint-schema.js';
import {
  CHECKPOINT_DATA_FIELDS,
  createCheckpointMasker,
  maskEvent,
  maskManifest,
  maskStageStatus,
} from './mask-checkpoint.js';
import { createSecretMasker, REDACTED } from './redact-secrets.js';
import type { StageRecord } from './run-store.js';
import { createTestCheckpoint, createTestManifest } from './test/run-store-contract.js';

const SECRET = 'hunter2-deploy-secret';

describe('createCheckpointMasker (DESIGN.md "Secrets": the data masked, the structure kept)', () => {
  const masker = createSecretMasker({ values: [SECRET] });

  it('masks the data: context, logs, outcomes, stage records, failure streaks and the failure reason', () => {
    const checkpoint = createTestCheckpoint({
      recent_stages: [
        { node: 'start', status: 'success' },
        { node: 'deploy', status: 'fail', failure_reason: `login with ${SECRET} refused` },
      ],
      node_outcomes: {
        deploy: {
          status: 'fail',
          failureReason: `token ${SECRET}`,
          contextUpdates: { 'tool.output': SECRET },
        },
      },
      failure_streaks: { deploy: { reason: `token ${SECRET}`, count: 2 } },
      context: { deploy_token: 'plain-looking', note: `uses ${SECRET}`, count: 3 },
      logs: [`ran with sk-${'a'.repeat(20)}`],
      failure_reason: `stopped: ${SECRET}`,
    });
    const masked = createCheckpointMasker(masker)(checkpoint);
    expect(JSON.stringify(masked)).not.toContain(SECRET);
    expect(masked.context).toEqual({ deploy_token: REDACTED, note: `uses ${REDACTED}`, count: 3 });
    expect(masked.logs).toEqual([`ran with ${REDACTED}`]);
    expect(masked.recent_stages[1]).toEqual({
      node: 'deploy',
      status: 'fail',
      failure_reason: `login with ${REDACTED} refused`,
    });
    expect(masked.node_outcomes.deploy).toEqual({
      status: 'fail',
      failureReason: `token ${REDACTED}`,
      contextUpdates: { 'tool.output': REDACTED },
    });
    expect(masked.failure_streaks.deploy).toEqual({ reason: `token ${REDACTED}`, count: 2 });
    expect(masked.failure_reason).toBe(`stopped: ${REDACTED}`);
    // The caller's checkpoint is not changed.
    expect(checkpoint.context.note).toBe(`uses ${SECRET}`);
  });

  it('keeps node ids, run ids and counters as they are, even when they equal a secret value (resume looks them up)', () => {
    const idMasker = createSecretMasker({ values: ['deploy', 'run-2026'] });
    const checkpoint = createTestCheckpoint({
      run_id: 'run-2026',
      current_node: 'deploy',
      next_node: 'deploy',
      completed_nodes: ['start', 'deploy'],
      fallbacks_taken: ['deploy'],
      node_visits: { deploy: 2 },
      node_retries: { deploy: 1 },
      recent_stages: [{ node: 'deploy', status: 'fail', notes: 'deploy failed' }],
      node_outcomes: {
        deploy: { status: 'fail', suggestedNextIds: ['deploy'], failureReason: 'deploy failed' },
      },
    });
    const masked = createCheckpointMasker(idMasker)(checkpoint);
    expect(masked.run_id).toBe('run-2026');
    expect([masked.current_node, masked.next_node]).toEqual(['deploy', 'deploy']);
    expect(masked.completed_nodes).toEqual(['start', 'deploy']);
    expect(masked.fallbacks_taken).toEqual(['deploy']);
    expect([masked.node_visits, masked.node_retries]).toEqual([{ deploy: 2 }, { deploy: 1 }]);
    expect(masked.recent_stages).toEqual([{ node: 'deploy', status: 'fail', notes: `${REDACTED} failed` }]);
    expect(masked.node_outcomes).toEqual({
      deploy: { status: 'fail', suggestedNextIds: ['deploy'], failureReason: `${REDACTED} failed` },
    });
  });

  it('returns the same checkpoint when nothing is secret, and a masked record keeps its identity', () => {
    const maskCheckpoint = createCheckpointMasker(masker);
    const clean = createTestCheckpoint();
    expect(maskCheckpoint(clean)).toBe(clean);

    const leaky: StageRecord = { node: 'deploy', status: 'fail', failure_reason: SECRET };
    const first = maskCheckpoint(createTestCheckpoint({ recent_stages: [leaky] }));
    const second = maskCheckpoint(
      createTestCheckpoint({ recent_stages: [leaky, { node: 'next', status: 'success' }] }),
    );
    expect(first.recent_stages[0]!.failure_reason).toBe(REDACTED);
    expect(second.recent_stages[0]).toBe(first.recent_stages[0]);

    // Outcomes too, also of a node named __proto__; an outcome with a field this file does not know is masked.
    const outcomes = Object.create(null) as Record<string, { status: 'fail'; failureReason: string }>;
    const proto = '__proto__';
    outcomes[proto] = { status: 'fail', failureReason: `uses ${SECRET}` };
    const third = maskCheckpoint(createTestCheckpoint({ node_outcomes: outcomes }));
    const fourth = maskCheckpoint(createTestCheckpoint({ node_outcomes: outcomes }));
    expect(Object.keys(third.node_outcomes)).toEqual(['__proto__']);
    expect(third.node_outcomes[proto]!.failureReason).toBe(`uses ${REDACTED}`);
    expect(fourth.node_outcomes[proto]).toBe(third.node_outcomes[proto]);
    expect(outcomes[proto]!.failureReason).toBe(`uses ${SECRET}`);
    const odd = { status: 'success', detail: `made with ${SECRET}` } as never;
    expect(maskCheckpoint(createTestCheckpoint({ node_outcomes: { a: odd } })).node_outcomes.a).toEqual({
      status: 'success',
      detail: `made with ${REDACTED}`,
    });
  });

  it('places every field of the checkpoint schema: data (masked) or structure (kept)', () => {
    const structure = Object.keys(checkpointSchema.shape).filter(
      (key) => !(CHECKPOINT_DATA_FIELDS as readonly string[]).includes(key),
    );
    // A new checkpoint field must be added to CHECKPOINT_DATA_FIELDS when it can hold a handler's or a user's text.
    expect(structure.sort()).toEqual(
      [
        'version',
        'timestamp',
        'run_id',
        'graph_sha256',
        'state',
        'restarted_to',
        'current_node',
        'next_node',
        'next_edge_index',
        'completed_nodes',
        'step_count',
        'node_retries',
        'visited_nodes',
        'node_visits',
        'gate_retries',
        'fallbacks_taken',
        'last_fidelity',
        'last_seq',
        'origin',
        'workspace',
      ].sort(),
    );
  });
});

describe('maskManifest', () => {
  it('masks the goal, paths and initial context, and keeps the node ids and run ids', () => {
    const masker = createSecretMasker({ values: ['deploy', SECRET] });
    const manifest = createTestManifest({
      goal: `ship with ${SECRET}`,
      workdir: `/home/${SECRET}/project`,
      node_ids: ['start', 'deploy', 'exit'],
      initial_context: { api_token: 'abc', note: SECRET },
    });
    const masked = maskManifest(manifest, masker);
    expect(masked.goal).toBe(`ship with ${REDACTED}`);
    expect(masked.workdir).toBe(`/home/${REDACTED}/project`);
    expect(masked.initial_context).toEqual({ api_token: REDACTED, note: REDACTED });
    expect(masked.node_ids).toEqual(['start', 'deploy', 'exit']);
    expect(maskManifest(createTestManifest(), masker)).toEqual(createTestManifest());
  });
});

describe('maskEvent and maskStageStatus (node ids, stage paths and question ids kept)', () => {
  const masker = createSecretMasker({ values: ['deploy'] });

  it("masks an event's data and keeps its node ids, stage path, branch and question id", () => {
    const event = {
      type: 'interview.started',
      nodeId: 'deploy',
      stage: 'fan/branches/deploy/deploy',
      branch: 'deploy',
      question: { id: 'deploy@1#1', stage: 'deploy', text: 'Ship deploy?', type: 'yes_no', options: [] },
      note: 'deploy done',
      api_token: 'plain',
    };
    expect(maskEvent(event, masker)).toEqual({
      ...event,
      question: { ...event.question, text: `Ship ${REDACTED}?` },
      note: `${REDACTED} done`,
      api_token: REDACTED,
    });
    const clean = { type: 'stage.started', nodeId: 'deploy', label: 'Ship' };
    expect(maskEvent(clean, masker)).toBe(clean);
  });

  it("masks a status file's text and keeps its suggested node ids", () => {
    expect(
      maskStageStatus({ outcome: 'success', suggested_next_ids: ['deploy'], notes: 'deploy ok' }, masker),
    ).toEqual({ outcome: 'success', suggested_next_ids: ['deploy'], notes: `${REDACTED} ok` });
  });
});
