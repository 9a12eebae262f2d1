// Requests for routes read from the route table: every path parameter filled with a plausible value by its name.

/** A UUID no row has. */
export const absentId = '00000000-0000-4000-8000-000000000000';

/** A value for a path parameter: a UUID for ids, a plain word for keys and names. */
function sample(name: string): string {
  if (/id$/i.test(name)) return absentId;
  if (name === 'key') return 'sample.key';
  return 'sample';
}

/** `/api/pages/:id` → `/api/pages/<uuid>`; a wildcard becomes one plain segment. */
export function fillPath(url: string, value: (name: string) => string = sample): string {
  return url.replace(/\*/g, 'sample').replace(/:([A-Za-z_]+)/g, (_, name: string) => value(name));
}
