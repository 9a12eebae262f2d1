// Capture: paste a URL or drop files; the inbox of captured links and uploaded files with each one's state and
// error, retry for failed ones, and a link to the document each produced. A link arrives ready to capture from a
// phone's share sheet (`/capture?url=&title=&text=`, the manifest's share target) and from the bookmarklet, whose
// small window (`&popup=1`) captures at once with the owner's session and closes itself.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, formBody, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Capture as CaptureItem } from '../../types.ts';
import { Feeds } from './feeds.tsx';
import { UnreadOnly } from './unread-only.tsx';

const stateBadge: Record<CaptureItem['state'], string> = {
  completed: 'success',
  failed: 'danger',
  queued: 'warning',
  cancelled: '',
};

const originLabel: Record<CaptureItem['origin'], string> = {
  url: 'link',
  video: 'video',
  webhook: 'bookmark',
  upload: 'upload',
};

/** The link a share or the bookmarklet sent: its `url`, else the first web address in its text. */
function sharedLink(query: Record<string, string>): string {
  if (query.url?.trim()) return query.url.trim();
  return /https?:\/\/[^\s<>"]+/.exec(query.text ?? '')?.[0] ?? '';
}

/** The bookmarklet: it sends the page's address, title and selected text to this hub's Capture, in a small window. */
function bookmarklet(origin: string): string {
  const open =
    `window.open('${origin}/capture?popup=1&url='+encodeURIComponent(location.href)` +
    "+'&title='+encodeURIComponent(document.title)+'&text='+encodeURIComponent(String(getSelection()))" +
    ",'ops-hub-capture','width=420,height=360')";
  return `javascript:(()=>{${open}})()`;
}

export default function Capture() {
  const { query } = useLocation();
  const popup = query.popup === '1';
  const url = useSignal(sharedLink(query));
  const sharedTitle = query.title?.trim().slice(0, 500) || undefined;
  const dragging = useSignal(false);
  const busy = useSignal(false);
  const unreadOnly = useSignal(false);
  const inbox = useData(
    () =>
      ok(
        api.GET('/api/captures', {
          params: { query: { limit: 50, ...(unreadOnly.value ? { unread: true } : {}) } },
        }),
      ),
    [unreadOnly.value],
    { every: 3000 },
  );

  async function captureUrl(event?: Event) {
    event?.preventDefault();
    busy.value = true;
    try {
      const link = url.value.trim();
      const title = link === sharedLink(query) ? sharedTitle : undefined;
      await ok(
        api.POST('/api/capture', { body: { url: link, title, idempotency_key: crypto.randomUUID() } }),
      );
      url.value = '';
      toast('Captured: the page is being fetched', 'success');
      if (popup) {
        window.close();
        return;
      }
      await inbox.reload();
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }
  async function upload(files: FileList | File[]) {
    for (const file of Array.from(files)) {
      const form = new FormData();
      form.append('file', file, file.name);
      try {
        await ok(api.POST('/api/capture/upload', formBody(form)));
        toast(`Uploaded ${file.name}`, 'success');
      } catch (error) {
        failed(error);
      }
    }
    await inbox.reload();
  }
  async function retry(capture: CaptureItem) {
    if (!capture.job_id) return;
    await ok(api.POST('/api/jobs/{id}/retry', { params: { path: { id: capture.job_id } } })).then(
      () => toast('Queued again', 'success'),
      failed,
    );
    await inbox.reload();
  }

  async function mark(capture: CaptureItem, read: boolean) {
    await ok(api.PATCH('/api/captures/{id}', { params: { path: { id: capture.id } }, body: { read } })).catch(
      failed,
    );
    await inbox.reload();
  }

  // The bookmarklet's window captures at once: the owner already chose the page by clicking it.
  useEffect(() => {
    if (popup && url.value) captureUrl();
  }, []);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the whole screen takes dropped files; the keyboard has the file input
    <div
      class={`capture ${dragging.value ? 'dragging' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        dragging.value = true;
      }}
      onDragLeave={(event) => {
        if (event.currentTarget === event.target) dragging.value = false;
      }}
      onDrop={(event) => {
        event.preventDefault();
        dragging.value = false;
        if (event.dataTransfer?.files.length) upload(event.dataTransfer.files);
        else {
          const text =
            event.dataTransfer?.getData('text/uri-list') || event.dataTransfer?.getData('text/plain');
          if (text) url.value = text.trim();
        }
      }}
    >
      <div class="page-head">
        <h1>Capture</h1>
      </div>
      <div class="grid-2">
        <form class="panel stack" onSubmit={captureUrl}>
          <h2>Save a link</h2>
          <label>
            URL
            <input
              type="url"
              placeholder="https://…"
              value={url.value}
              onInput={(e) => (url.value = e.currentTarget.value)}
              required
            />
          </label>
          {sharedTitle && url.value === sharedLink(query) && <p class="muted small">Shared: {sharedTitle}</p>}
          <div>
            <button type="submit" class="primary" disabled={busy.value}>
              Capture
            </button>
          </div>
          <p class="muted small">
            From any page of a desktop browser: drag{' '}
            <a class="bookmarklet" href={bookmarklet(location.origin)} onClick={(e) => e.preventDefault()}>
              Capture to Ops Hub
            </a>{' '}
            to the bookmarks bar, then click it on the page to keep.
          </p>
        </form>
        <label class="panel dropzone">
          <Icon name="inbox" size={28} />
          <strong>Drop files here</strong>
          <span class="muted">PDF, HTML, Markdown or text: or click to choose</span>
          <input
            type="file"
            multiple
            class="visually-hidden"
            onChange={(e) => {
              if (e.currentTarget.files) upload(e.currentTarget.files);
              e.currentTarget.value = '';
            }}
          />
        </label>
      </div>
      <div class="panel">
        <div class="panel-head">
          <h2>
            Inbox{' '}
            {inbox.data && inbox.data.unread > 0 && (
              <span class="badge info" title="unread">
                {inbox.data.unread} unread
              </span>
            )}
          </h2>
          <UnreadOnly value={unreadOnly} />
          <button type="button" class="ghost" onClick={inbox.reload} aria-label="Refresh">
            <Icon name="refresh" size={15} />
          </button>
        </div>
        {inbox.data && (
          <Table
            class="inbox"
            rows={inbox.data.items}
            empty={unreadOnly.value ? 'Nothing unread.' : 'Nothing captured yet.'}
            head={['Captured', 'State', 'When', '']}
            row={(capture) => {
              const source = capture.url ?? capture.filename ?? '';
              const name = capture.title ?? source;
              const read = capture.read_at !== null;
              return (
                <tr key={capture.id} class={read ? '' : 'unread'}>
                  <td>
                    {capture.document_id ? (
                      <a href={`/knowledge/doc/${capture.document_id}`}>{name}</a>
                    ) : (
                      <strong>{name}</strong>
                    )}
                    <div class="muted small">
                      {originLabel[capture.origin]}
                      {name !== source ? ` · ${source}` : ''}
                    </div>
                    {capture.error && <div class="error small">{capture.error}</div>}
                  </td>
                  <td>
                    <span class={`badge ${stateBadge[capture.state]}`}>{capture.state}</span>
                  </td>
                  <td class="muted">{ago(capture.created_at)}</td>
                  <td class="row">
                    <button
                      type="button"
                      class="small ghost"
                      aria-label={`${read ? 'Mark unread' : 'Mark read'}: ${name}`}
                      onClick={() => mark(capture, !read)}
                    >
                      {read ? 'Mark unread' : 'Mark read'}
                    </button>
                    {capture.state === 'failed' && capture.job_id && (
                      <button
                        type="button"
                        class="small"
                        aria-label={`Retry ${name}`}
                        onClick={() => retry(capture)}
                      >
                        <Icon name="refresh" size={13} /> Retry
                      </button>
                    )}
                  </td>
                </tr>
              );
            }}
          />
        )}
      </div>
      {!popup && <Feeds />}
    </div>
  );
}
