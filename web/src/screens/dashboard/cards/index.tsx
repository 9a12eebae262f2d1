// What each dashboard card shows. A card's data is what its type's GET route answers, as the card stream sends it;
// a card whose config asks for other data (a weather card's own place, a speed-test card's own range, a host card's
// own disks) fetches that from the route itself, again whenever the stream says the type's data changed and every
// few minutes. Config that only picks from the data (health categories, a cluster node, a clock's zone) is applied
// here.
import { signal } from '@preact/signals';
import type { components } from '../../../api.d.ts';
import { api, ok } from '../../../client.ts';
import { SetUpIntegration } from '../../../components/SetUpIntegration.tsx';
import { useData } from '../../../data.ts';
import { type AiUsage, AiUsageCard } from './ai-usage.tsx';
import { AppsCard } from './apps.tsx';
import { type Backups, BackupsCard } from './backups.tsx';
import { BookmarksCard } from './bookmarks.tsx';
import { Clock } from './clock.tsx';
import { Cluster, type ClusterData } from './cluster.tsx';
import { CustomCard } from './custom.tsx';
import { Flame } from './flame.tsx';
import { Health, type ServiceGroups } from './health.tsx';
import { Host, type HostData } from './host.tsx';
import { IncidentsCard, type OpenIncidents } from './incidents.tsx';
import { type Config, text, Wait } from './parts.tsx';
import { type SpeedHistory, Speedtest } from './speedtest.tsx';
import { Storage, type StorageData } from './storage.tsx';
import { Weather, type WeatherData } from './weather.tsx';

export type Card = components['schemas']['DashboardLayout']['cards'][number];

/** The newest data of each card type, as the stream sends it. */
export const cardData = signal<Record<string, unknown>>({});

/** The range of the speed-test card's stream data (domains/speedtest/index.ts); `days` in a card's config asks for another. */
const streamDays = 7;
const dayMs = 86_400_000;
const ownRefreshMs = 5 * 60_000;

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
  const streamed = cardData.value[card.type];
  const read = ownData(card);
  const own = useData(
    // A refused read is the card's data too: the card shows its message.
    async () => (read ? read().catch((error: Error) => ({ error: { message: error.message } })) : undefined),
    // Read again whenever the stream brings new data of the type: it changed upstream.
    [streamed, JSON.stringify(card.config)],
    { every: read ? ownRefreshMs : undefined },
  );
  return read ? own.data : streamed;
}

/** The message of a failure: the stream sends a source's failure as `{ error: { code, message } }`, as is a refused
 * read of the card's own data. */
function failure(data: Record<string, unknown>): string | null {
  const error = data.error as { message?: unknown } | null | undefined;
  return error && typeof error === 'object' && typeof error.message === 'string' ? error.message : null;
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
  if (card.type === 'custom') return <CustomCard id={card.id} config={config} />;
  if (data === undefined) return <Wait>No data yet</Wait>;
  const problem = failure(data);
  if (problem !== null) return <SetUpIntegration type={card.type} problem={problem} />;
  if (data.configured === false) return <SetUpIntegration type={card.type} />;
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
    case 'incidents':
      return <IncidentsCard data={data as OpenIncidents} />;
  }
}
