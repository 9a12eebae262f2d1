// The dashboard: the saved layout's cards on a 12-column gridstack grid, live data from the card stream, drag and
// resize saved back (If-Match: a 412 means another tab changed it, so the newer layout is loaded), snap or free
// placement, cards added and removed.
import 'gridstack/dist/gridstack.min.css';
import { useSignal } from '@preact/signals';
import { GridStack, type GridStackNode } from 'gridstack';
import { Component, createRef } from 'preact';
import { useEffect } from 'preact/hooks';
import type { components } from '../api.d.ts';
import { Icon } from '../components/Icon.tsx';
import { failed, toast } from '../state.ts';
import { type Card, CardContent, cardData, cardTitle } from './DashboardCards.tsx';
import { BoardTabs } from './dashboard/BoardTabs.tsx';
import { loadBoards, readLayout, writeLayout } from './dashboard/boards.ts';

type Layout = components['schemas']['DashboardLayout'];

/** Every card type the layout API takes (the compiler holds this list to the generated API types), with its title. */
const titles: Record<Card['type'], string> = {
  clock: 'Clock',
  weather: 'Weather',
  host: 'Host',
  speedtest: 'Speed test',
  cluster: 'Cluster',
  storage: 'Storage',
  backups: 'Backups',
  'ai-usage': 'AI usage',
  health: 'Service health',
  blank: 'Spacer',
  flame: 'Flame',
  apps: 'Apps',
  bookmarks: 'Bookmarks',
};
const cardTypes = Object.keys(titles) as Card['type'][];

interface GridProps {
  layout: Layout;
  onChange: (nodes: GridStackNode[]) => void;
  onRemove: (id: string) => void;
}

/** The grid belongs to gridstack once mounted: it never re-renders, a new layout mounts a new one (by key). */
class Grid extends Component<GridProps> {
  host = createRef<HTMLDivElement>();
  grid: GridStack | null = null;
  shouldComponentUpdate() {
    return false;
  }
  componentDidMount() {
    // Snap packs the cards in list order, as the hub does; free keeps them where they are dropped.
    const mode = this.props.layout.mode === 'free' ? 'float' : 'list';
    this.grid = GridStack.init(
      {
        column: 12,
        cellHeight: 96,
        margin: 6,
        mode,
        handle: '.card-head',
        animate: false,
        columnOpts: { breakpoints: [{ w: 760, c: 1 }] },
      },
      this.host.current!,
    );
    this.grid?.on('change', (_event, nodes) => this.props.onChange(this.grid?.engine.nodes ?? nodes));
  }
  componentWillUnmount() {
    this.grid?.destroy(false);
  }
  render() {
    return (
      <div class="grid-stack" ref={this.host}>
        {this.props.layout.cards.map((card) => {
          const title = cardTitle(card, titles[card.type]);
          return (
            <div
              key={card.id}
              class="grid-stack-item"
              gs-id={card.id}
              gs-x={card.x}
              gs-y={card.y}
              gs-w={card.w}
              gs-h={card.h}
              data-card={card.type}
            >
              <section class={`grid-stack-item-content card card-${card.type}`} aria-label={title}>
                <header class="card-head">
                  <h2>{title}</h2>
                  <button
                    type="button"
                    class="ghost small card-remove"
                    aria-label={`Remove ${title} card`}
                    onClick={() => this.props.onRemove(card.id)}
                  >
                    <Icon name="x" size={14} />
                  </button>
                </header>
                <div class="card-body">
                  <CardContent card={card} />
                </div>
              </section>
            </div>
          );
        })}
      </div>
    );
  }
}

function inputOf(cards: Card[]) {
  return cards.map(({ id, type, size, x, y, w, h, config }) => ({ id, type, size, x, y, w, h, config }));
}

export default function Dashboard() {
  const layout = useSignal<Layout | null>(null);
  const etag = useSignal<string | null>(null);
  const version = useSignal(0);
  const adding = useSignal('clock');

  async function load() {
    const { data, error, response } = await readLayout();
    if (error || !data) throw new Error(`the layout could not be loaded (${response.status})`);
    layout.value = data;
    etag.value = response.headers.get('etag');
    version.value++;
  }
  async function save(next: Layout, remount: boolean) {
    const { data, error, response } = await writeLayout(
      { mode: next.mode, cards: inputOf(next.cards) },
      etag.value,
    );
    if (response.status === 412) {
      toast('The layout was changed elsewhere: showing the newer one', 'info');
      await load();
      return;
    }
    if (error || !data)
      throw new Error((error as { message?: string })?.message ?? 'saving the layout failed');
    etag.value = response.headers.get('etag');
    layout.value = data;
    if (remount) version.value++;
  }

  useEffect(() => {
    loadBoards().then(load).catch(failed);
    const stream = new EventSource('/api/dashboard/stream');
    stream.addEventListener('card', (event) => {
      const { type, data } = JSON.parse((event as MessageEvent).data) as { type: string; data: unknown };
      cardData.value = { ...cardData.value, [type]: data };
    });
    return () => stream.close();
  }, []);

  function moved(nodes: GridStackNode[]) {
    const current = layout.value;
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
    if (!layout.value) return;
    save({ ...layout.value, cards: layout.value.cards.filter((card) => card.id !== id) }, true).catch(failed);
  }
  function add() {
    if (!layout.value) return;
    const type = adding.value;
    const size = type === 'clock' || type === 'weather' ? 2 : 4;
    const bottom = Math.max(0, ...layout.value.cards.map((card) => card.y + card.h));
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
    save({ ...layout.value, cards: [...layout.value.cards, card as Card] }, true).catch(failed);
  }
  function setMode(mode: Layout['mode']) {
    if (!layout.value || layout.value.mode === mode) return;
    save({ ...layout.value, mode }, true).catch(failed);
  }

  return (
    <div class="dashboard">
      <div class="page-head">
        <h1>Dashboard</h1>
        <BoardTabs onSwitch={() => load().catch(failed)} />
        <div class="toolbar">
          {/* biome-ignore lint/a11y/useSemanticElements: two toggle buttons, not a form section */}
          <div class="segmented" role="group" aria-label="Placement">
            <button
              type="button"
              aria-pressed={layout.value?.mode === 'snap'}
              onClick={() => setMode('snap')}
            >
              Snap
            </button>
            <button
              type="button"
              aria-pressed={layout.value?.mode === 'free'}
              onClick={() => setMode('free')}
            >
              Free
            </button>
          </div>
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
      {layout.value && <Grid key={version.value} layout={layout.value} onChange={moved} onRemove={remove} />}
    </div>
  );
}
