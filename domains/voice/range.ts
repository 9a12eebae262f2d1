// One HTTP byte range (RFC 9110 section 14): `bytes=start-end`, `bytes=start-` or `bytes=-suffix`. Several ranges,
// or another unit, are answered with the whole body (allowed: a server may ignore Range).

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

export function byteRange(header: string | undefined, size: number): ByteRange {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}
