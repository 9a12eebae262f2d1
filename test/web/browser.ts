// The browser side of the web tests: a real hub listening on 127.0.0.1 (a test app on its own database) and
// Debian's Chromium driven by playwright-core, with every console error and failed request recorded, so a test can
// assert there were none.
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { AxeResults, RunOptions } from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { type TestApp, type TestAppOptions, testApp } from '../helpers/app.ts';

export const artifacts = path.resolve(import.meta.dirname, 'artifacts');

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Hub extends TestApp {
  origin: string;
}

/** A test app listening on a free loopback port. */
export async function listeningHub(t: Teardown, options: TestAppOptions = {}): Promise<Hub> {
  const ta = await testApp(t, options);
  await ta.app.listen({ host: '127.0.0.1', port: 0 });
  const address = ta.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the hub is not listening on TCP');
  return { ...ta, origin: `http://127.0.0.1:${address.port}` };
}

export interface Session {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and failed or 4xx/5xx requests seen so far. */
  problems: string[];
}

export interface BrowserOptions {
  /** Problems that are part of the test, not failures. */
  expected?: RegExp[];
  viewport?: { width: number; height: number };
  /** The hub's service worker is blocked unless a test is about it: it would answer requests a test routes. */
  serviceWorkers?: 'allow' | 'block';
}

/** Chromium on a fresh profile, one page, recording every problem; closed at teardown. */
export async function openBrowser(t: Teardown, options: BrowserOptions = {}): Promise<Session> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    args: chromiumArgs,
    viewport: options.viewport ?? { width: 1360, height: 860 },
    serviceWorkers: options.serviceWorkers ?? 'block',
    headless: true,
  });
  const browser = context.browser() as Browser;
  const problems: string[] = [];
  const expected = options.expected ?? [];
  const note = (text: string) => {
    if (!expected.some((pattern) => pattern.test(text))) problems.push(text);
  };
  context.on('console', (message) => {
    if (message.type() === 'error') note(`console: ${message.text()}`);
  });
  context.on('weberror', (error) => note(`page error: ${error.error().message}`));
  context.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? '';
    // A stream or a request cut short by navigation is not a failure of the app.
    if (failure.includes('ERR_ABORTED')) return;
    note(`request failed: ${request.method()} ${request.url()} ${failure}`);
  });
  context.on('response', (response) => {
    if (response.status() >= 400)
      note(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  const page = context.pages()[0] ?? (await context.newPage());
  t.teardown(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  return { browser, context, page, problems };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(artifacts, { recursive: true });
  const file = path.join(artifacts, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe.run: a context of `{ include }` or the whole document. */
type AxeRun = (context: unknown, options: RunOptions) => Promise<AxeResults>;

/**
 * Fails `t` with each serious or critical accessibility violation axe finds on `page` (or within `within`). axe-core
 * runs in the page itself, put there once per document (the app changes screens without reloading): the Playwright
 * wrapper injects it again on every call and finishes each run in a new blank page, about ten times slower.
 */
export async function checkAccessible(t: Test, page: Page, name: string, within?: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const result = await page.evaluate(async (selector) => {
    const { axe, document } = globalThis as unknown as { axe: { run: AxeRun }; document: unknown };
    const found = await axe.run(selector ? { include: [[selector]] } : document, {
      resultTypes: ['violations'],
    });
    return { violations: found.violations.map(({ id, impact, nodes }) => ({ id, impact, nodes })) };
  }, within ?? null);
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.same(
    serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `${name}: no serious or critical accessibility violation`,
  );
}

/** Opens a screen from the sidebar and waits for its heading. */
export async function visitScreen(page: Page, origin: string, path: string, heading: string): Promise<void> {
  await page.getByRole('link', { name: heading, exact: true }).click();
  await page.waitForURL(`${origin}${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}
