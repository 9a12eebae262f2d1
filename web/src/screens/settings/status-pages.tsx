// Settings → Status pages: each page with its address, whether it is public and the services it lists; a new page;
// a page's services, title and visibility changed; a page deleted. Badges of a listed service are linked.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { useData } from '../../data.ts';
import { failed, toast } from '../../state.ts';
import type { Answer } from '../../types.ts';

type Page = Answer<'/api/status-pages'>['items'][number];

export function StatusPages() {
  const pages = useData(() => ok(api.GET('/api/status-pages')));
  const health = useData(() =>
    ok(api.GET('/api/health/services', { params: { query: { include_disabled: true } } })),
  );
  const services = (health.data?.groups ?? []).flatMap((group) => group.services);
  const slug = useSignal('');
  const title = useSignal('');

  async function create(event: Event) {
    event.preventDefault();
    const made = await ok(
      api.POST('/api/status-pages', { body: { slug: slug.value, title: title.value, public: false } }),
    ).catch(failed);
    if (!made) return;
    slug.value = '';
    title.value = '';
    toast('Status page made', 'success');
    await pages.reload();
  }
  async function change(page: Page, body: { public?: boolean; services?: string[] }) {
    // Shown at once, so a box ticked meanwhile is not unticked by a redraw of the previous answer.
    const list = pages.data;
    if (list)
      pages.set({ ...list, items: list.items.map((p) => (p.id === page.id ? { ...p, ...body } : p)) });
    await ok(api.PATCH('/api/status-pages/{slug}', { params: { path: { slug: page.slug } }, body })).catch(
      failed,
    );
    await pages.reload();
  }
  async function remove(page: Page) {
    await ok(api.DELETE('/api/status-pages/{slug}', { params: { path: { slug: page.slug } } })).catch(failed);
    await pages.reload();
  }
  const toggle = (page: Page, id: string, on: boolean) =>
    change(page, { services: on ? [...page.services, id] : page.services.filter((s) => s !== id) });

  return (
    <section class="panel" aria-label="Status pages">
      <div class="panel-head">
        <h2>Status pages</h2>
      </div>
      <p class="muted small">
        A public page shows each listed service’s name, state and uptime to anyone at /status/&lt;slug&gt;,
        and nothing of how it is checked. Listed services get badges.
      </p>
      {(pages.data?.items ?? []).map((page) => (
        <fieldset key={page.id} class="status-page-edit">
          <legend>
            <a href={`/status/${page.slug}`} target="_blank" rel="noreferrer">
              {page.title}
            </a>{' '}
            <span class="muted small">/status/{page.slug}</span>
          </legend>
          <label class="row">
            <input
              type="checkbox"
              checked={page.public}
              onChange={(e) => change(page, { public: e.currentTarget.checked })}
            />
            Public
          </label>
          <div class="status-page-services">
            {services.map((service) => (
              <label key={service.id} class="row">
                <input
                  type="checkbox"
                  checked={page.services.includes(service.id)}
                  onChange={(e) => toggle(page, service.id, e.currentTarget.checked)}
                />
                {service.name}
                {page.public && page.services.includes(service.id) && (
                  <a
                    class="small"
                    href={`/api/badge/${service.id}/status.svg`}
                    target="_blank"
                    rel="noreferrer"
                  >
                    badge
                  </a>
                )}
              </label>
            ))}
          </div>
          <button type="button" class="ghost small" onClick={() => remove(page)}>
            Delete {page.title}
          </button>
        </fieldset>
      ))}
      <form class="row section-gap" onSubmit={create}>
        <label>
          Slug
          <input
            value={slug.value}
            pattern="[a-z0-9](?:[a-z0-9\-]{0,62}[a-z0-9])?"
            placeholder="family"
            required
            onInput={(e) => (slug.value = e.currentTarget.value)}
          />
        </label>
        <label>
          Title
          <input
            value={title.value}
            placeholder="Home services"
            required
            onInput={(e) => (title.value = e.currentTarget.value)}
          />
        </label>
        <button type="submit" class="primary">
          Add status page
        </button>
      </form>
    </section>
  );
}
