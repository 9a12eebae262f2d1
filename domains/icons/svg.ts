// What an uploaded icon really is, by its bytes, and an SVG made safe to store and serve.
//
// The SVG sanitiser is DOMPurify over jsdom (the pairing DOMPurify is tested with on a server), with its SVG profile:
// it removes scripts, foreignObject, event-handler attributes, javascript: and other unsafe URLs, and every element
// and attribute outside its allow-list. One pass of our own then keeps references local: an href or xlink:href that
// is not a `#fragment` goes, and so does any style (a <style> element or a style or presentation attribute) that
// imports or loads anything (`@import`, a `url()` that is not `#fragment`, image-set() and the like, or CSS escapes,
// which could spell either). DOMPurify works in place on the XML tree that was checked, and the result is
// serialised from that tree, so the stored copy has no DOCTYPE and no entities, and no second parse reads it differently.
//
// Before parsing, the document type declaration is taken out (resolveEntities): an entity defined there as plain text
// (what illustration programs write, `<!ENTITY ns_svg "http://www.w3.org/2000/svg">`) is replaced by its text, once;
// every other reference (an external or parameter entity, one whose text holds markup or references, one never
// defined) is removed. So an SVG carrying an entity attack is stored without it, like any other attack, and only an
// SVG with nothing drawable left is refused.
import { lazy } from '../../lib/lazy.ts';

export type IconType = 'svg' | 'png';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const SVG_NS = 'http://www.w3.org/2000/svg';

/** The type the bytes say, for the reason given when they are refused. */
export function sniff(bytes: Buffer): string {
  if (
    bytes.length >= 16 &&
    bytes.subarray(0, 8).equals(PNG_SIGNATURE) &&
    bytes.toString('latin1', 12, 16) === 'IHDR'
  ) {
    return 'png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.toString('latin1', 0, 4) === 'GIF8') return 'gif';
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x00000100) return 'ico';
  if (/^\s*</.test(bytes.toString('utf8', 0, 64).replace(/^\uFEFF/, ''))) return 'xml';
  return 'unknown';
}

export function isPng(bytes: Buffer): boolean {
  return sniff(bytes) === 'png';
}

// The DOM this file touches, described here rather than by the DOM library's global types (see jsdom.d.ts).
interface DomAttribute {
  readonly localName: string;
  readonly name: string;
  readonly namespaceURI: string | null;
  readonly value: string;
}
interface DomElement {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly prefix: string | null;
  readonly textContent: string | null;
  readonly attributes: ArrayLike<DomAttribute> & Iterable<DomAttribute>;
  readonly firstChild: unknown;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): Iterable<DomElement>;
  remove(): void;
  removeAttributeNode(attribute: DomAttribute): void;
  setAttributeNS(namespace: string | null, name: string, value: string): void;
  appendChild(node: unknown): void;
  replaceWith(node: DomElement): void;
}
interface DomDocument {
  readonly documentElement: DomElement;
  createElementNS(namespace: string, name: string): DomElement;
}
interface DomWindow {
  DOMParser: new () => { parseFromString(text: string, type: string): DomDocument };
  XMLSerializer: new () => { serializeToString(node: DomElement): string };
}
interface Purifier {
  sanitize(dirty: DomElement, config: Record<string, unknown> & { IN_PLACE: true }): DomElement;
}

const loadSanitiser = lazy(async (): Promise<{ window: DomWindow; purify: Purifier }> => {
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
  const window = new JSDOM('').window as DomWindow;
  const purify = createDOMPurify(
    window as unknown as Parameters<typeof createDOMPurify>[0],
  ) as unknown as Purifier;
  return { window, purify };
});

