// The cluster card: quorum, the nodes online with their CPU (one node when the config names it), guests running.
import { Meter } from './parts.tsx';

export interface ClusterData {
  cluster: { name: string; quorate: boolean } | null;
  nodes: { name: string; online: boolean; cpu_percent: number | null }[];
  guests: { total: number; by_status: Record<string, number> };
}

export function Cluster({ data, node }: { data: ClusterData; node?: string }) {
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
