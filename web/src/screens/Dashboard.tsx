// The dashboard: the saved layout's cards on a 12-column gridstack grid, live data from the card stream, drag and
// resize saved back (If-Match: a 412 means another tab changed it, so the newer layout is loaded), snap or free
// placement, cards added and removed.
import 'gridstack/dist/gridstack.min.css';
import { signal, useSignal } from '@preact/signals';
import { GridStack, type GridStackNode } from 'gridstack';
import { Component, createRef } from 'preact';
import { useEffect } from 'preact/hooks';
import type { components } from '../api.d.ts';
import { api } from '../client.ts';
import { Icon } from '../components/Icon.tsx';
import { failed, toast } from '../state.ts';

type Layout = components['schemas']['DashboardLayout'];
type Card = Layout['cards'][number];

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
};
const cardTypes = Object.keys(titles) as Card['type'][];

/** The newest data of each card type, as the stream sends it. */
const cardData = signal<Record<string, unknown>>({});

function Clock() {
  const now = useSignal(new Date());
  useEffect(() => {
    const timer = setInterval(() => (now.value = new Date()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <div class="clock">
      <strong>{now.value.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}</strong>
      <span class="muted">
        {now.value.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long' })}
      </span>
    </div>
  );
}

function Flame() {
  return (
    <div class="flame" role="img" aria-label="An animated flame">
      <span class="flame-outer" />
      <span class="flame-inner" />
    </div>
  );
}

function label(key: string): string {
  return key.replaceAll('_', ' ');
}

function scalar(value: unknown): string | null {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(1);
  if (typeof value === 'string') return value.length > 40 ? `${value.slice(0, 40)}…` : value;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return null;
}

function Meter({ name, percent, detail }: { name: string; percent: number | null; detail?: string }) {
  const value = percent ?? 0;
  const tone = value >= 90 ? 'danger' : value >= 75 ? 'warning' : 'ok';
  return (
    <div class="meter">
      <div class="meter-label">
        <span>{name}</span>
        <span>{percent === null ? '—' : `${Math.round(value)}%`}</span>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a styled bar; <meter> cannot be themed across browsers */}
      <div
        class={`meter-bar ${tone}`}
        role="meter"
        aria-label={name}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(value)}
      >
        <span style={{ width: `${Math.min(100, value)}%` }} />
      </div>
      {detail && <span class="muted small">{detail}</span>}
    </div>
  );
}

const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;

interface HostData {
  cpu_percent: number | null;
  load?: Record<string, number>;
  memory?: { percent: number | null; used_bytes: number; total_bytes: number };
  disks?: { mount: string; percent?: number | null; used_bytes?: number; total_bytes: number }[];
}

function Host({ data }: { data: HostData }) {
  const disk = data.disks?.[0];
  const diskPercent = disk
    ? (disk.percent ?? (disk.used_bytes !== undefined ? (disk.used_bytes / disk.total_bytes) * 100 : null))
    : null;
  return (
    <div class="meters">
      <Meter
        name="CPU"
        percent={data.cpu_percent}
        detail={data.load ? `load ${data.load['1m']} · ${data.load['5m']} · ${data.load['15m']}` : undefined}
      />
      {data.memory && (
        <Meter
          name="Memory"
          percent={data.memory.percent}
          detail={`${gb(data.memory.used_bytes)} of ${gb(data.memory.total_bytes)}`}
        />
      )}
      {disk && <Meter name={`Disk ${disk.mount}`} percent={diskPercent} />}
    </div>
  );
}

interface BackupsData {
  last_success_at: string | null;
  stale: boolean;
  stale_reason?: string | null;
  guests?: unknown[];
}

function Backups({ data }: { data: BackupsData }) {
  return (
    <div class="stack-tight">
      <span class={`badge ${data.stale ? 'warning' : 'success'}`}>{data.stale ? 'stale' : 'fresh'}</span>
      <span>
        {data.last_success_at
          ? `Last success ${new Date(data.last_success_at).toLocaleString()}`
          : 'No successful run yet'}
      </span>
      {data.stale && data.stale_reason && <span class="muted small">{data.stale_reason}</span>}
    </div>
  );
}

/** A card's data as the hub sent it: its error message, else its headline figures. */
function DataCard({ type }: { type: string }) {
  const data = cardData.value[type] as Record<string, unknown> | undefined;
  if (data === undefined) return <p class="muted card-wait">No data yet</p>;
  if (data && typeof data === 'object' && 'code' in data && 'message' in data) {
    return <p class="card-error">{String(data.message)}</p>;
  }
  if (data && typeof data === 'object' && data.configured === false) {
    return <p class="muted card-wait">Not configured yet: see the README's dashboard section.</p>;
  }
  if (type === 'host' && 'cpu_percent' in data) return <Host data={data as unknown as HostData} />;
  if (type === 'backups' && 'stale' in data) return <Backups data={data as unknown as BackupsData} />;
  const source = (data && typeof data === 'object' && 'current' in data ? data.current : data) as Record<
    string,
    unknown
  >;
  const figures = Object.entries(source ?? {})
    .map(([key, value]) => [key, scalar(value)] as const)
    .filter(([, value]) => value !== null)
    .slice(0, 6);
  return (
    <dl class="figures">
      {figures.map(([key, value]) => (
        <div key={key}>
          <dt>{label(key)}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function CardBody({ card }: { card: Card }) {
  if (card.type === 'clock') return <Clock />;
  if (card.type === 'flame') return <Flame />;
  if (card.type === 'blank') return null;
  return <DataCard type={card.type} />;
}

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
        {this.props.layout.cards.map((card) => (
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
            <section class={`grid-stack-item-content card card-${card.type}`} aria-label={titles[card.type]}>
              <header class="card-head">
                <h2>{titles[card.type]}</h2>
                <button
                  type="button"
                  class="ghost small card-remove"
                  aria-label={`Remove ${titles[card.type]} card`}
                  onClick={() => this.props.onRemove(card.id)}
                >
                  <Icon name="x" size={14} />
                </button>
              </header>
              <div class="card-body">
                <CardBody card={card} />
              </div>
            </section>
          </div>
        ))}
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
    const { data, error, response } = await api.GET('/api/dashboard/layout');
    if (error || !data) throw new Error(`the layout could not be loaded (${response.status})`);
    layout.value = data;
    etag.value = response.headers.get('etag');
    version.value++;
  }
  async function save(next: Layout, remount: boolean) {
    const { data, error, response } = await api.PUT('/api/dashboard/layout', {
      body: { mode: next.mode, cards: inputOf(next.cards) },
      headers: etag.value ? { 'if-match': etag.value } : {},
    });
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
    load().catch(failed);
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
