// The one way two texts are compared on screen (a page's history, an edit that met a newer version, an agent's
// proposal): the `diff` library's line diff, removed lines struck through and added ones marked, each with a sign
// so the difference never rests on colour alone. Long unchanged stretches fold to their first and last lines.
import { diffLines } from 'diff';

/** Unchanged lines kept on each side of a change; a longer unchanged stretch folds in between. */
const context = 3;

type Kind = 'added' | 'removed' | 'same';
type Row = { kind: Kind; text: string } | { kind: 'folded'; count: number };

function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** With a newline at the end of both, a last line that only gained one is no change. */
function ended(text: string): string {
  return text.endsWith('\n') || text === '' ? text : `${text}\n`;
}

function rowsOf(before: string, after: string): Row[] {
  const parts = diffLines(ended(before), ended(after));
  return parts.flatMap((part, i): Row[] => {
    const kind: Kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    const lines = linesOf(part.value);
    if (kind !== 'same' || lines.length <= context * 2 + 1) return lines.map((text) => ({ kind, text }));
    const head = i === 0 ? [] : lines.slice(0, context);
    const tail = i === parts.length - 1 ? [] : lines.slice(-context);
    const folded = lines.length - head.length - tail.length;
    return [
      ...head.map((text) => ({ kind, text })),
      ...(folded > 0 ? [{ kind: 'folded' as const, count: folded }] : []),
      ...tail.map((text) => ({ kind, text })),
    ];
  });
}

const signs: Record<Kind, string> = { added: '+', removed: '−', same: ' ' };

export function Diff(props: {
  before: string;
  after: string;
  /** What is compared, e.g. "Version 3 → current text". */
  label: string;
}) {
  const rows = rowsOf(props.before, props.after);
  const added = rows.filter((row) => row.kind === 'added').length;
  const removed = rows.filter((row) => row.kind === 'removed').length;
  return (
    <figure class="diff" aria-label={props.label}>
      <figcaption class="muted small">
        {props.label}:{' '}
        {added + removed === 0
          ? 'no difference'
          : `${added} ${added === 1 ? 'line' : 'lines'} added, ${removed} removed`}
      </figcaption>
      {added + removed > 0 && (
        <pre class="diff-lines">
          {rows.map((row, i) => {
            if (row.kind === 'folded') {
              return (
                <span key={i} class="diff-folded">
                  {`… ${row.count} unchanged ${row.count === 1 ? 'line' : 'lines'}\n`}
                </span>
              );
            }
            const line = `${signs[row.kind]} ${row.text}\n`;
            if (row.kind === 'added') return <ins key={i}>{line}</ins>;
            if (row.kind === 'removed') return <del key={i}>{line}</del>;
            return <span key={i}>{line}</span>;
          })}
        </pre>
      )}
    </figure>
  );
}
