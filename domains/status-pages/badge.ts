// Shields-style flat badges (label on grey, value on a colour), drawn here: two texts and two rectangles do not
// need a library. Text widths are estimated from Verdana 11 px classes of characters, enough to fit the text.
const colours = {
  good: '#4c1',
  fair: '#97ca00',
  warn: '#dfb317',
  bad: '#e05d44',
  none: '#9f9f9f',
};

const stateColours: Record<string, string> = {
  up: colours.good,
  degraded: colours.warn,
  warning: colours.warn,
  down: colours.bad,
};

export function stateColour(state: string): string {
  return stateColours[state] ?? colours.none;
}

export function uptimeColour(uptime: number | null): string {
  if (uptime === null) return colours.none;
  if (uptime >= 99) return colours.good;
  if (uptime >= 95) return colours.fair;
  if (uptime >= 90) return colours.warn;
  return colours.bad;
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (/[il.,:;|!'`I1 ]/.test(char)) width += 3.5;
    else if (/[mwMW@%]/.test(char)) width += 10;
    else if (/[A-Z0-9]/.test(char)) width += 7.5;
    else width += 6.5;
  }
  return Math.ceil(width);
}

/** A badge: `label` on grey beside `value` on `colour`. */
export function badge(label: string, value: string, colour: string): string {
  const shortLabel = [...label].slice(0, 60).join('');
  const left = textWidth(shortLabel) + 10;
  const right = textWidth(value) + 10;
  const width = left + right;
  const title = escapeXml(`${shortLabel}: ${value}`);
  const text = (x: number, content: string) =>
    `<text x="${x}" y="15" fill="#010101" fill-opacity=".3">${escapeXml(content)}</text>` +
    `<text x="${x}" y="14">${escapeXml(content)}</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">` +
    `<title>${title}</title>` +
    '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>' +
    '<stop offset="1" stop-opacity=".1"/></linearGradient>' +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${left}" height="20" fill="#555"/>` +
    `<rect x="${left}" width="${right}" height="20" fill="${colour}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>` +
    '<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">' +
    text(left / 2, shortLabel) +
    text(left + right / 2, value) +
    '</g></svg>'
  );
}
