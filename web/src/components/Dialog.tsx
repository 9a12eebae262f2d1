// Every overlay (the search palette, edit panels, confirm prompts) is a native <dialog> opened with showModal(): the
// browser makes the page behind it inert, moves focus into it and closes it on Escape. Mounting the component opens
// it and unmounting closes it, so the owner of the overlay only decides whether it is shown; `onClose` is told when
// the owner pressed Escape or clicked beside it. Focus goes back to what had it before, the button that opened it.
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

export function Dialog(props: {
  label: string;
  onClose: () => void;
  /** The dialog's own class: `overlay` by default (full screen, the panel centred near the top). */
  class?: string;
  children: ComponentChildren;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useLayoutEffect(() => {
    const element = dialog.current!;
    const opener = document.activeElement as HTMLElement | null;
    element.showModal();
    return () => {
      if (element.open) element.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      class={props.class ?? 'overlay'}
      aria-label={props.label}
      onCancel={(event) => {
        event.preventDefault();
        onClose.current();
      }}
      // Escape closes at once, also from a field that would take it for itself (a search field clears its text).
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        onClose.current();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose.current();
      }}
    >
      {props.children}
    </dialog>
  );
}

/** A question the owner answers before something is done that cannot be undone. */
export function Confirm(props: { question: string; action: string; onAnswer: (yes: boolean) => void }) {
  return (
    <Dialog label={props.question} onClose={() => props.onAnswer(false)}>
      <div class="modal">
        <h2>{props.question}</h2>
        <div class="row">
          <button type="button" class="danger" onClick={() => props.onAnswer(true)}>
            {props.action}
          </button>
          {/* biome-ignore lint/a11y/noAutofocus: the dialog is opened by the owner; focus starts on the harmless answer */}
          <button type="button" class="ghost" autoFocus onClick={() => props.onAnswer(false)}>
            Cancel
          </button>
        </div>
      </div>
    </Dialog>
  );
}
