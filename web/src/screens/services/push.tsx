// A push service's heartbeat URLs, shown when its token is made or renewed (the only time it is seen): the URL to
// copy, and how a cron job, an Uptime Kuma client or a healthchecks.io client sends to it.
export function PushUrls({ name, token, onDone }: { name: string; token: string; onDone: () => void }) {
  const origin = location.origin;
  const kuma = `${origin}/api/push/${token}`;
  const ping = `${origin}/api/ping/${token}`;
  const examples = [
    { label: 'curl (after a job)', text: `curl -fsS -m 10 --retry 3 "${kuma}?status=up&msg=OK"` },
    { label: 'Uptime Kuma push URL', text: `${kuma}?status=up&msg=OK&ping=` },
    {
      label: 'healthchecks.io style (start, then the exit status)',
      text: `curl -fsS -m 10 --retry 3 ${ping}/start\nmy-backup-job; curl -fsS -m 10 --retry 3 --data-raw "$(tail -c 10000 /var/log/backup.log)" ${ping}/$?`,
    },
  ];
  return (
    <div class="minted" role="alert" aria-label={`Heartbeat URL of ${name}`}>
      <strong>Heartbeat URL of {name}</strong>
      <span class="muted">Copy it now: it is shown this once and stored only as a hash.</span>
      <code class="token push-url">{kuma}</code>
      <div class="row">
        <button type="button" onClick={() => navigator.clipboard?.writeText(kuma)}>
          Copy URL
        </button>
      </div>
      {examples.map((example) => (
        <div key={example.label}>
          <div class="muted small">{example.label}</div>
          <pre class="token push-example">{example.text}</pre>
        </div>
      ))}
      <div class="row">
        <button type="button" class="ghost" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
