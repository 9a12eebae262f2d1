// Modules that only some requests need (document extraction, the tool protocol) are loaded on first use rather than
// at start, where every start and restart would pay for them.

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
