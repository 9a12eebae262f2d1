// The storage card: the storage verdict, its first reasons, and each pool's use.
import { Meter } from './parts.tsx';

export interface StorageData {
  status: 'HEALTHY' | 'WATCH' | 'ATTENTION';
  reasons: { subject: string; finding: string }[];
  pools: { node: string; name: string; percent: number | null }[];
}

const storageTone = { HEALTHY: 'success', WATCH: 'warning', ATTENTION: 'danger' } as const;

export function Storage({ data }: { data: StorageData }) {
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
