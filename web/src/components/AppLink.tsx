// A link between the app's screens: a plain click changes the screen without reloading the page; a click with a
// modifier or another button (new tab, new window) is left to the browser, which opens the same address.
import type { ComponentChildren } from 'preact';
import { navigate } from '../state.ts';

export function AppLink(props: { href: string; current?: 'page' | 'true'; children: ComponentChildren }) {
  return (
    <a
      href={props.href}
      aria-current={props.current}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
