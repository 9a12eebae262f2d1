// The cluster card from /cluster/status and /cluster/resources, with the network host inventory merged in.
// Proxmox sends booleans as 0/1, CPU as a fraction of the node's (or guest's) CPUs, sizes in bytes, and a node's
// loadavg (from /nodes/{node}/status) as strings; `type=vm` answers both qemu and lxc.
import type { PveClient } from './client.ts';

export interface PveClusterStatusEntry {
  type: 'cluster' | 'node';
  id: string;
  name: string;
  quorate?: number;
  nodes?: number;
  version?: number;
  online?: number;
  ip?: string;
  local?: number;
  nodeid?: number;
}

export interface PveResource {
  id: string;
  type: string;
  node?: string;
  status?: string;
  name?: string;
  vmid?: number;
  cpu?: number;
  maxcpu?: number;
  mem?: number;
  maxmem?: number;
  disk?: number;
  maxdisk?: number;
  uptime?: number;
  template?: number;
  storage?: string;
  plugintype?: string;
  shared?: number;
  content?: string;
}

export interface InventoryHost {
  id: string;
  hostname: string;
  ip: string | null;
  role: string;
  os: string;
}

const bool = (value: unknown) => value === 1 || value === true || value === '1';
const num = (value: unknown): number | null => {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};
const pct = (fraction: number | null) => (fraction === null ? null : Math.round(fraction * 1000) / 10);

function memory(used: unknown, total: unknown) {
  const u = num(used);
  const t = num(total);
  return { used_bytes: u, total_bytes: t, percent: u !== null && t ? Math.round((1000 * u) / t) / 10 : null };
}

function matcher(inventory: InventoryHost[]) {
  return (name: string | undefined, ip?: string | null) => {
    const host =
      inventory.find((h) => name && h.hostname.toLowerCase() === name.toLowerCase()) ??
      inventory.find((h) => ip && h.ip === ip);
    return host ? { id: host.id, hostname: host.hostname, ip: host.ip, role: host.role, os: host.os } : null;
  };
}

export async function readCluster(pve: PveClient, inventory: InventoryHost[]) {
  const [status, resources] = await Promise.all([
    pve.get<PveClusterStatusEntry[]>('/cluster/status'),
    pve.get<PveResource[]>('/cluster/resources'),
  ]);
  const match = matcher(inventory);
  const clusterEntry = status.find((entry) => entry.type === 'cluster');
  const statusNodes = status.filter((entry) => entry.type === 'node');
  const resourceNodes = resources.filter((r) => r.type === 'node');
  const names = [...new Set([...statusNodes.map((n) => n.name), ...resourceNodes.map((r) => r.node ?? '')])]
    .filter(Boolean)
    .sort();
  const nodes = await Promise.all(
    names.map(async (name) => {
      const entry = statusNodes.find((n) => n.name === name);
      const resource = resourceNodes.find((r) => r.node === name);
      const online = entry ? bool(entry.online) : resource?.status === 'online';
      let load: number[] | null = null;
      if (online) {
        // loadavg comes as strings ("0.42"); a node that does not answer keeps its other figures.
        const nodeStatus = await pve
          .get<{ loadavg?: string[] }>(`/nodes/${encodeURIComponent(name)}/status`)
          .catch(() => null);
        const parsed = nodeStatus?.loadavg?.map(Number);
        load = parsed && parsed.length === 3 && parsed.every(Number.isFinite) ? parsed : null;
      }
      const ip = entry?.ip ?? null;
      return {
        name,
        online,
        ip,
        cpu_percent: online ? pct(num(resource?.cpu)) : null,
        cpus: num(resource?.maxcpu),
        memory: memory(resource?.mem, resource?.maxmem),
        uptime_seconds: num(resource?.uptime),
        load,
        inventory: match(name, ip),
      };
    }),
  );
  const guests = resources
    .filter((r) => (r.type === 'qemu' || r.type === 'lxc') && !bool(r.template))
    .map((r) => ({
      vmid: num(r.vmid),
      name: r.name ?? `${r.type}/${r.vmid}`,
      type: r.type as 'qemu' | 'lxc',
      node: r.node ?? null,
      status: r.status ?? 'unknown',
      cpu_percent: r.status === 'running' ? pct(num(r.cpu)) : null,
      cpus: num(r.maxcpu),
      memory: memory(r.mem, r.maxmem),
      uptime_seconds: num(r.uptime),
      inventory: match(r.name),
    }))
    .sort((a, b) => (a.vmid ?? 0) - (b.vmid ?? 0));
  const byStatus: Record<string, number> = {};
  for (const guest of guests) byStatus[guest.status] = (byStatus[guest.status] ?? 0) + 1;
  const warnings: string[] = [];
  if (resources.length === 0 || nodes.length === 0) {
    warnings.push(
      'Proxmox listed no resources: the token may lack permission (give it the PVEAuditor role on /; with ' +
        'privilege separation the token needs its own ACL entry)',
    );
  }
  return {
    cluster: clusterEntry
      ? { name: clusterEntry.name, quorate: bool(clusterEntry.quorate), nodes: num(clusterEntry.nodes) }
      : null,
    nodes,
    guests: {
      total: guests.length,
      by_status: byStatus,
      qemu: guests.filter((g) => g.type === 'qemu').length,
      lxc: guests.filter((g) => g.type === 'lxc').length,
      items: guests,
    },
    warnings,
  };
}
