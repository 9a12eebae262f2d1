// The screens' tables: a head of column names (an empty name is an actions column, named for screen readers only),
// one row per item, and a line of text instead of the table when there is nothing to list.
import type { ComponentChildren, VNode } from 'preact';

export function Table<T>(props: {
  rows: readonly T[];
  row: (item: T) => VNode;
  /** Column names; none for a table whose rows speak for themselves. */
  head?: string[];
  /** Shown instead of the table when there are no rows; the table stays (empty) without it. */
  empty?: ComponentChildren;
  class?: string;
}) {
  if (props.rows.length === 0 && props.empty !== undefined) return <p class="muted empty">{props.empty}</p>;
  return (
    <table class={props.class}>
      {props.head && (
        <thead>
          <tr>
            {props.head.map((name, i) => (
              <th key={i}>{name || <span class="visually-hidden">Actions</span>}</th>
            ))}
          </tr>
        </thead>
      )}
      <tbody>{props.rows.map(props.row)}</tbody>
    </table>
  );
}
