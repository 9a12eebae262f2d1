// What several cards draw: a line waiting for data, a meter, a list of figures, and how numbers are written.
import type { components } from '../../../api.d.ts';

/** A card's config, as the layout API holds it. */
export type Config = components['schemas']['DashboardLayout']['cards'][number]['config'];

export const text = (value: unknown) =>
  typeof value === 'string' && value.trim() ? value.trim() : undefined;

export function Wait({ children }: { children: string }) {
  return <p class="muted card-wait">{children}</p>;
}

export function Meter({ name, percent, detail }: { name: string; percent: number | null; detail?: string }) {
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

export function Figures({ items }: { items: [string, string][] }) {
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

export const gb = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GB`;
export const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
export const oneDecimal = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : String(Math.round(value * 10) / 10);
export const when = (at: string) =>
  new Date(at).toLocaleString(undefined, {
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
