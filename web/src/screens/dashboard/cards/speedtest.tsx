// The speed-test card: the latest run's figures and the range's median.
import type { Answer } from '../../../types.ts';
import { Figures, oneDecimal, Wait, when } from './parts.tsx';

export type SpeedHistory = Answer<'/api/speedtest/history'>;

export function Speedtest({ data, days }: { data: SpeedHistory; days: number }) {
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
