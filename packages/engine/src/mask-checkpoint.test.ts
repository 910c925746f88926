import { describe, expect, it } from 'vitest';
import { createCheckpointMasker } from './mask-checkpoint.js';
import { createSecretMasker, REDACTED } from './redact-secrets.js';
import type { StageRecord } from './run-store.js';
import { createTestCheckpoint } from './test/run-store-contract.js';

const SECRET = 'hunter2-deploy-secret';

describe('createCheckpointMasker (the checkpoint masked once per node id and stage record)', () => {
  const masker = createSecretMasker({ values: [SECRET] });

  it('masks exactly like masker.mask: secret values and token shapes anywhere, strings under secret keys whole', () => {
    const checkpoint = createTestCheckpoint({
      current_node: `deploy_${SECRET}`,
      completed_nodes: ['start', `deploy_${SECRET}`, 'ghp_abcdefghijklmnopqrstuvwxyz0123'],
      recent_stages: [
        { node: 'start', status: 'success' },
        { node: 'deploy', status: 'fail', failure_reason: `login with ${SECRET} refused` },
      ],
      node_outcomes: { deploy: { status: 'fail', failureReason: `token ${SECRET}` } },
      context: { deploy_token: 'plain-looking', note: `uses ${SECRET}`, count: 3 },
      logs: [`ran with sk-${'a'.repeat(20)}`],
      failure_reason: `stopped: ${SECRET}`,
    });
    const masked = createCheckpointMasker(masker)(checkpoint);
    expect(masked).toEqual(masker.mask(checkpoint));
    expect(JSON.stringify(masked)).not.toContain(SECRET);
    expect(masked.context.deploy_token).toBe(REDACTED);
    expect(masked.completed_nodes).toEqual(['start', `deploy_${REDACTED}`, REDACTED]);
    expect(masked.recent_stages[1]!.failure_reason).toBe(`login with ${REDACTED} refused`);
    // The caller's checkpoint is not changed.
    expect(checkpoint.completed_nodes[1]).toBe(`deploy_${SECRET}`);
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

    // Outcomes too, also of a node named __proto__.
    const outcomes = Object.create(null) as Record<string, { status: 'fail'; failureReason: string }>;
    const proto = '__proto__';
    outcomes[proto] = { status: 'fail', failureReason: `uses ${SECRET}` };
    const third = maskCheckpoint(createTestCheckpoint({ node_outcomes: outcomes }));
    const fourth = maskCheckpoint(createTestCheckpoint({ node_outcomes: outcomes }));
    expect(Object.keys(third.node_outcomes)).toEqual(['__proto__']);
    expect(third.node_outcomes[proto]!.failureReason).toBe(`uses ${REDACTED}`);
    expect(fourth.node_outcomes[proto]).toBe(third.node_outcomes[proto]);
    expect(outcomes[proto]!.failureReason).toBe(`uses ${SECRET}`);
  });
});
