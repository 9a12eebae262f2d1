// What each dashboard card shows. A card's data is what its type's GET route answers, as the card stream sends it;
// a card whose config asks for other data (a weather card's own place, a speed-test card's own range, a host card's
// own disks) fetches that from the route itself, again whenever the stream says the type's data changed and every
// few minutes. Config that only picks from the data (health categories, a cluster node, a clock's zone) is applied
// here.
import { signal, useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { components, paths } from '../api.d.ts';
import { api, ok } from '../client.ts';
import { AppsCard } from './dashboard/AppsCard.tsx';
import { BookmarksCard } from './dashboard/BookmarksCard.tsx';

export type Card = components['schemas']['DashboardLayout']['cards'][number];
type Config = Card['config'];
type Answer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;
type SpeedHistory = Answer<'/api/speedtest/history'>;
type ServiceGroups = Answer<'/api/health/services'>;
type AiUsage = Answer<'/api/ai-usage'>;
type Backups = Answer<'/api/backups'>;

/** The newest data of each card type, as the stream sends it. */
export const cardData = signal<Record<string, unknown>>({});

/** The range of the speed-test card's stream data (domains/speedtest/index.ts); `days` in a card's config asks for another. */
const streamDays = 7;
const dayMs = 86_400_000;
const ownRefreshMs = 5 * 60_000;

const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/** The card's own heading: its config's title, else its type's. */
export function cardTitle(card: Card, typeTitle: string): string {
  return text(card.config.title) ?? typeTitle;
}

/** How a card whose config asks for data of its own reads it; null when the stream's data is the card's. */
function ownData(card: Card): (() => Promise<unknown>) | null {
  const config: Config = card.config;
  const { latitude, longitude, days, mounts } = config;
  if (card.type === 'weather' && typeof latitude === 'number' && typeof longitude === 'number') {
    return () => ok(api.GET('/api/weather', { params: { query: { latitude, longitude } } }));
  }
  if (card.type === 'speedtest' && typeof days === 'number') {
    const since = () => new Date(Date.now() - days * dayMs).toISOString();
    return () => ok(api.GET('/api/speedtest/history', { params: { query: { since: since(), limit: 100 } } }));
  }
  if (card.type === 'host' && Array.isArray(mounts) && mounts.length > 0) {
    return () => ok(api.GET('/api/host', { params: { query: { mounts: mounts.join(',') } } }));
  }
  return null;
}

/** The card's data: the stream's for its type, or what its own config asks for. */
function useCardData(card: Card): unknown {
  const own = useSignal<unknown>(undefined);
  const streamed = cardData.value[card.type];
  const read = ownData(card);
  useEffect(() => {
    if (!read) return;
    let live = true;
    const load = () =>
      read().then(
        (data) => {
          if (live) own.value = data;
        },
        (error: Error) => {
          if (live) own.value = { error: { message: error.message } };
        },
      );
    load();
    const timer = setInterval(load, ownRefreshMs);
    return () => {
      live = false;
      clearInterval(timer);
    };
    // Read again whenever the stream brings new data of the type: it changed upstream.
  }, [streamed, JSON.stringify(card.config)]);
  return read ? own.value : streamed;
}

/** The message of a failure: the stream sends a source's failure as `{ error: { code, message } }`, as is a refused
 * read of the card's own data. */
function failure(data: Record<string, unknown>): string | null {
  const error = data.error as { message?: unknown } | null | undefined;
  return error && typeof error === 'object' && typeof error.message === 'string' ? error.message : null;
}

function Wait({ children }: { children: string }) {
  return <p class="muted card-wait">{children}</p>;
}

function Clock({ config }: { config: Config }) {
  const now = useSignal(new Date());
  useEffect(() => {
    const timer = setInterval(() => (now.value = new Date()), 1000);
    return () => clearInterval(timer);
  }, []);
  const zone = text(config.timezone);
  const hour12 = typeof config.hour12 === 'boolean' ? config.hour12 : undefined;
  return (
    <div class="clock">
      <strong>
        {now.value.toLocaleTimeString(undefined, {
          hour: '2-digit',
          minute: '2-digit',
          timeZone: zone,
          hour12,
        })}
      </strong>
      <span class="muted">
        {now.value.toLocaleDateString(undefined, {
          weekday: 'long',
          day: 'numeric',
          month: 'long',
          timeZone: zone,
        })}
        {zone ? ` · ${zone}` : ''}
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

function Figures({ items }: { items: [string, string][] }) {
  return (
    <dl class="figures">
      {items.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const oneDecimal = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : String(Math.round(value * 10) / 10);
const when = (at: string) =>
  new Date(at).toLocaleString(undefined, {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });

// The weather, host, cluster and storage routes answer open-ended card bodies (no schema in the API types): these
// name the fields the cards read.
interface WeatherData {
  label?: string | null;
  stale?: boolean;
  current: { temperature: number | null; description: string; humidity: number | null };
  today: { temperature_min: number | null; temperature_max: number | null };
  units: { temperature: string };
}

function Weather({ data, label }: { data: WeatherData; label?: string }) {
  const unit = data.units.temperature;
  const place = label ?? data.label ?? undefined;
  return (
    <div class="stack-tight">
      <strong class="card-figure">
        {oneDecimal(data.current.temperature)}
        {unit}
      </strong>
      <span>{data.current.description}</span>
      <span class="muted small">
        {place ? `${place} · ` : ''}today {oneDecimal(data.today.temperature_min)} to{' '}
        {oneDecimal(data.today.temperature_max)}
        {unit}
        {data.stale ? ' · not current' : ''}
      </span>
    </div>
  );
}

interface HostData {
  cpu_percent: number | null;
  load?: Record<string, number>;
  memory?: { percent: number | null; used_bytes: number; total_bytes: number };
  disks?: { mount: string; percent?: number | null; used_bytes?: number; total_bytes: number }[];
}

function Host({ data }: { data: HostData }) {
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
      {data.disks?.map((disk) => (
        <Meter
          key={disk.mount}
          name={`Disk ${disk.mount}`}
          percent={
            disk.percent ??
            (disk.used_bytes !== undefined ? (disk.used_bytes / disk.total_bytes) * 100 : null)
          }
        />
      ))}
    </div>
  );
}

interface ClusterData {
  cluster: { name: string; quorate: boolean } | null;
  nodes: { name: string; online: boolean; cpu_percent: number | null }[];
  guests: { total: number; by_status: Record<string, number> };
}

function Cluster({ data, node }: { data: ClusterData; node?: string }) {
  const nodes = node ? data.nodes.filter((n) => n.name === node) : data.nodes;
  const online = nodes.filter((n) => n.online).length;
  return (
    <div class="stack-tight">
      <span>
        {data.cluster ? (
          <span class={`badge ${data.cluster.quorate ? 'success' : 'danger'}`}>
            {data.cluster.name}: {data.cluster.quorate ? 'quorate' : 'no quorum'}
          </span>
        ) : (
          'Single node'
        )}
      </span>
      <span class="small">
        {online} of {nodes.length} nodes online · {data.guests.by_status.running ?? 0} of {data.guests.total}{' '}
        guests running
      </span>
      <div class="meters">
        {nodes.map((n) => (
          <Meter key={n.name} name={`${n.name} CPU`} percent={n.cpu_percent} />
        ))}
      </div>
    </div>
  );
}

interface StorageData {
  status: 'HEALTHY' | 'WATCH' | 'ATTENTION';
  reasons: { subject: string; finding: string }[];
  pools: { node: string; name: string; percent: number | null }[];
}

const storageTone = { HEALTHY: 'success', WATCH: 'warning', ATTENTION: 'danger' } as const;

function Storage({ data }: { data: StorageData }) {
  return (
    <div class="stack-tight">
      <span class={`badge ${storageTone[data.status] ?? ''}`}>{data.status}</span>
      {data.reasons.slice(0, 2).map((reason) => (
        <span key={reason.subject + reason.finding} class="small">
          {reason.subject}: {reason.finding}
        </span>
      ))}
      <div class="meters">
        {data.pools.map((pool) => (
          <Meter key={`${pool.node}/${pool.name}`} name={`Pool ${pool.name}`} percent={pool.percent} />
        ))}
      </div>
    </div>
  );
}

function BackupsCard({ data }: { data: Backups }) {
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

function Speedtest({ data, days }: { data: SpeedHistory; days: number }) {
  const latest = data.items[0];
  if (!latest) return <Wait>{`No speed test in the last ${days} days`}</Wait>;
  const { summary } = data;
  return (
    <div class="stack-tight">
      {latest.status === 'failed' ? (
        <p class="card-error">The last run failed: {latest.error ?? 'no reason given'}</p>
      ) : (
        <Figures
          items={[
            ['download', `${oneDecimal(latest.download_mbps)} Mbps`],
            ['upload', `${oneDecimal(latest.upload_mbps)} Mbps`],
            ['ping', `${oneDecimal(latest.ping_ms)} ms`],
          ]}
        />
      )}
      <span class="muted small">
        {when(latest.measured_at)}
        {latest.below_threshold ? ' · below threshold' : ''} · {days} days: {summary.count}{' '}
        {summary.count === 1 ? 'run' : 'runs'}, median {oneDecimal(summary.download_mbps.median)} /{' '}
        {oneDecimal(summary.upload_mbps.median)} Mbps
      </span>
    </div>
  );
}

const stateOrder = { down: 0, unknown: 1, pending: 2, up: 3 } as const;
const stateTone = { down: 'danger', unknown: '', pending: 'warning', up: 'success' } as const;

function Health({ data, categories }: { data: ServiceGroups; categories?: string[] }) {
  const groups = categories
    ? data.groups.filter((group) => categories.includes(group.category))
    : data.groups;
  const services = groups
    .flatMap((group) => group.services)
    .sort((a, b) => stateOrder[a.state] - stateOrder[b.state] || a.name.localeCompare(b.name));
  if (services.length === 0) return <Wait>No services monitored yet</Wait>;
  const up = services.filter((service) => service.state === 'up').length;
  return (
    <div class="stack-tight">
      <span class={`badge ${up === services.length ? 'success' : 'warning'}`}>
        {up} of {services.length} up
      </span>
      <ul class="card-list">
        {services.map((service) => (
          <li key={service.id}>
            <span class={`dot ${stateTone[service.state]}`} aria-hidden="true" />
            {service.name}
            <span class="muted small">
              {service.state === 'up' && service.latency_ms !== null
                ? `${service.latency_ms} ms`
                : service.state}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function AiUsageCard({ data }: { data: AiUsage }) {
  const tokens = (period: AiUsage['today']) => compact.format(period.input_tokens + period.output_tokens);
  const items: [string, string][] = [
    ['tokens today', tokens(data.today)],
    ['this week', tokens(data.week)],
    ['requests today', String(data.today.requests)],
    ['top model', data.top_model ?? '—'],
  ];
  if (data.local.requests > 0) items.push(['local p50', `${oneDecimal(data.local.p50_latency_ms)} ms`]);
  return <Figures items={items} />;
}

/** A card's body: its data as the type shows it, a failure's message, or what it waits for. */
export function CardContent({ card }: { card: Card }) {
  const data = useCardData(card) as Record<string, unknown> | undefined;
  const config = card.config;
  if (card.type === 'clock') return <Clock config={config} />;
  if (card.type === 'flame') return <Flame />;
  if (card.type === 'blank') return null;
  if (card.type === 'apps') return <AppsCard config={config} />;
  if (card.type === 'bookmarks') return <BookmarksCard config={config} />;
  if (data === undefined) return <Wait>No data yet</Wait>;
  const problem = failure(data);
  if (problem !== null) return <p class="card-error">{problem}</p>;
  if (data.configured === false) return <Wait>Not configured yet: see the README's dashboard section.</Wait>;
  const categories = Array.isArray(config.categories) ? (config.categories as string[]) : undefined;
  switch (card.type) {
    case 'weather':
      return <Weather data={data as unknown as WeatherData} label={text(config.label)} />;
    case 'host':
      return <Host data={data as unknown as HostData} />;
    case 'cluster':
      return <Cluster data={data as unknown as ClusterData} node={text(config.node)} />;
    case 'storage':
      return <Storage data={data as unknown as StorageData} />;
    case 'backups':
      return <BackupsCard data={data as Backups} />;
    case 'speedtest':
      return (
        <Speedtest
          data={data as SpeedHistory}
          days={typeof config.days === 'number' ? config.days : streamDays}
        />
      );
    case 'health':
      return <Health data={data as ServiceGroups} categories={categories} />;
    case 'ai-usage':
      return <AiUsageCard data={data as AiUsage} />;
  }
}
