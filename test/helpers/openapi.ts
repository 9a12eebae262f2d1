// The OpenAPI document as the hub serves it, with the parameters many operations share (references to
// components.parameters, plugins/openapi.ts) written out in each operation, as the tests read them.
import type { TestApp } from './app.ts';

type Operations = Record<string, { parameters?: object[] }>;
interface Served {
  paths: Record<string, Operations>;
  components?: { parameters?: Record<string, object> };
}

export async function servedOpenApi<T>(ta: Pick<TestApp, 'anon'>): Promise<T> {
  const doc = (await ta.anon({ method: 'GET', url: '/api/openapi.json' })).json() as Served;
  const shared = doc.components?.parameters ?? {};
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      operation.parameters = operation.parameters?.map((parameter) => {
        const ref = (parameter as { $ref?: string }).$ref;
        const named = ref?.startsWith('#/components/parameters/')
          ? shared[ref.split('/').at(-1) as string]
          : undefined;
        if (ref && !named) throw new Error(`the parameter reference ${ref} resolves to nothing`);
        return named ?? parameter;
      });
    }
  }
  return doc as T;
}
