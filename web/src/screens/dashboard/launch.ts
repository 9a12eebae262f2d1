// Quick launch: typing anywhere on the dashboard (no field focused) filters the app tiles; Enter opens the selected
// tile (the first unless the arrows moved), Escape clears. One listener for the page, shared by every apps card.
import { signal } from '@preact/signals';

export const launchQuery = signal('');
/** The place of the selected tile among the tiles shown. */
export const launchIndex = signal(0);

/** Whether a key press belongs to a field (typing there is never a launch). */
function inField(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element) return false;
  return (
    element.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName) ||
    element.closest('[role="dialog"]') !== null
  );
}

/** Listens for quick-launch keys; `open` opens the selected tile. Returns the listener's removal. */
export function listenForLaunch(open: () => void): () => void {
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey || inField(event.target)) return;
    const query = launchQuery.value;
    if (event.key === 'Escape') {
      launchQuery.value = '';
      launchIndex.value = 0;
    } else if (event.key === 'Enter' && query !== '') {
      event.preventDefault();
      open();
    } else if (event.key === 'Backspace' && query !== '') {
      launchQuery.value = query.slice(0, -1);
      launchIndex.value = 0;
    } else if ((event.key === 'ArrowRight' || event.key === 'ArrowDown') && query !== '') {
      event.preventDefault();
      launchIndex.value++;
    } else if ((event.key === 'ArrowLeft' || event.key === 'ArrowUp') && query !== '') {
      event.preventDefault();
      launchIndex.value = Math.max(0, launchIndex.value - 1);
    } else if (event.key.length === 1 && (query !== '' || event.key !== ' ')) {
      launchQuery.value = query + event.key;
      launchIndex.value = 0;
    }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

/** Whether an app matches the quick-launch text (name, description or group, any case). */
export function matchesLaunch(
  app: { name: string; description: string; group: string },
  query: string,
): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === '') return true;
  return [app.name, app.description, app.group].some((text) => text.toLowerCase().includes(needle));
}
