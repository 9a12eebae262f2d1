// The board shown on the dashboard, and where its layout is read and written: the default board through
// /api/dashboard/layout (the same layout), any other through /api/boards/:id/layout.
import { signal } from '@preact/signals';
import type { components, paths } from '../../api.d.ts';
import { api } from '../../client.ts';

type Board = components['schemas']['Board'];
type LayoutInput = paths['/api/dashboard/layout']['put']['requestBody']['content']['application/json'];

export const boards = signal<Board[]>([]);
/** The board shown; null until the boards are loaded (the default board then). */
export const activeBoard = signal<Board | null>(null);

export async function loadBoards(): Promise<void> {
  const { data } = await api.GET('/api/boards');
  boards.value = data?.items ?? [];
  activeBoard.value ??= boards.value.find((board) => board.is_default) ?? null;
}

function other(): string | null {
  const board = activeBoard.value;
  return board && !board.is_default ? board.id : null;
}

export function readLayout() {
  const id = other();
  return id === null
    ? api.GET('/api/dashboard/layout')
    : api.GET('/api/boards/{id}/layout', { params: { path: { id } } });
}

export function writeLayout(body: LayoutInput, etag: string | null) {
  const headers = etag ? { 'if-match': etag } : {};
  const id = other();
  return id === null
    ? api.PUT('/api/dashboard/layout', { body, headers })
    : api.PUT('/api/boards/{id}/layout', { params: { path: { id } }, body, headers });
}
