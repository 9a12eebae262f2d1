// What a dashboard card whose upstream is not configured (or failing) shows: why, and a button that opens that
// integration's form in Settings → Integrations.
import { useLocation } from 'preact-iso';

/** The integration each card type reads from. */
const integrationOf: Record<string, { kind: string; name: string }> = {
  weather: { kind: 'weather', name: 'weather' },
  cluster: { kind: 'proxmox', name: 'Proxmox' },
  storage: { kind: 'proxmox', name: 'Proxmox' },
  shlink: { kind: 'shlink', name: 'Shlink' },
};

export function SetUpIntegration({ type, problem }: { type: string; problem?: string }) {
  const integration = integrationOf[type];
  const location = useLocation();
  if (!integration) {
    return problem ? <p class="card-error">{problem}</p> : <p class="muted">Not configured yet.</p>;
  }
  return (
    <div class="card-setup">
      {problem ? <p class="card-error">{problem}</p> : <p class="muted">Not configured yet.</p>}
      <button type="button" onClick={() => location.route(`/settings#integration-${integration.kind}`)}>
        {problem ? `Check ${integration.name}` : `Set up ${integration.name}`}
      </button>
    </div>
  );
}
