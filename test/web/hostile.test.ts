// Hostile Markdown everywhere the app shows written content: a page, the page editor's preview, an assistant reply,
// an agent's proposals (a page and a document) and a document found by search. None of it brings a form, button,
// input or any other control into the owner's screen, no style, no image calling the API, no link to a non-web
// scheme; what Markdown itself makes (emphasis, code, tables, task lists, web links) still shows. Behind the
// renderer, a form the browser would submit anyway is stopped twice: by the CSP (form-action 'none') and by the
// JSON rule for cookie-authenticated writes (415), so the owner's click never approves an agent's proposal.
import type { Locator } from 'playwright-core';
import t, { type Test } from 'tap';
import { conversationOf, insertMessage } from '../../domains/assistant/store.ts';
import { createAgent, createSpace, ownerToken } from '../helpers/app.ts';
import { listeningHub, openBrowser } from './browser.ts';

const hub = await listeningHub(t);
// Chrome reports the hostile inline styles as soon as the sanitiser parses them (in an inert document, before they are
// removed): the CSP refusing them, as it should. Nothing else may reach the console.
const { page, problems } = await openBrowser(t, {
  expected: [
    /^console: Applying inline style violates the following Content Security Policy directive 'style-src/,
  ],
});
const space = await createSpace(hub, 'Lab');
const scribe = await createAgent(hub, { name: 'scribe', tier: 'suggest' });

async function propose(url: string, payload: Record<string, unknown>): Promise<string> {
  const proposed = await hub.asAgent(scribe.token, { method: 'POST', url, payload });
  if (proposed.statusCode !== 202)
    throw new Error(`proposal answered ${proposed.statusCode}: ${proposed.body}`);
  return proposed.json().pending_change_id;
}

// The proposal the planted form tries to approve.
const target = await propose('/api/pages', { space_id: space.id, title: 'Harmless title', body: 'x' });
const approveUrl = `/api/pending-changes/${target}/approve`;

const hostile = (marker: string) => `# Release notes ${marker}

**Nothing** to see here.

<form method="post" action="${approveUrl}" enctype="text/plain"><button>Read the full article</button></form>

<input name="token" value="x"> <select><option>one</option></select> <textarea>notes</textarea>
<button formaction="/api/speedtest/run" formmethod="post">Run a speed test</button>

<style>body { display: none }</style>
<iframe src="/api/jobs"></iframe><object data="/api/jobs"></object><embed src="/api/jobs">
<p style="position:fixed;inset:0;z-index:99">Cover</p>
<a class="primary overlay" id="main" name="signin" href="/knowledge">Styled</a>

<img src="/api/speedtest/latest" alt="via the API"> <img src="/%61pi/jobs" alt="encoded"> <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="inline">

[script](javascript:alert(1)) [tabbed](java&#x09;script:alert(1)) [data](data:text/html,hi) [vb](vbscript:msgbox) [elsewhere](//evil.example/)
[web](https://example.org/) [mail](mailto:owner@example.org) [app](/knowledge)

<svg><foreignObject><form><button>svg</button></form></foreignObject></svg>
<math><mi><form><input></form></mi></math>

- [x] done
- [ ] to do

| left | right |
|:-----|------:|
| a | b |

\`\`\`ts
const answer = 42;
\`\`\`
`;

interface Rendered {
  controls: string[];
  styled: number;
  named: number;
  classes: string[];
  apiImages: string[];
  links: string[];
  text: string;
}

// The few browser types the functions run in the page use (the tests are type-checked without the DOM library);
// they are taken from globalThis inside those functions, which run in the page, not here.
interface Element {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): Iterable<Element>;
  src?: string;
  href?: string;
}
interface BrowserGlobals {
  location: { origin: string };
  document: {
    createElement(tag: 'form'): Element & { method: string; action: string; enctype: string; submit(): void };
    body: { append(element: Element): void };
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { effectiveDirective: string }) => void,
      options: { once: boolean },
    ): void;
  };
}

/** What one rendered container holds that an attacker would want. */
function inspect(container: Locator): Promise<Rendered> {
  return container.evaluate((root: Element) => {
    const { location } = globalThis as unknown as BrowserGlobals;
    const all = (selector: string) => [...root.querySelectorAll(selector)];
    const own = `${location.origin}/api`;
    return {
      controls: all(
        'form, button, input, select, textarea, option, style, link, meta, base, iframe, frame, object, embed, svg, math',
      ).map((element) => element.tagName.toLowerCase()),
      styled: all('[style]').length,
      named: all('[id], [name]').length,
      classes: all('[class]').map((element) => element.getAttribute('class') ?? ''),
      apiImages: all('img[src]')
        .map((image) => image.src ?? '')
        .filter((src) => src.toLowerCase().startsWith(own) || decodeURIComponent(src).startsWith(own)),
      links: all('a[href]').map((link) => {
        const url = new URL(link.href ?? '');
        return url.origin === location.origin ? `app:${url.pathname}` : `${url.protocol}${url.host}`;
      }),
      text: root.textContent ?? '',
    };
  });
}

function harmless(t: Test, rendered: Rendered, where: string): void {
  t.same(rendered.controls, [], `${where}: no form, control, style, frame or object`);
  t.equal(rendered.styled, 0, `${where}: no style attribute`);
  t.equal(rendered.named, 0, `${where}: no id or name`);
  t.same(rendered.apiImages, [], `${where}: no image calling the API`);
  t.ok(
    rendered.classes.every((name) => /^language-/.test(name)),
    `${where}: no class but a code block's language (${rendered.classes.join(', ')})`,
  );
  t.ok(
    rendered.links.every((link) => /^(?:app:\/|https?:|mailto:)/.test(link)),
    `${where}: links only to the web, mail and the app (${rendered.links.join(', ')})`,
  );
}

