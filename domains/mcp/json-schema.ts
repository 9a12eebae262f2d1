// The TypeBox schemas of the REST routes, as the plain JSON Schema the tool protocol publishes: intersections
// flattened, named references inlined (each tool schema stands alone), `$id`s dropped (a client compiles every
// tool's schema into one validator; repeated ids would clash).
import { type TSchema, Type } from 'typebox';

export type JsonSchema = { [key: string]: unknown };

function inline(node: unknown, named: Record<string, TSchema>, seen: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, named, seen));
  if (typeof node !== 'object' || node === null) return node;
  const object = node as JsonSchema;
  const ref = object.$ref;
  if (typeof ref === 'string') {
    const target = named[ref];
    if (!target) throw new Error(`tool schema refers to an unknown schema: ${ref}`);
    if (seen.includes(ref)) throw new Error(`tool schema refers to itself: ${ref}`);
    return inline(JSON.parse(JSON.stringify(target)), named, [...seen, ref]);
  }
  return Object.fromEntries(
    Object.entries(object)
      .filter(([key]) => key !== '$id')
      .map(([key, value]) => [key, inline(value, named, seen)]),
  );
}

/** A query schema (page + filters) as one object, for validation and publication alike. */
export function flatten(schema: TSchema): TSchema {
  return Type.IsIntersect(schema) ? Type.Evaluate(schema) : schema;
}

/**
 * The JSON Schema of a tool's input or output. Inputs list as required only what has no default (the defaults
 * apply when the argument is left out); the protocol wants an object at the top.
 */
export function toolSchema(
  schema: TSchema,
  named: Record<string, TSchema>,
  kind: 'input' | 'output',
): JsonSchema & { type: 'object' } {
  const json = inline(JSON.parse(JSON.stringify(flatten(schema))), named, []) as JsonSchema;
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  if (kind === 'input' && Array.isArray(json.required)) {
    json.required = json.required.filter((name) => properties[name]?.default === undefined);
  }
  if (json.type !== undefined && json.type !== 'object')
    throw new Error('a tool schema must describe an object');
  return { ...json, type: 'object' };
}
