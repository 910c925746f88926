/** A foreach item's entry in an event's `branchPath` (README "Typed data"): `items/<n>`. */
const ITEM_SEGMENT = /^items\/(\d+)$/;

/**
 * How a stage is named on the run's lines and in `inspect`'s rows: its node id, followed by the index of each foreach
 * item it runs in (`check [3]`; in nested foreach bodies `check [1][4]`), read from the `items/<n>` entries of the
 * event's `branchPath`. A parallel branch's stage needs none: its path's entries are branch names, and the branch
 * shows by its indentation under the fan-out.
 *
 * @param stage - the node id and the branch path of a stage's event (absent at the top level).
 * @returns the node id, with `[n]` per enclosing foreach item.
 */
export function stageName(stage: {
  readonly nodeId: string;
  readonly branchPath?: readonly string[];
}): string {
  const items = (stage.branchPath ?? []).flatMap((segment) => {
    const index = ITEM_SEGMENT.exec(segment)?.[1];
    return index === undefined ? [] : [`[${index}]`];
  });
  return items.length === 0 ? stage.nodeId : `${stage.nodeId} ${items.join('')}`;
}
