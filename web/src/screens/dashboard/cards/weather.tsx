// The weather card: the temperature now, the sky, and today's range, for the hub's place or the card's own.
import { oneDecimal } from './parts.tsx';

// The weather, host, cluster and storage routes answer open-ended card bodies (no schema in the API types): each of
// those cards names the fields it reads.
export interface WeatherData {
  label?: string | null;
  stale?: boolean;
  current: { temperature: number | null; description: string; humidity: number | null };
  today: { temperature_min: number | null; temperature_max: number | null };
  units: { temperature: string };
}

export function Weather({ data, label }: { data: WeatherData; label?: string }) {
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
