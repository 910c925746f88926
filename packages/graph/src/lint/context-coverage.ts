/**
 * Whether the conditions of a node's edges always leave one eligible, whatever the run context holds: the analysis
 * behind `condition_coverage`'s warning about nodes whose every edge tests a context value (issue 19).
 */
import {
  type ConditionAst,
  type ConditionClause,
  comparisonHolds,
  conditionHoldsWith,
} from '@attractor/condition';

/** Past this many distinct clauses the check gives up (2^n assignments) and reports nothing. */
const MAX_ATOMS = 12;

interface Atom {
  readonly id: string;
  /** For `key=value` atoms: the key, so two values of one key are never both true. */
  readonly equalityKey?: string;
}

/** The atom a clause reads and whether the clause is its negation (`k!=v` is not `k=v`). */
function atomOf(clause: ConditionClause): { readonly atom: Atom; readonly negated: boolean } {
  const key = clause.key.path;
  if (clause.kind === 'truthy') return { atom: { id: `${key}?` }, negated: false };
  const value = clause.literal.value;
  switch (clause.operator) {
    case '=':
    case '!=':
      return { atom: { id: `${key}=${value}`, equalityKey: key }, negated: clause.operator === '!=' };
    case 'contains':
    case '!contains':
      return { atom: { id: `${key} contains ${value}` }, negated: clause.operator === '!contains' };
    default:
      return { atom: { id: `${key} ${clause.operator} ${value}` }, negated: false };
  }
}

/**
 * True when every assignment of the context-dependent clauses of `conditions` makes at least one of them hold for
 * the node outcome `outcome`; false when some context (and preferred label) leaves none eligible; undefined when the
 * conditions have too many distinct clauses to check. Clauses on `outcome` are evaluated; every other clause is a
 * free boolean, `k!=v` the negation of `k=v`, and two values of one key are never equal at once.
 */
export function conditionsCoverEveryContext(
  conditions: readonly ConditionAst[],
  outcome: string,
): boolean | undefined {
  const atoms = new Map<string, Atom>();
  for (const condition of conditions) {
    for (const clause of condition.clauses) {
      if (clause.key.path === 'outcome') continue;
      const { atom } = atomOf(clause);
      atoms.set(atom.id, atom);
    }
  }
  const list = [...atoms.values()];
  if (list.length > MAX_ATOMS) return undefined;
  const index = new Map(list.map((atom, position) => [atom.id, position]));
  for (let mask = 0; mask < 1 << list.length; mask += 1) {
    if (!possible(list, mask)) continue;
    const clauseHolds = (clause: ConditionClause): boolean => {
      if (clause.key.path === 'outcome') {
        return clause.kind === 'truthy' ? outcome !== '' : comparisonHolds(clause, outcome);
      }
      const { atom, negated } = atomOf(clause);
      const value = (mask & (1 << index.get(atom.id)!)) !== 0;
      return negated ? !value : value;
    };
    if (!conditions.some((condition) => conditionHoldsWith(condition, clauseHolds))) return false;
  }
  return true;
}

/** An assignment is impossible when it makes one key equal to two different values. */
function possible(atoms: readonly Atom[], mask: number): boolean {
  const equalKeys = new Set<string>();
  for (let position = 0; position < atoms.length; position += 1) {
    const key = atoms[position]!.equalityKey;
    if (key === undefined || (mask & (1 << position)) === 0) continue;
    if (equalKeys.has(key)) return false;
    equalKeys.add(key);
  }
  return true;
}
