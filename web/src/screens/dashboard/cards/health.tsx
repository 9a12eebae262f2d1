// The service health card: how many services are up, the failing ones first (the config's categories only, when set).
import type { Answer } from '../../../types.ts';
import { Wait } from './parts.tsx';

export type ServiceGroups = Answer<'/api/health/services'>;

const stateOrder = { down: 0, warning: 1, degraded: 2, unknown: 3, pending: 4, up: 5, paused: 6 } as const;
const stateTone = {
  down: 'danger',
  warning: 'warning',
  degraded: 'warning',
  unknown: '',
  pending: 'warning',
  up: 'success',
  paused: '',
} as const;
/** Slow (degraded) or with a certificate expiring soon (warning), a service still passes its check. */
const passing = new Set(['up', 'degraded', 'warning']);

export function Health({ data, categories }: { data: ServiceGroups; categories?: string[] }) {
  const groups = categories
    ? data.groups.filter((group) => categories.includes(group.category))
    : data.groups;
  const services = groups
    .flatMap((group) => group.services)
    .sort((a, b) => stateOrder[a.state] - stateOrder[b.state] || a.name.localeCompare(b.name));
  if (services.length === 0) return <Wait>No services monitored yet</Wait>;
  const up = services.filter((service) => passing.has(service.state)).length;
  return (
    <div class="stack-tight">
      <span class={`badge ${up === services.length ? 'success' : 'warning'}`}>
        {up} of {services.length} up
      </span>
      <ul class="card-list">
        {services.map((service) => (
          <li key={service.id}>
            <span class={`dot ${stateTone[service.state]}`} aria-hidden="true" />
            {service.name}
            <span class="muted small">
              {service.state === 'up' && service.latency_ms !== null
                ? `${service.latency_ms} ms`
                : service.state}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
