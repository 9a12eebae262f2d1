// Modules that only some requests need (document extraction, the tool protocol) are loaded on first use rather than
// at start, where every start and restart would pay for them.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Runs `load` on the first call and hands every caller that one promise; a failed load is tried again next call. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    });
    return loading;
  };
}

/** `make()` on the first call, and the same value on every call after it. */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/**
 * A module needed inside synchronous code, loaded with require() on the first call: a CommonJS package, or an ES
 * module without top-level await (the same instance `import` gives). `specifier` is a package name.
 */
export function lazyRequire<T>(specifier: string): () => T {
  return onFirstUse(() => require(specifier) as T);
}
