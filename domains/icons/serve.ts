// How every icon leaves the hub: its own content type, revalidated on every use (`no-cache`) against a strong ETag
// (304 when it matches), never sniffed into another type, and an SVG opened on its own runs nothing (the CSP).
import type { FastifyReply, FastifyRequest } from 'fastify';

export const svgCsp = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

const contentTypes = { svg: 'image/svg+xml', png: 'image/png' } as const;

/** Whether If-None-Match names this ETag (weak comparison, as RFC 9110 asks for If-None-Match). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

export function sendIcon(
  request: FastifyRequest,
  reply: FastifyReply,
  icon: { type: 'svg' | 'png'; bytes: Buffer; etag: string },
): FastifyReply {
  reply.header('cache-control', 'no-cache');
  reply.header('etag', icon.etag);
  reply.header('x-content-type-options', 'nosniff');
  if (icon.type === 'svg') reply.header('content-security-policy', svgCsp);
  if (matches(request.headers['if-none-match'], icon.etag)) return reply.status(304).send();
  return reply.type(contentTypes[icon.type]).send(icon.bytes);
}
