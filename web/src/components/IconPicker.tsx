// Picks an icon by name from the brand icons and the uploaded sets (GET /api/icons?q=), as an iconRef.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ok } from '../client.ts';

interface Found {
  ref: string;
  title: string;
  url: string;
}

export function IconPicker({
  value,
  onPick,
}: {
  value: string | null;
  onPick: (ref: string | null) => void;
}) {
  const query = useSignal('');
  const found = useSignal<Found[]>([]);
  useEffect(() => {
    const q = query.value.trim();
    if (q === '') {
      found.value = [];
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      ok(api.GET('/api/icons', { params: { query: { q, limit: 24 } }, signal: controller.signal })).then(
        (page) => (found.value = page.items),
        () => undefined,
      );
    }, 120);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query.value]);
  return (
    <div class="icon-picker">
      <label>
        Icon {value && <code>{value}</code>}
        <input
          type="search"
          placeholder="Search icons: proxmox, router, nas…"
          value={query.value}
          onInput={(e) => (query.value = e.currentTarget.value)}
        />
      </label>
      {found.value.length > 0 && (
        <ul class="icon-grid picker" aria-label="Icons found">
          {found.value.map((icon) => (
            <li key={icon.ref}>
              <button
                type="button"
                aria-pressed={icon.ref === value}
                onClick={() => onPick(icon.ref)}
                title={icon.ref}
              >
                <img src={icon.url} alt="" width={28} height={28} loading="lazy" />
                <span>{icon.title}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {value && (
        <button type="button" class="ghost small" onClick={() => onPick(null)}>
          Clear icon
        </button>
      )}
    </div>
  );
}
