import type { Signal } from '@preact/signals';

/** The "Unread only" switch of the inbox and of a feed's items. */
export function UnreadOnly({ value }: { value: Signal<boolean> }) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={value.value}
        onChange={(e) => (value.value = e.currentTarget.checked)}
      />
      Unread only
    </label>
  );
}
