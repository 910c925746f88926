/**
 * JSON values as a collapsible tree: objects and arrays fold (`<details>`, keyboard-operable), long or multi-line
 * strings are folded to their first line, and a string that holds JSON is shown as the tree it holds.
 */

const FOLD_AT = 120;

/** A JSON value as a tree; `depth` 0 is the root. */
export function JsonTree({ value, depth = 0 }: { value: unknown; depth?: number }) {
  if (value === null) return <span class="json-null">null</span>;
  if (typeof value === 'number' || typeof value === 'boolean')
    return <span class={`json-${typeof value}`}>{String(value)}</span>;
  if (typeof value === 'string') return <JsonString value={value} depth={depth} />;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="json-punct">[]</span>;
    return (
      <details class="json-node" open={depth === 0 && value.length <= 20}>
        <summary>
          <span class="json-punct">[</span>
          {value.length} item{value.length === 1 ? '' : 's'}
          <span class="json-punct">]</span>
        </summary>
        <ol class="json-children" start={0}>
          {value.map((item, index) => (
            <li key={index}>
              <span class="json-key">{index}</span> <JsonTree value={item} depth={depth + 1} />
            </li>
          ))}
        </ol>
      </details>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span class="json-punct">{'{}'}</span>;
    return (
      <details class="json-node" open={depth === 0 && entries.length <= 20}>
        <summary>
          <span class="json-punct">{'{'}</span>
          {entries.length} key{entries.length === 1 ? '' : 's'}
          <span class="json-punct">{'}'}</span>
        </summary>
        <ul class="json-children">
          {entries.map(([key, item]) => (
            <li key={key}>
              <span class="json-key">{key}</span>: <JsonTree value={item} depth={depth + 1} />
            </li>
          ))}
        </ul>
      </details>
    );
  }
  return <span>{String(value)}</span>;
}

function JsonString({ value, depth }: { value: string; depth: number }) {
  const trimmed = value.trim();
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length > 2) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      return (
        <span class="json-embedded">
          <span class="muted small">JSON text </span>
          <JsonTree value={parsed} depth={depth + 1} />
        </span>
      );
    } catch {
      // Not JSON after all: show it as text.
    }
  }
  const firstLine = value.split('\n', 1)[0] ?? '';
  if (value.length <= FOLD_AT && !value.includes('\n')) return <span class="json-string">"{value}"</span>;
  return (
    <details class="json-node json-long">
      <summary>
        <span class="json-string">"{firstLine.slice(0, FOLD_AT)}…"</span>{' '}
        <span class="muted small">
          {value.length.toLocaleString('en-US')} characters, {value.split('\n').length} lines
        </span>
      </summary>
      <pre class="json-full">{value}</pre>
    </details>
  );
}
