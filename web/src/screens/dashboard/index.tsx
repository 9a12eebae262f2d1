// The dashboard: the shown board's saved layout (board tabs above it) as cards on a 12-column gridstack grid, live
// data from the card stream, drag and resize saved back (If-Match: a 412 means another tab changed it, so the newer layout is loaded), snap or free
// placement, cards added and removed.
import 'gridstack/dist/gridstack.min.css';
import { useSignal } from '@preact/signals';
import type { GridStackNode } from 'gridstack';
import { useEffect, useRef } from 'preact/hooks';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { failed, toast } from '../../state.ts';
import { editingApps } from './app-editor.tsx';
import { BoardTabs } from './board-tabs.tsx';
import { loadBoards, readLayout, writeLayout } from './boards.ts';
import { type Card, cardData } from './cards/index.tsx';
import { cardTypes, Grid, type Layout, titles } from './grid.tsx';

interface Saved {
  layout: Layout;
  etag: string | null;
  mount: number;
}

function inputOf(cards: Card[]) {
  return cards.map(({ id, type, size, x, y, w, h, config }) => ({ id, type, size, x, y, w, h, config }));
}

export default function Dashboard() {
  // The layout with its version (If-Match on each save) and the grid's mount number: a layout read, or saved with
  // cards added, removed or repacked, mounts a new grid.
  const mounts = useRef(0);
  const saved = useData<Saved>(async () => {
    // The boards first: the shown board (the default one until a tab is chosen) says where its layout is.
    await loadBoards();
    const { data, error, response } = await readLayout();
    if (error || !data) throw new Error(`the layout could not be loaded (${response.status})`);
    return { layout: data, etag: response.headers.get('etag'), mount: ++mounts.current };
  });
  // The grid keeps the handlers it was mounted with: they read the newest layout from here, not from their render.
  const latest = useRef<Saved | undefined>(undefined);
  latest.current = saved.data;
  const layout = saved.data?.layout ?? null;
  const adding = useSignal('clock');
  async function save(next: Layout, remount: boolean) {
    const etag = latest.current?.etag;
    const { data, error, response } = await writeLayout(
      { mode: next.mode, cards: inputOf(next.cards) },
      etag ?? null,
    );
    if (response.status === 412) {
      toast('The layout was changed elsewhere: showing the newer one', 'info');
      await saved.reload();
      return;
    }
    if (error || !data)
      throw new Error((error as { message?: string })?.message ?? 'saving the layout failed');
    const mount = remount ? ++mounts.current : (latest.current?.mount ?? 0);
    latest.current = { layout: data, etag: response.headers.get('etag'), mount };
    saved.set(latest.current);
  }

  useEffect(() => {
    const stream = new EventSource('/api/dashboard/stream');
    stream.addEventListener('card', (event) => {
      const { type, data } = JSON.parse((event as MessageEvent).data) as { type: string; data: unknown };
      cardData.value = { ...cardData.value, [type]: data };
    });
    return () => stream.close();
  }, []);

  function moved(nodes: GridStackNode[]) {
    const current = latest.current?.layout;
    if (!current) return;
    const at = new Map(nodes.map((node) => [String(node.id), node]));
    const cards = current.cards
      .map((card) => {
        const node = at.get(card.id);
        return node
          ? {
              ...card,
              x: node.x ?? card.x,
              y: node.y ?? card.y,
              w: node.w ?? card.w,
              size: node.w ?? card.w,
              h: node.h ?? card.h,
            }
          : card;
      })
      .sort((a, b) => a.y - b.y || a.x - b.x);
    save({ ...current, cards }, current.mode === 'snap').catch(failed);
  }
  function remove(id: string) {
    const layout = latest.current?.layout;
    if (!layout) return;
    save({ ...layout, cards: layout.cards.filter((card) => card.id !== id) }, true).catch(failed);
  }
  function add() {
    const layout = latest.current?.layout;
    if (!layout) return;
    const type = adding.value;
    const size = type === 'clock' || type === 'weather' ? 2 : 4;
    const bottom = Math.max(0, ...layout.cards.map((card) => card.y + card.h));
    const card = {
      id: `${type}-${Math.random().toString(36).slice(2, 8)}`,
      type,
      size,
      x: 0,
      y: bottom,
      w: size,
      h: 2,
      config: {},
    };
    save({ ...layout, cards: [...layout.cards, card as Card] }, true).catch(failed);
  }
  function setMode(mode: Layout['mode']) {
    const layout = latest.current?.layout;
    if (!layout || layout.mode === mode) return;
    save({ ...layout, mode }, true).catch(failed);
  }

  return (
    <div class="dashboard">
      <div class="page-head">
        <h1>Dashboard</h1>
        <BoardTabs onSwitch={saved.reload} />
        <div class="toolbar">
          {/* biome-ignore lint/a11y/useSemanticElements: two toggle buttons, not a form section */}
          <div class="segmented" role="group" aria-label="Placement">
            <button type="button" aria-pressed={layout?.mode === 'snap'} onClick={() => setMode('snap')}>
              Snap
            </button>
            <button type="button" aria-pressed={layout?.mode === 'free'} onClick={() => setMode('free')}>
              Free
            </button>
          </div>
          <button
            type="button"
            aria-pressed={editingApps.value}
            onClick={() => (editingApps.value = !editingApps.value)}
          >
            <Icon name="edit" size={15} /> {editingApps.value ? 'Done editing' : 'Edit apps'}
          </button>
          <select
            aria-label="Card to add"
            value={adding.value}
            onChange={(e) => (adding.value = e.currentTarget.value)}
          >
            {cardTypes.map((type) => (
              <option key={type} value={type}>
                {type === 'blank' ? 'Blank spacer' : titles[type]}
              </option>
            ))}
          </select>
          <button type="button" onClick={add}>
            <Icon name="plus" size={15} /> Add card
          </button>
        </div>
      </div>
      {layout && <Grid key={saved.data?.mount} layout={layout} onChange={moved} onRemove={remove} />}
    </div>
  );
}
