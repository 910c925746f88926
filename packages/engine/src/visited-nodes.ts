/**
 * The set of nodes a run has visited at least once, kept as ranges of node positions in the graph's declaration
 * order, for the checkpoint's `visited_nodes` (docs/architecture.md "Checkpoint": the snapshot holds every
 * visit counter, yet its size does not grow with the run). A run usually visits nodes in long contiguous
 * stretches of the declaration order, so the text stays a few characters long: `0-9999` for a 10,000-node
 * chain.
 */

/** Node positions visited at least once, as sorted, disjoint, non-adjacent `[first, last]` ranges. Internal to the engine. */
export class VisitedNodes {
  private readonly ranges: [number, number][] = [];
  private text: string | undefined = '';

  /**
   * Parses `visited_nodes` text (`0-4,7,9-12`): comma-separated positions or inclusive ranges, ascending.
   * @throws {Error} when the text is not of that form.
   */
  static parse(text: string): VisitedNodes {
    const visited = new VisitedNodes();
    if (text === '') return visited;
    for (const part of text.split(',')) {
      const match = /^(\d+)(?:-(\d+))?$/.exec(part);
      if (match === null) throw new Error(`"${part}" is not a position or a range of positions`);
      const first = Number(match[1]);
      const last = match[2] === undefined ? first : Number(match[2]);
      for (let position = first; position <= last; position++) visited.add(position);
    }
    return visited;
  }

  /** Adds a node position. */
  add(position: number): void {
    const ranges = this.ranges;
    // The first range whose end is at or after position - 1 (it may absorb the position).
    let low = 0;
    let high = ranges.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ranges[middle]![1] < position - 1) low = middle + 1;
      else high = middle;
    }
    const range = ranges[low];
    if (range !== undefined && range[0] <= position + 1) {
      if (range[0] <= position && position <= range[1]) return;
      if (position < range[0]) range[0] = position;
      else range[1] = position;
      const next = ranges[low + 1];
      if (next !== undefined && next[0] === range[1] + 1) {
        range[1] = next[1];
        ranges.splice(low + 1, 1);
      }
    } else ranges.splice(low, 0, [position, position]);
    this.text = undefined;
  }

  /** Removes a node position (a cancelled visit is not counted). */
  remove(position: number): void {
    const index = this.ranges.findIndex(([first, last]) => first <= position && position <= last);
    if (index === -1) return;
    const [first, last] = this.ranges[index]!;
    const kept: [number, number][] = [];
    if (first < position) kept.push([first, position - 1]);
    if (position < last) kept.push([position + 1, last]);
    this.ranges.splice(index, 1, ...kept);
    this.text = undefined;
  }

  /** Every position in the set, ascending. */
  *positions(): Generator<number> {
    for (const [first, last] of this.ranges)
      for (let position = first; position <= last; position++) yield position;
  }

  /** The `visited_nodes` text, e.g. `0-4,7`. */
  toString(): string {
    this.text ??= this.ranges
      .map(([first, last]) => (first === last ? `${first}` : `${first}-${last}`))
      .join(',');
    return this.text;
  }
}
