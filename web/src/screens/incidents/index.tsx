// Incidents: what the hub opened itself (a service down, a certificate expired, a backup failed, storage at
// ATTENTION), open first; each links to its page, where the owner writes the resolution.
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { IncidentList } from './IncidentList.tsx';

export default function Incidents() {
  const incidents = useData(() => ok(api.GET('/api/incidents', { params: { query: { limit: 100 } } })), [], {
    every: 30_000,
  });
  return (
    <div>
      <div class="page-head">
        <h1>Incidents</h1>
        <button type="button" class="ghost" aria-label="Refresh" onClick={incidents.reload}>
          <Icon name="refresh" size={15} />
        </button>
      </div>
      <section class="panel" aria-label="Incidents">
        {incidents.data && (
          <IncidentList
            items={incidents.data.items}
            empty="No incidents. When a service goes down, a certificate expires, a backup fails or storage needs attention, the hub opens one here."
          />
        )}
      </section>
    </div>
  );
}
