// App-wide state as signals: the session, the toasts and whether the search palette is open.
import { signal } from '@preact/signals';
import type { components } from './api.d.ts';

export type SessionState = components['schemas']['SessionState'];

export const session = signal<SessionState | null>(null);

export interface Toast {
  id: number;
  kind: 'info' | 'error' | 'success';
  text: string;
}
export const toasts = signal<Toast[]>([]);
let toastId = 0;

export function toast(text: string, kind: Toast['kind'] = 'info'): void {
  const id = ++toastId;
  toasts.value = [...toasts.value, { id, kind, text }];
  setTimeout(() => {
    toasts.value = toasts.value.filter((t) => t.id !== id);
  }, 5000);
}

/** Reports a failed action to the owner instead of leaving it silent. */
export function failed(error: unknown): void {
  toast(error instanceof Error ? error.message : String(error), 'error');
}

export const searchOpen = signal(false);
