// What an uploaded icon really is, by its bytes, and an SVG made safe to store and serve.
//
// The SVG sanitiser is DOMPurify over jsdom (the pairing DOMPurify is tested with on a server), with its SVG profile:
// it removes scripts, foreignObject, event-handler attributes, javascript: and other unsafe URLs, and every element
// and attribute outside its allow-list. One pass of our own then keeps references local: an href or xlink:href that
// is not a `#fragment` goes, and so does any style (a <style> element or a style or presentation attribute) that
// imports or loads anything (`@import`, a `url()` that is not `#fragment`, image-set() and the like, or CSS escapes,
// which could spell either). DOMPurify works in place on the XML tree that was checked, and the result is
// serialised from that tree, so the stored copy has no DOCTYPE and no entities, and no second parse reads it differently.
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
  readonly value: string;
}
interface DomElement {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly textContent: string | null;
  readonly attributes: ArrayLike<DomAttribute> & Iterable<DomAttribute>;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): Iterable<DomElement>;
  remove(): void;
  removeAttributeNode(attribute: DomAttribute): void;
}
interface DomWindow {
  DOMParser: new () => { parseFromString(text: string, type: string): { documentElement: DomElement } };
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

const drawable = 'path, rect, circle, ellipse, line, polyline, polygon, text, use';

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

export type SvgResult = { ok: true; bytes: Buffer } | { ok: false; reason: string };

/** The SVG made safe, or why it is not an SVG at all (not UTF-8, not well-formed XML, another root, nothing left). */
export async function sanitiseSvg(bytes: Buffer): Promise<SvgResult> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return { ok: false, reason: 'not an SVG: the bytes are not UTF-8 text' };
  }
  const { window, purify } = await loadSanitiser();
  const parsed = new window.DOMParser().parseFromString(text, 'image/svg+xml');
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
  // Sanitised in place on the XML tree just checked: what is stored is exactly what was parsed, with no second
  // (HTML) parse that could read the same text differently.
  purify.sanitize(root, {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ['use'],
    FORBID_TAGS: ['foreignObject', 'script'],
    IN_PLACE: true,
  });
  const svg = root;
  keepLocal(svg);
  if (!svg.querySelector(drawable)) {
    return { ok: false, reason: 'nothing drawable is left once unsafe content is removed' };
  }
  const out = new window.XMLSerializer().serializeToString(svg);
  return { ok: true, bytes: Buffer.from(out, 'utf8') };
}
