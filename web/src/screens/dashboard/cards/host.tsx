// The host card: CPU with the load averages, memory, and each disk (the card's own mounts when its config names them).
import { gb, Meter } from './parts.tsx';

export interface HostData {
  cpu_percent: number | null;
  load?: Record<string, number>;
  memory?: { percent: number | null; used_bytes: number; total_bytes: number };
  disks?: { mount: string; percent?: number | null; used_bytes?: number; total_bytes: number }[];
}

export function Host({ data }: { data: HostData }) {
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
