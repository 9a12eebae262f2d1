// Settings › Data › Export and import: pick a space; download it as a zip of Markdown (or everything as JSON); pick a
// zip of Markdown files or a browser's bookmark file, see what importing it would do (a dry run), then import.
import { useSignal } from '@preact/signals';
import type { paths } from '../../api.d.ts';
import { api, formBody, ok } from '../../client.ts';
import { useData } from '../../data.ts';
import { toast } from '../../state.ts';

type Report = paths['/api/spaces/{id}/import']['post']['responses'][200]['content']['application/json'];

function runImport(spaceId: string, file: File, options: { dryRun: boolean; capture: boolean }) {
  const body = new FormData();
  body.append('file', file, file.name);
  return ok(
    api.POST('/api/spaces/{id}/import', {
      params: { path: { id: spaceId }, query: { dry_run: options.dryRun, capture: options.capture } },
      ...formBody(body),
    }),
  );
}

export function Transfer() {
  const spaces = useData(() => ok(api.GET('/api/spaces', { params: { query: { limit: 100 } } })));
  const chosen = useSignal('');
  const file = useSignal<File | null>(null);
  const capture = useSignal(false);
  const report = useSignal<Report | null>(null);
  const problem = useSignal<string | null>(null);
  const busy = useSignal(false);
  const list = spaces.data?.items ?? [];
  const spaceId = chosen.value || list[0]?.id || '';

  async function run(dryRun: boolean) {
    if (!file.value || !spaceId) return;
    busy.value = true;
    problem.value = null;
    try {
      report.value = await runImport(spaceId, file.value, { dryRun, capture: capture.value });
      if (!dryRun) toast(`Imported ${file.value.name}`, 'success');
    } catch (error) {
      report.value = null;
      problem.value = (error as Error).message;
    } finally {
      busy.value = false;
    }
  }

  function changed() {
    report.value = null;
    problem.value = null;
  }

  const shown = report.value;
  return (
    <section class="panel" aria-label="Export and import">
      <div class="panel-head">
        <h3>Export and import</h3>
      </div>
      <div class="row">
        <label>
          Space
          <select
            value={spaceId}
            onChange={(event) => {
              chosen.value = event.currentTarget.value;
              changed();
            }}
          >
            {list.map((space) => (
              <option key={space.id} value={space.id}>
                {space.name}
              </option>
            ))}
          </select>
        </label>
        {spaceId && (
          <a href={`/api/spaces/${spaceId}/export.zip`} download>
            Export space (Markdown zip)
          </a>
        )}
        <a href="/api/export.json" download>
          Export everything (JSON)
        </a>
      </div>
      <p class="muted">
        Import a zip of Markdown files (an Obsidian vault, or an export of the hub) or a bookmark file from a
        browser. Importing the same file again adds nothing twice.
      </p>
      <div class="row">
        <label>
          File to import
          <input
            type="file"
            accept=".zip,application/zip,.html,.htm,text/html"
            onChange={(event) => {
              file.value = event.currentTarget.files?.[0] ?? null;
              changed();
            }}
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={capture.value}
            onChange={(event) => {
              capture.value = event.currentTarget.checked;
              changed();
            }}
          />
          Capture each bookmark's page
        </label>
        <button type="button" disabled={busy.value || !file.value || !spaceId} onClick={() => run(true)}>
          Preview
        </button>
        <button type="button" disabled={busy.value || shown?.dry_run !== true} onClick={() => run(false)}>
          Import
        </button>
      </div>
      {problem.value && (
        <p class="card-error" role="alert">
          {problem.value}
        </p>
      )}
      {shown && (
        <section aria-label="Import preview" aria-live="polite">
          <p>
            <strong>{shown.dry_run ? 'Preview: nothing was written yet.' : 'Imported.'}</strong>{' '}
            {shown.dry_run ? 'Would create' : 'Created'} {shown.created},{' '}
            {shown.dry_run ? 'would update' : 'updated'} {shown.updated}, unchanged {shown.unchanged}, skipped{' '}
            {shown.skipped.length}
            {shown.captures > 0 ? `, captures ${shown.captures}` : ''}.
          </p>
          {shown.skipped.length > 0 && (
            <ul aria-label="Skipped">
              {shown.skipped.map((skip) => (
                <li key={skip.path}>
                  {skip.path} — {skip.reason}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </section>
  );
}