/** The Markdown of the hostile body, rendered as the app renders Markdown. */
function renderedMarkdown(t: Test, rendered: Rendered, where: string): void {
  harmless(t, rendered, where);
  t.same(
    rendered.links.sort(),
    ['app:/knowledge', 'app:/knowledge', 'https:example.org', 'mailto:'].sort(),
    `${where}: the web, mail and app links are kept`,
  );
  t.match(rendered.text, /Read the full article/, `${where}: the button's words stay as text`);
  t.match(rendered.text, /☑ done/, `${where}: a task list shows its state as text`);
}

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('a page and its editor preview', async (t) => {
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Release notes', body: hostile('page') },
  });
  t.equal(created.statusCode, 201);
  await page.goto(`${hub.origin}/knowledge/page/${created.json().id}`);
  const body = page.locator('.markdown').first();
  await body.locator('strong', { hasText: 'Nothing' }).waitFor();
  const rendered = await inspect(body);
  renderedMarkdown(t, rendered, 'page');
  t.equal(await body.locator('code.language-ts').count(), 1, 'a code block keeps its language');
  t.equal(await body.locator('td[align="right"]').count(), 1, 'a table keeps its alignment');
  t.equal(await body.locator('img[src^="data:"]').count(), 1, 'an inline image is kept');

  await page.getByRole('button', { name: 'Edit' }).click();
  const preview = page.locator('.markdown.preview');
  await preview.locator('strong', { hasText: 'Nothing' }).waitFor();
  renderedMarkdown(t, await inspect(preview), 'editor preview');
  await page.getByLabel('Markdown').fill(`${hostile('draft')}\n<button>typed just now</button>`);
  await preview.getByText('Release notes draft').waitFor();
  const typed = await inspect(preview);
  renderedMarkdown(t, typed, 'editor preview while typing');
  t.match(typed.text, /typed just now/);
});

t.test('an assistant reply', async (t) => {
  const history = await hub.asOwner({ method: 'GET', url: '/api/assistant/history' });
  t.equal(history.statusCode, 200);
  const conversation = await conversationOf(hub.sql, history.json().agent.id, null);
  await insertMessage(hub.sql, { conversation_id: conversation.id, role: 'user', content: 'What changed?' });
  await insertMessage(hub.sql, {
    conversation_id: conversation.id,
    role: 'assistant',
    content: hostile('reply'),
  });
  await page.goto(`${hub.origin}/assistant`);
  const reply = page.locator('.bubble.assistant .markdown');
  await reply.locator('strong', { hasText: 'Nothing' }).waitFor();
  renderedMarkdown(t, await inspect(reply), 'assistant reply');
});

t.test("an agent's proposals: a page and a document", async (t) => {
  await propose('/api/pages', { space_id: space.id, title: 'Proposed notes', body: hostile('proposal') });
  await propose('/api/source-docs', {
    space_id: space.id,
    title: 'Proposed document',
    content: hostile('document'),
  });
  await page.goto(`${hub.origin}/approvals`);
  for (const name of [/create page: Proposed notes/, /create source_doc: Proposed document/]) {
    const card = page.getByRole('article', { name });
    await card.waitFor();
    const rendered = await inspect(card.locator('.draft-body'));
    harmless(t, rendered, String(name));
    t.match(rendered.text, /<form method=\\?"post/, `${name}: the markup shows as text`);
  }
});

t.test('a document found by search', async (t) => {
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/source-docs',
    payload: { space_id: space.id, title: 'Vendor advisory', content: `quokkabeacon ${hostile('search')}` },
  });
  t.equal(created.statusCode, 201);
  await page.keyboard.press('Control+k');
  await page.getByLabel('Search everything').fill('quokkabeacon');
  const hit = page.getByRole('region', { name: 'Documents' }).getByRole('button').first();
  await hit.waitFor();
  const rendered = await inspect(hit.locator('.snippet'));
  harmless(t, rendered, 'search snippet');
  t.match(rendered.text, /quokkabeacon/);
  await page.keyboard.press('Escape');
});

t.test('a form the browser would submit anyway approves nothing', async (t) => {
  // Sent by a script on the hub's own page, with the owner's cookie and the hub's Origin: the JSON rule refuses it.
  const status = await page.evaluate(
    (url) => fetch(url, { method: 'POST', body: '' }).then((response) => response.status),
    approveUrl,
  );
  t.equal(status, 415, 'a text/plain body is refused');
  // A native form submission is blocked by the CSP before anything is sent.
  const directive = await page.evaluate(
    (url) =>
      new Promise<string>((resolve) => {
        const { document } = globalThis as unknown as BrowserGlobals;
        document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective), {
          once: true,
        });
        const form = document.createElement('form');
        form.method = 'post';
        form.action = url;
        form.enctype = 'text/plain';
        document.body.append(form);
        form.submit();
      }),
    approveUrl,
  );
  t.equal(directive, 'form-action');
  const [change] = await hub.sql`select status from pending_changes where id = ${target}`;
  t.equal(change.status, 'pending', 'the proposal still waits for the owner');
  for (const pattern of [/HTTP 415: POST .*\/approve/, /status of 415/, /form-action/]) {
    const seen = problems.findIndex((problem) => pattern.test(problem));
    t.ok(seen >= 0, `seen: ${pattern}`);
    if (seen >= 0) problems.splice(seen, 1);
  }
});

t.test('no console error and no failed request', async (t) => {
  t.same(problems, []);
});
