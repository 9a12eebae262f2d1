// The owner's dashboard (web/, built by Vite into web/dist): hashed assets under /assets/ cached for a year,
// index.html for every other path outside /api (the app routes in the browser), never cached. The theme's palette
// is written into index.html as CSS variables, so the first paint already has the owner's colours; the strict CSP
// allows that one inline style by its hash and no inline script at all. The app installs on a phone or desktop:
// /manifest.webmanifest (in the palette's colours, with a share target into Capture), the app icons under
// /app-icons/ and a service worker, /sw.js, that keeps the shell for offline use and never touches /api.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { hubError } from '../lib/errors.ts';
import { publicAccess } from './auth.ts';

export interface WebOptions {
  /** The palette now: colour name to hex colour. */
  palette: () => Promise<Record<string, string>>;
  /** Where the built app is (default web/dist beside this repository's root). */
  dist?: string;
}

export const defaultDist = path.resolve(import.meta.dirname, '..', 'web', 'dist');
const placeholder = '<!--palette-->';
const hexColour = /^#[0-9a-f]{3}(?:[0-9a-f]{3})?$/i;

/** The palette as one `:root` rule; names and values are checked again, since they end up in the page. */
export function paletteCss(palette: Record<string, string>): string {
  const declarations = Object.entries(palette)
    .filter(([name, value]) => /^[a-z_]+$/.test(name) && hexColour.test(value))
    .map(([name, value]) => `--${name.replaceAll('_', '-')}:${value}`);
  return `:root{${declarations.join(';')}}`;
}

function contentSecurityPolicy(styleHash: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self' '${styleHash}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "media-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    // The app submits with script, never a native form: a form slipped into rendered content goes nowhere.
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(reply: FastifyReply, csp: string): void {
  reply.header('content-security-policy', csp);
  reply.header('referrer-policy', 'same-origin');
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
}

/** The web app manifest: how the installed app looks and opens, and what a phone's share sheet sends it. */
export function webManifest(palette: Record<string, string>) {
  const colour = (name: string, fallback: string) =>
    hexColour.test(palette[name] ?? '') ? palette[name] : fallback;
  const icon = (file: string, size: number, purpose: 'any' | 'maskable') => ({
    src: `/app-icons/${file}`,
    sizes: `${size}x${size}`,
    type: 'image/png',
    purpose,
  });
  return {
    name: 'Ops Hub',
    short_name: 'Hub',
    description: 'Knowledge and home-lab operations in one place',
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: colour('surface', '#171a21'),
    background_color: colour('background', '#0f1115'),
    icons: [
      icon('192.png', 192, 'any'),
      icon('512.png', 512, 'any'),
      icon('maskable-192.png', 192, 'maskable'),
      icon('maskable-512.png', 512, 'maskable'),
    ],
    shortcuts: [
      { name: 'Capture', url: '/capture', icons: [icon('192.png', 192, 'any')] },
      { name: 'Search', url: '/?search=1', icons: [icon('192.png', 192, 'any')] },
      { name: 'Services', url: '/services', icons: [icon('192.png', 192, 'any')] },
    ],
    // A link shared from another app opens Capture with it, ready to capture with one tap.
    share_target: { action: '/capture', method: 'GET', params: { title: 'title', text: 'text', url: 'url' } },
  };
}

const appIcons = ['192.png', '512.png', 'maskable-192.png', 'maskable-512.png', 'apple-touch-icon.png'];

/** Assets embed nothing inline: their policy allows no inline style at all. */
const assetsCsp = "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'";

export default fp<WebOptions>(
  async (app, options) => {
    const dist = options.dist ?? defaultDist;
    let template: string | null = null;

    async function indexTemplate(): Promise<string> {
      template ??= await readFile(path.join(dist, 'index.html'), 'utf8').catch(() => null);
      if (template === null) throw hubError('WEB_APP_NOT_BUILT');
      return template;
    }

    await app.register(
      publicAccess(async (open) => {
        await open.register(fastifyStatic, {
          root: path.join(dist, 'assets'),
          prefix: '/assets/',
          index: false,
          cacheControl: false,
          etag: false,
          lastModified: false,
          setHeaders: (reply) => {
            reply.header('cache-control', 'public, max-age=31536000, immutable');
            reply.header('content-security-policy', assetsCsp);
            reply.header('x-content-type-options', 'nosniff');
          },
        });

        // The installed app's icons (web/public/app-icons/): the few files the manifest names, nothing else.
        open.get<{ Params: { file: string } }>(
          '/app-icons/:file',
          { schema: { hide: true } },
          async (request, reply) => {
            const { file } = request.params;
            if (!appIcons.includes(file)) return reply.callNotFound();
            const bytes = await readFile(path.join(dist, 'app-icons', file)).catch(() => null);
            if (bytes === null) throw hubError('WEB_APP_NOT_BUILT');
            return reply
              .header('cache-control', 'public, max-age=86400')
              .header('content-security-policy', assetsCsp)
              .header('x-content-type-options', 'nosniff')
              .type('image/png')
              .send(bytes);
          },
        );

        open.get('/manifest.webmanifest', { schema: { hide: true } }, async (_request, reply) =>
          reply
            .header('cache-control', 'no-cache')
            .type('application/manifest+json')
            .send(JSON.stringify(webManifest(await options.palette()))),
        );

        let worker: Buffer | null = null;
        open.get('/sw.js', { schema: { hide: true } }, async (_request, reply) => {
          worker ??= await readFile(path.join(dist, 'sw.js')).catch(() => null);
          if (worker === null) throw hubError('WEB_APP_NOT_BUILT');
          // Browsers check for a new worker on every visit; no-cache makes that check reach the hub.
          return reply
            .header('cache-control', 'no-cache')
            .header('content-security-policy', assetsCsp)
            .header('x-content-type-options', 'nosniff')
            .type('text/javascript; charset=utf-8')
            .send(worker);
        });

        const maxParamLength = app.initialConfig.maxParamLength ?? 100;
        const serveIndex = async (url: string, reply: FastifyReply) => {
          if (url === '/api' || url.startsWith('/api/')) {
            // This catch-all sees the /api paths no route took, the router's refusals included: answer an over-long
            // path parameter as the router would have (plugins/errors.ts frameworkError), without echoing the path.
            if (url.split('/').some((segment) => segment.length > maxParamLength)) {
              throw hubError('VALUE_TOO_LONG', 'a path parameter is too long');
            }
            return reply.callNotFound();
          }
          const palette = await options.palette();
          const css = paletteCss(palette);
          const hash = `sha256-${createHash('sha256').update(css).digest('base64')}`;
          const theme = webManifest(palette).theme_color;
          const html = (await indexTemplate()).replace(
            placeholder,
            `<meta name="theme-color" content="${theme}" /><style>${css}</style>`,
          );
          securityHeaders(reply, contentSecurityPolicy(hash));
          return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
        };
        open.get('/', { schema: { hide: true } }, (request, reply) => serveIndex(request.url, reply));
        open.get('/*', { schema: { hide: true } }, (request, reply) =>
          serveIndex(request.url.split('?')[0], reply),
        );
      }),
    );
  },
  { name: 'web', dependencies: ['auth'] },
);
