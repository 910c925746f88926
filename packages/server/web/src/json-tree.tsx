/**
 * JSON values as a collapsible tree: objects and arrays fold (`<details>`, keyboard-operable), long or multi-line
 * strings are folded to their first line, and a string that holds JSON is shown as the tree it holds.
 */

import type { ComponentChildren } from 'preact';

const FOLD_AT = 120;

/**
 * A JSON value as a tree; `depth` 0 is the root. `label` (an object key or array index, with its punctuation) is
 * shown before the value, inside the summary of a folded value so the two stay on one line.
 */
export function JsonTree({
  value,
  depth = 0,
  label,
}: {
  value: unknown;
  depth?: number;
  label?: ComponentChildren;
}) {
  if (value === null)
    return (
      <>
        {label}
        <span class="json-null">null</span>
      </>
    );
  if (typeof value === 'number' || typeof value === 'boolean')
    return (
      <>
        {label}
        <span class={`json-${typeof value}`}>{String(value)}</span>
      </>
    );
  if (typeof value === 'string') return <JsonString value={value} depth={depth} label={label} />;
  if (Array.isArray(value)) {
    if (value.length === 0)
      return (
        <>
          {label}
          <span class="json-punct">[]</span>
        </>
      );
    return (
      <details class="json-node" open={depth === 0 && value.length <= 20}>
        <summary>
          {label}
          <span class="json-punct">[</span>
          {value.length} item{value.length === 1 ? '' : 's'}
          <span class="json-punct">]</span>
        </summary>
        <ol class="json-children" start={0}>
          {value.map((item, index) => (
            <li key={index}>
              <JsonTree value={item} depth={depth + 1} label={<span class="json-key">{index} </span>} />
            </li>
          ))}
        </ol>
      </details>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0)
      return (
        <>
          {label}
          <span class="json-punct">{'{}'}</span>
        </>
      );
    return (
      <details class="json-node" open={depth === 0 && entries.length <= 20}>
        <summary>
          {label}
          <span class="json-punct">{'{'}</span>
          {entries.length} key{entries.length === 1 ? '' : 's'}
          <span class="json-punct">{'}'}</span>
        </summary>
        <ul class="json-children">
          {entries.map(([key, item]) => (
            <li key={key}>
              <JsonTree
                value={item}
                depth={depth + 1}
                label={
                  <>
                    <span class="json-key">{key}</span>:{' '}
                  </>
                }
              />
            </li>
          ))}
        </ul>
      </details>
    );
  }
  return (
    <>
      {label}
      <span>{String(value)}</span>
    </>
  );
}

function JsonString({ value, depth, label }: { value: string; depth: number; label: ComponentChildren }) {
  const trimmed = value.trim();
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && trimmed.length > 2) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      return (
        <span class="json-embedded">
          <JsonTree
            value={parsed}
            depth={depth + 1}
            label={
              <>
                {label}
                <span class="muted small">JSON text </span>
              </>
            }
          />
        </span>
      );
    } catch {
      // Not JSON after all: show it as text.
    }
  }
  const firstLine = value.split('\n', 1)[0] ?? '';
  if (value.length <= FOLD_AT && !value.includes('\n'))
    return (
      <>
        {label}
        <span class="json-string">"{value}"</span>
      </>
    );
  return (
    <details class="json-node json-long">
      <summary>
        {label}
        <span class="json-string">"{firstLine.slice(0, FOLD_AT)}…"</span>{' '}
        <span class="muted small">
          {value.length.toLocaleString('en-US')} characters, {value.split('\n').length} lines
        </span>
      </summary>
      <pre class="json-full">{value}</pre>
    </details>
  );
}
