// The owner's dashboard (web/, built by Vite into web/dist): hashed assets under /assets/ cached for a year,
// index.html for every other path outside /api (the app routes in the browser), never cached. The theme's palette
// is written into index.html as CSS variables, so the first paint already has the owner's colours; the strict CSP
// allows that one inline style by its hash and no inline script at all.
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
          const css = paletteCss(await options.palette());
          const hash = `sha256-${createHash('sha256').update(css).digest('base64')}`;
          const html = (await indexTemplate()).replace(placeholder, `<style>${css}</style>`);
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
