// Settings → Icon sets: the uploaded sets, one browsed at a time, and a new set uploaded as a zip.
import { useSignal } from '@preact/signals';
import { api, formBody, ok } from '../../client.ts';
import { useData } from '../../data.ts';
import { failed, toast } from '../../state.ts';

export function IconSets() {
  const sets = useData(() => ok(api.GET('/api/icon-sets')));
  const browsed = useSignal<string | null>(null);
  const open = useData(
    () =>
      browsed.value === null
        ? Promise.resolve(null)
        : ok(api.GET('/api/icon-sets/{set}', { params: { path: { set: browsed.value } } })),
    [browsed.value],
  );
  const setName = useSignal('');
  function browse(name: string) {
    if (browsed.value === name) open.reload();
    else browsed.value = name;
  }
  async function upload(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('zip') as HTMLInputElement).files?.[0];
    if (!file) return;
    const body = new FormData();
    body.append('name', setName.value);
    body.append('file', file, file.name);
    const created = await ok(api.POST('/api/icon-sets', formBody(body))).catch(failed);
    if (!created) return;
    toast(`Icon set ${setName.value} uploaded`, 'success');
    const name = setName.value;
    setName.value = '';
    form.reset();
    await sets.reload();
    browse(name);
  }
  const list = sets.data?.items ?? [];
  const shown = browsed.value !== null && open.data ? { name: browsed.value, icons: open.data.icons } : null;
  return (
    <section class="panel" aria-label="Icon sets">
      <div class="panel-head">
        <h2>Icon sets</h2>
      </div>
      <div class="chips">
        {list.map((set) => (
          <button
            key={set.name}
            type="button"
            aria-pressed={browsed.value === set.name}
            onClick={() => browse(set.name)}
          >
            {set.name} <span class="muted">{set.icon_count}</span>
          </button>
        ))}
        {list.length === 0 && <span class="muted">No icon sets yet: brand icons are always there.</span>}
      </div>
      {shown && (
        <ul class="icon-grid" aria-label={`Icons of ${shown.name}`}>
          {shown.icons.map((icon) => (
            <li key={icon.name} title={icon.ref}>
              <img src={icon.url} alt={icon.name} width={32} height={32} loading="lazy" />
              <span>{icon.name}</span>
            </li>
          ))}
        </ul>
      )}
      <form class="row section-gap" onSubmit={upload}>
        <label>
          Set name
          <input
            value={setName.value}
            onInput={(e) => (setName.value = e.currentTarget.value)}
            required
            pattern="[a-z0-9\-]{1,40}"
          />
        </label>
        <label>
          Zip of SVG or PNG icons
          <input name="zip" type="file" accept=".zip,application/zip" required />
        </label>
        <button type="submit">Upload</button>
      </form>
    </section>
  );
}
