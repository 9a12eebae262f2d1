// The storage summary: ZFS pools of every online node, the storages (less pool-type storages, which only repeat a
// pool: one whose pool is listed, or one on a node that is not online, whose pools cannot be read and whose state the
// cluster card shows), each container's root filesystem fill, and a roll-up with the findings that raised it.
//
// Roll-up (thresholds from STORAGE_WATCH_PERCENT / STORAGE_ATTENTION_PERCENT or the `dashboard` setting):
//   ATTENTION  a pool whose health is not ONLINE, or any pool, storage or container at or above the attention percent
//   WATCH      any use at or above the watch percent, or a pool fragmented 50% or more
//   HEALTHY    none of these
import type { PveClient } from './client.ts';
import type { PveClusterStatusEntry, PveResource } from './cluster.ts';

export interface Thresholds {
  watchPercent: number;
  attentionPercent: number;
}
export const fragmentationWatchPercent = 50;

interface PveZfsPool {
  name: string;
  size: number;
  alloc: number;
  free: number;
  frag: number;
  dedup: number;
  health: string;
}

interface PveLxc {
  vmid: number | string;
  name?: string;
  status: string;
  disk?: number;
  maxdisk?: number;
}

interface PveStorageConfig {
  storage: string;
  type: string;
  pool?: string;
  nodes?: string;
}

type Level = 'HEALTHY' | 'WATCH' | 'ATTENTION';
const rank: Record<Level, number> = { HEALTHY: 0, WATCH: 1, ATTENTION: 2 };

const percent = (used: number | undefined, total: number | undefined) =>
  typeof used === 'number' && typeof total === 'number' && total > 0
    ? Math.round((1000 * used) / total) / 10
    : null;

export async function readStorage(pve: PveClient, thresholds: Thresholds) {
  const [status, storages, config] = await Promise.all([
    pve.get<PveClusterStatusEntry[]>('/cluster/status'),
    pve.get<PveResource[]>('/cluster/resources?type=storage'),
    // The storage configuration names the pool behind a zfspool storage; without it, such storages are matched by node.
    pve.get<PveStorageConfig[]>('/storage').catch(() => null),
  ]);
  const online = status
    .filter((entry) => entry.type === 'node' && entry.online === 1)
    .map((n) => n.name)
    .sort();
  const perNode = await Promise.all(
    online.map(async (node) => {
      const path = `/nodes/${encodeURIComponent(node)}`;
      const [pools, containers] = await Promise.all([
        pve.get<PveZfsPool[]>(`${path}/disks/zfs`),
        pve.get<PveLxc[]>(`${path}/lxc`),
      ]);
      return { node, pools, containers };
    }),
  );

  const pools = perNode.flatMap(({ node, pools }) =>
    pools.map((pool) => ({
      node,
      name: pool.name,
      health: pool.health,
      size_bytes: pool.size,
      alloc_bytes: pool.alloc,
      free_bytes: pool.free,
      percent: percent(pool.alloc, pool.size),
      frag_percent: pool.frag,
      dedup: pool.dedup,
    })),
  );
  const poolOf = new Map((config ?? []).map((entry) => [entry.storage, entry.pool?.split('/')[0] ?? null]));
  const dropped: { storage: string; node: string; pool: string | null }[] = [];
  const kept = storages.filter((s) => {
    if (s.plugintype !== 'zfspool') return true;
    const pool = poolOf.get(s.storage ?? '') ?? null;
    const nodeOnline = online.includes(s.node ?? '');
    const repeats = !nodeOnline || pools.some((p) => p.node === s.node && (pool === null || p.name === pool));
    if (repeats) dropped.push({ storage: s.storage ?? s.id, node: s.node ?? '', pool });
    return !repeats;
  });
  const storageList = kept
    .map((s) => ({
      node: s.node ?? null,
      storage: s.storage ?? s.id,
      type: s.plugintype ?? null,
      status: s.status ?? 'unknown',
      shared: s.shared === 1,
      content: s.content ? s.content.split(',') : [],
      used_bytes: s.disk ?? null,
      total_bytes: s.maxdisk ?? null,
      percent: s.status === 'available' ? percent(s.disk, s.maxdisk) : null,
    }))
    .sort((a, b) => `${a.node}/${a.storage}`.localeCompare(`${b.node}/${b.storage}`));
  const containers = perNode
    .flatMap(({ node, containers }) =>
      containers.map((ct) => {
        // A stopped container reports disk 0: its fill is unknown, not empty.
        const known = ct.status === 'running' && typeof ct.maxdisk === 'number' && ct.maxdisk > 0;
        return {
          node,
          vmid: Number(ct.vmid),
          name: ct.name ?? `CT ${ct.vmid}`,
          status: ct.status,
          used_bytes: known ? (ct.disk ?? null) : null,
          total_bytes: typeof ct.maxdisk === 'number' && ct.maxdisk > 0 ? ct.maxdisk : null,
          percent: known ? percent(ct.disk, ct.maxdisk) : null,
          fill: known ? ('known' as const) : ('unknown' as const),
        };
      }),
    )
    .sort((a, b) => a.vmid - b.vmid);

  const reasons: { level: Level; subject: string; finding: string }[] = [];
  const use = (subject: string, value: number | null) => {
    if (value === null) return;
    if (value >= thresholds.attentionPercent) {
      reasons.push({
        level: 'ATTENTION',
        subject,
        finding: `${value}% used (attention at ${thresholds.attentionPercent}%)`,
      });
    } else if (value >= thresholds.watchPercent) {
      reasons.push({
        level: 'WATCH',
        subject,
        finding: `${value}% used (watch at ${thresholds.watchPercent}%)`,
      });
    }
  };
  for (const pool of pools) {
    const subject = `pool ${pool.name} on ${pool.node}`;
    if (pool.health !== 'ONLINE')
      reasons.push({ level: 'ATTENTION', subject, finding: `health ${pool.health}` });
    use(subject, pool.percent);
    if (pool.frag_percent >= fragmentationWatchPercent) {
      reasons.push({
        level: 'WATCH',
        subject,
        finding: `${pool.frag_percent}% fragmented (watch at ${fragmentationWatchPercent}%)`,
      });
    }
  }
  for (const s of storageList) use(`storage ${s.storage}${s.node ? ` on ${s.node}` : ''}`, s.percent);
  for (const ct of containers) use(`container ${ct.vmid} (${ct.name}) root filesystem`, ct.percent);
  const status_ = reasons.reduce<Level>(
    (worst, r) => (rank[r.level] > rank[worst] ? r.level : worst),
    'HEALTHY',
  );
  reasons.sort((a, b) => rank[b.level] - rank[a.level]);

  return {
    status: status_,
    reasons,
    thresholds: {
      watch_percent: thresholds.watchPercent,
      attention_percent: thresholds.attentionPercent,
      fragmentation_watch_percent: fragmentationWatchPercent,
    },
    pools,
    storages: storageList,
    dropped_storages: dropped,
    containers,
    nodes: online,
  };
}
