// Devices: the band list of known devices (online first), new devices a scan found waiting for review, and
// editing a device with an icon picker and its watch switch (an alert when it goes offline).
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { SubjectEvents } from '../../components/Events.tsx';
import { Icon } from '../../components/Icon.tsx';
import { IconPicker } from '../../components/IconPicker.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Device } from '../../types.ts';

function DeviceIcon({ device }: { device: Device }) {
  return device.icon_url ? (
    <img class="device-icon" src={device.icon_url} alt="" width={28} height={28} />
  ) : (
    <span class="device-icon placeholder" aria-hidden="true">
      {(device.name ?? device.hostname ?? device.vendor ?? '?').slice(0, 1).toUpperCase()}
    </span>
  );
}

const title = (device: Device) => device.name ?? device.hostname ?? device.mac;

function Editor({ device, onClose }: { device: Device; onClose: (saved: boolean) => void }) {
  const form = useSignal({
    name: device.name ?? '',
    type: device.type ?? '',
    location: device.location ?? '',
    notes: device.notes ?? '',
    icon: device.icon,
  });
  const watch = useSignal(device.watch);
  const set = (field: keyof typeof form.value, value: string | null) =>
    (form.value = { ...form.value, [field]: value });
  async function save(event: Event) {
    event.preventDefault();
    const f = form.value;
    const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
    await ok(
      api.PATCH('/api/devices/{mac}', {
        params: { path: { mac: device.mac } },
        body: {
          name: orNull(f.name),
          type: orNull(f.type),
          location: orNull(f.location),
          notes: orNull(f.notes),
          icon: f.icon,
          watch: watch.value,
        },
      }),
    ).then(() => {
      toast('Device saved', 'success');
      onClose(true);
    }, failed);
  }
  return (
    <Dialog label={`Edit ${title(device)}`} onClose={() => onClose(false)}>
      <form class="modal" onSubmit={save}>
        <h2>Edit {title(device)}</h2>
        <p class="muted small">
          {device.mac} · {device.ip ?? 'no address'} · {device.vendor ?? 'unknown vendor'}
        </p>
        <label>
          Name
          <input value={form.value.name} onInput={(e) => set('name', e.currentTarget.value)} />
        </label>
        <div class="row">
          <label>
            Type
            <input value={form.value.type} onInput={(e) => set('type', e.currentTarget.value)} />
          </label>
          <label>
            Location
            <input value={form.value.location} onInput={(e) => set('location', e.currentTarget.value)} />
          </label>
        </div>
        <IconPicker value={form.value.icon} onPick={(ref) => set('icon', ref)} />
        <label>
          Notes
          <input value={form.value.notes} onInput={(e) => set('notes', e.currentTarget.value)} />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={watch.value}
            onChange={(e) => (watch.value = e.currentTarget.checked)}
          />
          Watch: alert when it is offline
        </label>
        <div class="row">
          <button type="submit" class="primary">
            Save
          </button>
          <button type="button" class="ghost" onClick={() => onClose(false)}>
            Cancel
          </button>
        </div>
        <SubjectEvents subject={`device:${device.mac}`} heading="This device's events" limit={5} />
      </form>
    </Dialog>
  );
}

export default function Devices() {
  const editing = useSignal<Device | null>(null);
  const query = useSignal('');
  const known = useData(
    () =>
      ok(
        api.GET('/api/devices', {
          params: { query: { limit: 100, ...(query.value ? { q: query.value } : {}) } },
        }),
      ),
    [query.value],
  );
  const found = useData(() => ok(api.GET('/api/devices/discovered', { params: { query: { limit: 100 } } })));
  const devices = (known.data?.items ?? []).filter((d) => d.status !== 'new');
  const fresh = found.data?.items ?? [];
  const load = () => Promise.all([known.reload(), found.reload()]);
  async function review(device: Device, action: 'accept' | 'ignore') {
    await ok(
      api.PATCH('/api/devices/discovered/{mac}', { params: { path: { mac: device.mac } }, body: { action } }),
    ).then(
      () =>
        toast(action === 'accept' ? `${title(device)} is now known` : `${title(device)} ignored`, 'success'),
      failed,
    );
    await load();
  }
  async function scan() {
    await ok(api.POST('/api/devices/scan')).then(() => toast('Scanning the network', 'success'), failed);
  }
  const bands = [
    { name: 'Online', items: devices.filter((d) => d.present && d.status === 'known') },
    { name: 'Offline', items: devices.filter((d) => !d.present && d.status === 'known') },
    { name: 'Ignored', items: devices.filter((d) => d.status === 'ignored') },
  ].filter((band) => band.items.length > 0);
  return (
    <div>
      <div class="page-head">
        <h1>Devices</h1>
        <input
          class="filter"
          type="search"
          aria-label="Filter devices"
          placeholder="Filter by name, IP, vendor…"
          value={query.value}
          onInput={(e) => (query.value = e.currentTarget.value)}
        />
        <button type="button" onClick={scan}>
          <Icon name="refresh" size={15} /> Scan now
        </button>
      </div>
      {fresh.length > 0 && (
        <section class="panel" aria-label="New devices">
          <div class="panel-head">
            <h2>New on the network</h2>
            <span class="badge warning">{fresh.length}</span>
          </div>
          <ul class="device-list">
            {fresh.map((device) => (
              <li key={device.mac}>
                <DeviceIcon device={device} />
                <div>
                  <strong>{title(device)}</strong>
                  <div class="muted small">
                    {device.ip ?? '—'} ·{' '}
                    {device.vendor ?? (device.random_mac ? 'private address' : 'unknown vendor')} · seen{' '}
                    {ago(device.last_seen ?? device.first_seen)}
                  </div>
                </div>
                <div class="row">
                  <button type="button" class="primary small" onClick={() => review(device, 'accept')}>
                    Accept
                  </button>
                  <button type="button" class="small" onClick={() => review(device, 'ignore')}>
                    Ignore
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      {bands.length === 0 && (
        <div class="panel muted empty">No devices yet: scan the network or add one.</div>
      )}
      {bands.map((band) => (
        <section key={band.name} class="panel" aria-label={band.name}>
          <div class="panel-head">
            <h2>{band.name}</h2>
            <span class="badge">{band.items.length}</span>
          </div>
          <ul class="device-list">
            {band.items.map((device) => (
              <li key={device.mac}>
                <DeviceIcon device={device} />
                <div>
                  <strong>{title(device)}</strong>
                  <div class="muted small">
                    {device.ip ?? '—'} · {device.mac} · {device.vendor ?? '—'}
                    {device.location ? ` · ${device.location}` : ''}
                  </div>
                </div>
                {device.watch && <span class="badge">watched</span>}
                <span class={`badge ${device.present ? 'success' : ''}`}>
                  {device.present ? 'online' : `seen ${ago(device.last_seen)}`}
                </span>
                <button
                  type="button"
                  class="ghost small"
                  aria-label={`Edit ${title(device)}`}
                  onClick={() => (editing.value = device)}
                >
                  <Icon name="edit" size={14} />
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {editing.value && (
        <Editor
          device={editing.value}
          onClose={(saved) => {
            editing.value = null;
            if (saved) load();
          }}
        />
      )}
    </div>
  );
}
