// Settings › Move in from Homepage: paste or pick services.yaml, bookmarks.yaml and widgets.yaml, see the dry run
// (what would be created, updated and skipped, and why), then import.
import './homepage-import.css';
import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import type { paths } from '../../api.d.ts';
import { api, ok } from '../../client.ts';

type Report = paths['/api/import/homepage']['post']['responses'][200]['content']['application/json'];
type Files = { services: string; bookmarks: string; widgets: string };
const fileNames: (keyof Files)[] = ['services', 'bookmarks', 'widgets'];

function runImport(files: Files, dryRun: boolean) {
  const body = Object.fromEntries(
    fileNames.filter((name) => files[name].trim() !== '').map((name) => [name, files[name]]),
  );
  return ok(api.POST('/api/import/homepage', { body: { ...body, dry_run: dryRun } }));
}

function Items({
  title,
  items,
}: {
  title: string;
  items: (Report['created'][number] & { reason?: string })[];
}) {
  if (items.length === 0) return null;
  return (
    <section aria-label={title}>
      <h3>
        {title} ({items.length})
      </h3>
      <ul class="import-items">
        {items.map((item) => (
          <li key={`${item.kind}/${item.group ?? ''}/${item.name}`}>
            {item.kind}: {item.group ? `${item.group} › ` : ''}
            {item.name}
            {item.reason ? ` — ${item.reason}` : ''}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function HomepageImport() {
  const dialog = useRef<HTMLDialogElement>(null);
  const files = useSignal<Files>({ services: '', bookmarks: '', widgets: '' });
  const report = useSignal<Report | null>(null);
  const problem = useSignal<string | null>(null);
  const busy = useSignal(false);

  async function run(dryRun: boolean) {
    busy.value = true;
    problem.value = null;
    try {
      report.value = await runImport(files.value, dryRun);
    } catch (error) {
      report.value = null;
      problem.value = (error as Error).message;
    } finally {
      busy.value = false;
    }
  }

  async function pick(name: keyof Files, input: HTMLInputElement) {
    const file = input.files?.[0];
    if (file) files.value = { ...files.value, [name]: await file.text() };
  }

  return (
    <section class="panel" aria-label="Move in from Homepage">
      <div class="panel-head">
        <h2>Move in from Homepage</h2>
      </div>
      <p class="muted">
        Bring Homepage's services, bookmarks and widgets in as apps, bookmarks and the weather place.
      </p>
      <button type="button" onClick={() => dialog.current?.showModal()}>
        Import from Homepage…
      </button>
      <dialog ref={dialog} class="import-dialog" aria-label="Import from Homepage">
        <h2>Import from Homepage</h2>
        {fileNames.map((name) => (
          <div key={name} class="import-file">
            <label for={`homepage-${name}`}>{name}.yaml</label>
            <textarea
              id={`homepage-${name}`}
              rows={5}
              value={files.value[name]}
              onInput={(event) => {
                files.value = { ...files.value, [name]: event.currentTarget.value };
                report.value = null;
              }}
            />
            <input
              type="file"
              accept=".yaml,.yml,text/yaml"
              aria-label={`Pick ${name}.yaml`}
              onChange={(event) => pick(name, event.currentTarget)}
            />
          </div>
        ))}
        {problem.value && (
          <p class="card-error" role="alert">
            {problem.value}
          </p>
        )}
        {report.value && (
          <section class="import-report" aria-label="Import report">
            <p>
              <strong>{report.value.dry_run ? 'Dry run: nothing was written.' : 'Imported.'}</strong>
            </p>
            <Items title={report.value.dry_run ? 'Would create' : 'Created'} items={report.value.created} />
            <Items title={report.value.dry_run ? 'Would update' : 'Updated'} items={report.value.updated} />
            <Items title="Skipped" items={report.value.skipped} />
          </section>
        )}
        <div class="toolbar">
          <button type="button" disabled={busy.value} onClick={() => run(true)}>
            Dry run
          </button>
          <button
            type="button"
            disabled={busy.value || report.value?.dry_run !== true}
            onClick={() => run(false)}
          >
            Import
          </button>
          <button type="button" class="ghost" onClick={() => dialog.current?.close()}>
            Close
          </button>
        </div>
      </dialog>
    </section>
  );
}
