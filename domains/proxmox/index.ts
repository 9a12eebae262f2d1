// The Proxmox VE cards, read with a read-only token (PVE_URL and PVE_TOKEN, or Settings → Integrations) and cached
// PVE_CACHE_SECONDS.
//   GET /api/cluster   cluster name and quorum, nodes, guests, with the network host inventory merged in
//   GET /api/storage   ZFS pools, storages, container root filesystems and the HEALTHY / WATCH / ATTENTION roll-up
// Its storage.check task (storage-watch.ts) alerts when the roll-up changes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type CardClockOptions, cardJson, TtlCache } from '../../lib/cache.ts';
import { CardBody, errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { dashboardSetting } from '../dashboard/setting.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { networkHostInventory } from '../network-hosts/inventory.ts';
import { readSetting } from '../settings/registry.ts';
import { type PveClient, pveClient } from './client.ts';
import { readCluster } from './cluster.ts';
import { readStorage } from './storage.ts';
import { storageCron, storageTasks } from './storage-watch.ts';

const tags = ['dashboard'];
const jsonType = 'application/json; charset=utf-8';
const notConfigured = JSON.stringify({ configured: false });

const plugin: FastifyPluginAsyncTypebox<CardClockOptions> = async (app, { now }) => {
  const {
    pve: { cacheSeconds },
    upstreamTimeoutMs,
    storageWatchPercent,
    storageAttentionPercent,
  } = app.config.dashboard;
  const cache = new TtlCache<object>({ ttlMs: cacheSeconds * 1000, now: () => now().getTime() });
  let current: { stamp: string; client: PveClient } | null = null;
  app.addHook('onClose', async () => current?.client.close());

  /** The client of the Proxmox settings in force (environment, else Settings → Integrations), rebuilt when they change. */
  async function connection(): Promise<PveClient | null> {
    const resolved = await integrationSettings(app, 'proxmox');
    const stamp = resolved?.stamp ?? null;
    if (current?.stamp === stamp) return current?.client ?? null;
    const previous = current;
    cache.clear();
    current = resolved && {
      stamp: resolved.stamp,
      client: pveClient({ ...resolved.settings, timeoutMs: upstreamTimeoutMs }),
    };
    if (resolved?.settings.tlsInsecure)
      app.log.warn('Proxmox TLS is insecure: its certificate is not verified');
    await previous?.client.close();
    return current?.client ?? null;
  }

  async function cluster() {
    const pve = await connection();
    if (!pve) return notConfigured;
    const cached = await cache.get('cluster', async () => {
      const inventory = await networkHostInventory(app.sql);
      return readCluster(pve, inventory);
    });
    return cardJson(cached);
  }

  async function storage() {
    const pve = await connection();
    if (!pve) return notConfigured;
    const cached = await cache.get('storage', async () => {
      const overrides = await readSetting(app.sql, dashboardSetting);
      return readStorage(pve, {
        watchPercent: overrides.storage_watch_percent ?? storageWatchPercent,
        attentionPercent: overrides.storage_attention_percent ?? storageAttentionPercent,
      });
    });
    return cardJson(cached);
  }

  const intervalMs = cacheSeconds * 1000;
  app.cards.addSource({ type: 'cluster', intervalMs, read: async () => JSON.parse(await cluster()) });
  app.cards.addSource({ type: 'storage', intervalMs, read: async () => JSON.parse(await storage()) });

  const described =
    'Not configured: { configured: false }. A refused token is 502 PROXMOX_TOKEN_REFUSED (the token needs the ' +
    'PVEAuditor role); another failure with nothing cached is 502 PROXMOX_UPSTREAM_FAILED; with a cached value, that ' +
    'value with stale: true and age_seconds.';

  app.get(
    '/cluster',
    {
      schema: {
        tags,
        summary: 'Cluster card: quorum, nodes and guests (Proxmox VE)',
        description: `A single node without a cluster has cluster: null. ${described}`,
        response: { 200: CardBody, ...errors(401, 502) },
      },
    },
    async (_request, reply) => reply.type(jsonType).send(await cluster()),
  );

  app.get(
    '/storage',
    {
      schema: {
        tags,
        summary: 'Storage card: ZFS pools, storages, container filesystems and a roll-up (Proxmox VE)',
        description:
          'status is ATTENTION when a pool is not ONLINE or any use is at or above STORAGE_ATTENTION_PERCENT ' +
          '(default 90), WATCH at or above STORAGE_WATCH_PERCENT (default 80) or a pool fragmented 50% or more, ' +
          `else HEALTHY; reasons lists each finding. A stopped container's fill is unknown. ${described}`,
        response: { 200: CardBody, ...errors(401, 502) },
      },
    },
    async (_request, reply) => reply.type(jsonType).send(await storage()),
  );
};

export default {
  name: 'proxmox',
  routes: agentAccess(plugin),
  tasks: storageTasks,
  cron: storageCron,
} satisfies HubModule;
