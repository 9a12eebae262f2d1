// Editing the launcher in place: the dashboard's "Edit apps" toggle turns every apps card's tiles into editable
// ones (edit, delete, move within the group), and this form adds an app or changes one, moving it to another group
// when its group changes. Writes go through the apps API; the card reads its apps again after each one.
import { signal, useSignal } from '@preact/signals';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { IconPicker } from '../../components/IconPicker.tsx';
import { failed, toast } from '../../state.ts';

export type App = components['schemas']['App'];

/** Whether the apps cards show their editing controls (one switch for the whole dashboard). */
export const editingApps = signal(false);

/** What the form edits: an app, or a new one for a group. */
export type Editing = { app: App } | { group: string };

export function AppEditor({
  editing,
  groups,
  onClose,
}: {
  editing: Editing;
  groups: string[];
  onClose: (saved: boolean) => void;
}) {
  const app = 'app' in editing ? editing.app : null;
  const form = useSignal({
    name: app?.name ?? '',
    href: app?.href ?? '',
    description: app?.description ?? '',
    group: app?.group ?? ('group' in editing ? editing.group : 'Apps'),
    icon: app?.icon ?? null,
  });
  const set = (field: keyof typeof form.value, value: string | null) =>
    (form.value = { ...form.value, [field]: value });
  const title = app ? `Edit ${app.name}` : 'Add an app';

  async function save(event: Event) {
    event.preventDefault();
    const f = form.value;
    const body = {
      name: f.name.trim(),
      href: f.href.trim(),
      description: f.description.trim(),
      group: f.group.trim() || 'Apps',
      icon: f.icon,
    };
    const written = app
      ? api.PATCH('/api/apps/{id}', { params: { path: { id: app.id } }, body })
      : api.POST('/api/apps', { body });
    await ok(written).then(() => {
      toast(app ? 'App saved' : 'App added', 'success');
      onClose(true);
    }, failed);
  }

  return (
    <Dialog label={title} onClose={() => onClose(false)}>
      <form class="modal app-editor" onSubmit={save}>
        <h2>{title}</h2>
        <label>
          Name
          <input required value={form.value.name} onInput={(e) => set('name', e.currentTarget.value)} />
        </label>
        <label>
          Link
          <input
            type="url"
            required
            placeholder="https://"
            value={form.value.href}
            onInput={(e) => set('href', e.currentTarget.value)}
          />
        </label>
        <label>
          Description
          <input value={form.value.description} onInput={(e) => set('description', e.currentTarget.value)} />
        </label>
        <label>
          Group
          <input
            list="app-groups"
            value={form.value.group}
            onInput={(e) => set('group', e.currentTarget.value)}
          />
          <datalist id="app-groups">
            {groups.map((group) => (
              <option key={group} value={group} />
            ))}
          </datalist>
        </label>
        <IconPicker value={form.value.icon} onPick={(ref) => set('icon', ref)} />
        <div class="row">
          <button type="submit" class="primary">
            Save
          </button>
          <button type="button" class="ghost" onClick={() => onClose(false)}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Moves an app one place within its group (`by` is -1 or +1); the hub keeps the group's positions contiguous. */
export function moveApp(app: App, by: number): Promise<unknown> {
  return ok(
    api.PATCH('/api/apps/{id}', {
      params: { path: { id: app.id } },
      body: { position: Math.max(0, app.position + by) },
    }),
  );
}

export function deleteApp(app: App): Promise<unknown> {
  return ok(api.DELETE('/api/apps/{id}', { params: { path: { id: app.id } } }));
}