/** Whether CSS text imports or loads anything from outside the document. */
export function cssLoads(css: string): boolean {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  // Escapes can spell url( or @import past any pattern; icons have no need for them.
  if (text.includes('\\')) return true;
  if (/@import|@font-face|expression\s*\(|(?:image-set|image|cross-fade|element|src)\s*\(/i.test(text))
    return true;
  for (const match of text.matchAll(/url\s*\(\s*(['"]?)\s*([^'")]*)/gi)) {
    if (!match[2].trim().startsWith('#')) return true;
  }
  return false;
}

const shapes = 'path, rect, circle, ellipse, line, polyline, polygon';

/** Whether anything is left to draw: a shape, a reference to one, or text with characters in it. */
function drawsSomething(root: DomElement): boolean {
  if (root.querySelector(shapes)) return true;
  const uses = [...root.querySelectorAll('use')];
  if (uses.some((use) => [...use.attributes].some((attribute) => attribute.localName === 'href')))
    return true;
  return [...root.querySelectorAll('text')].some((text) => (text.textContent ?? '').trim() !== '');
}

/** Our pass after DOMPurify's: local references only, and no style that loads anything. */
function keepLocal(root: DomElement): void {
  for (const element of [root, ...root.querySelectorAll('*')]) {
    if (element.localName === 'style' && cssLoads(element.textContent ?? '')) {
      element.remove();
      continue;
    }
    for (const attribute of [...element.attributes]) {
      const value = attribute.value;
      const external = attribute.localName === 'href' && !value.trim().startsWith('#');
      const loads = (attribute.localName === 'style' || /url\s*\(|\\/i.test(value)) && cssLoads(value);
      if (external || loads) element.removeAttributeNode(attribute);
    }
  }
}

/** The end of the declaration starting at `start` (`<!DOCTYPE`): its `>` outside quotes and the internal subset. */
function doctypeEnd(text: string, start: number): number {
  let quote: string | null = null;
  let depth = 0;
  for (let i = start + 9; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return -1;
      i = end + 2;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '>' && depth <= 0) return i;
  }
  return -1;
}

/** The prolog's document type declaration, if there is one (comments, PIs and blanks may precede it). */
function findDoctype(text: string): { start: number; end: number } | null {
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return null;
      i = end + 3;
    } else if (text.startsWith('<!DOCTYPE', i)) {
      const end = doctypeEnd(text, i);
      return end < 0 ? null : { start: i, end };
    } else {
      return null;
    }
  }
}

const predefined = new Set(['lt', 'gt', 'amp', 'quot', 'apos']);
const escapes: Record<string, string> = { '<': '&lt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };
/** How much longer than the input resolving entities may make a document. */
const maxGrowth = 1024 * 1024;

/**
 * The text without its document type declaration, each entity reference resolved as the header comment says.
 * Character data sections and comments are left as they are.
 */
export function resolveEntities(text: string): { ok: true; text: string } | { ok: false; reason: string } {
  const doctype = findDoctype(text);
  const plain = new Map<string, string>();
  let body = text;
  if (doctype) {
    const declaration = text.slice(doctype.start, doctype.end + 1);
    for (const match of declaration.matchAll(
      /<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)')\s*>/g,
    )) {
      const value = match[2] ?? match[3] ?? '';
      if (!/[<&%]/.test(value) && !plain.has(match[1])) plain.set(match[1], value);
    }
    body = text.slice(0, doctype.start) + text.slice(doctype.end + 1);
  }
  let growth = 0;
  const parts = body.split(/(<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->)/);
  for (let i = 0; i < parts.length; i += 2) {
    parts[i] = parts[i].replace(/&([A-Za-z_][\w.-]*);/g, (reference, name: string) => {
      if (predefined.has(name)) return reference;
      const value = (plain.get(name) ?? '').replace(/[<&"']/g, (c) => escapes[c]);
      growth += value.length - reference.length;
      return value;
    });
  }
  if (growth > maxGrowth)
    return { ok: false, reason: 'not an SVG: its entities expand to over 1 MB of text' };
  return { ok: true, text: parts.join('') };
}

/**
 * SVG elements written with a prefix (`<svg:svg xmlns:svg="…">`, valid XML) as the same elements without one:
 * DOMPurify knows elements by their written name, so it would drop every prefixed shape and refuse a prefixed root.
 */
function withoutPrefixes(document: DomDocument): void {
  const root = document.documentElement;
  for (const element of [root, ...root.querySelectorAll('*')]) {
    if (element.prefix === null || element.namespaceURI !== SVG_NS) continue;
    const plain = document.createElementNS(SVG_NS, element.localName);
    for (const attribute of [...element.attributes]) {
      plain.setAttributeNS(attribute.namespaceURI, attribute.name, attribute.value);
    }
    while (element.firstChild) plain.appendChild(element.firstChild);
    element.replaceWith(plain);
  }
}

export type SvgResult = { ok: true; bytes: Buffer } | { ok: false; reason: string };

/** The SVG made safe, or why it is not an SVG at all (not UTF-8, not well-formed XML, another root, nothing left). */
export async function sanitiseSvg(bytes: Buffer): Promise<SvgResult> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return { ok: false, reason: 'not an SVG: the bytes are not UTF-8 text' };
  }
  const resolved = resolveEntities(text);
  if (!resolved.ok) return resolved;
  const { window, purify } = await loadSanitiser();
  const parsed = new window.DOMParser().parseFromString(resolved.text, 'image/svg+xml');
  const root = parsed.documentElement;
  if (root.localName === 'parsererror') {
    return {
      ok: false,
      reason: `not an SVG: not well-formed XML (${root.textContent?.trim().slice(0, 120)})`,
    };
  }
  if (root.localName !== 'svg') {
    return { ok: false, reason: `not an SVG: the root element is <${root.localName}>` };
  }
  if (root.namespaceURI !== SVG_NS) {
    return { ok: false, reason: `not an SVG: the <svg> element lacks xmlns="${SVG_NS}"` };
  }
  withoutPrefixes(parsed);
  const svg = parsed.documentElement;
  // Sanitised in place on the XML tree just checked: what is stored is exactly what was parsed, with no second
  // (HTML) parse that could read the same text differently.
  try {
    purify.sanitize(svg, {
      USE_PROFILES: { svg: true, svgFilters: true },
      ADD_TAGS: ['use'],
      FORBID_TAGS: ['foreignObject', 'script'],
      IN_PLACE: true,
    });
  } catch (error) {
    // DOMPurify refuses a tree it cannot clean in place; refused with its reason, never a failed request.
    return { ok: false, reason: `the SVG cannot be sanitised: ${(error as Error).message}` };
  }
  keepLocal(svg);
  if (!drawsSomething(svg)) {
    return { ok: false, reason: 'nothing drawable is left once unsafe content is removed' };
  }
  const out = new window.XMLSerializer().serializeToString(svg);
  return { ok: true, bytes: Buffer.from(out, 'utf8') };
}
