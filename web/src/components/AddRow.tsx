// The line that adds one thing to a list: a labelled field (and any other fields given as children), submitted by
// Enter or its button. The text is cleared once `onAdd` has added it; it stays when `onAdd` answers false (it
// failed and said why), so nothing typed is lost.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Icon } from './Icon.tsx';

export function AddRow(props: {
  label: string;
  onAdd: (text: string) => Promise<boolean | undefined> | boolean | undefined;
  /** The button's words; null for none (Enter adds). */
  button?: string | null;
  /** `row` (field and button side by side) by default; `stack` puts the field on its own line. */
  class?: string;
  pattern?: string;
  /** What the field holds at first (a page title to create, from a link); the field then has the focus. */
  initial?: string;
  children?: ComponentChildren;
}) {
  const [text, setText] = useState(props.initial ?? '');
  const button = props.button === undefined ? 'Add' : props.button;
  return (
    <form
      class={props.class ?? 'row'}
      onSubmit={async (event) => {
        event.preventDefault();
        if ((await props.onAdd(text)) !== false) setText('');
      }}
    >
      <label>
        {props.label}
        <input
          value={text}
          // biome-ignore lint/a11y/noAutofocus: the owner followed a link to create this page; the field is what comes next.
          autoFocus={props.initial !== undefined}
          onInput={(e) => setText(e.currentTarget.value)}
          required
          pattern={props.pattern}
        />
      </label>
      {props.children}
      {button !== null && (
        <button type="submit">
          <Icon name="plus" size={15} /> {button}
        </button>
      )}
    </form>
  );
}
