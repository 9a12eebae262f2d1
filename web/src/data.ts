// What every screen does with the hub's data: read it when shown (again when what it depends on changes, and every
// `every` ms while shown if asked), keep the last answer while a new one is on its way, and tell the owner when a
// read fails. A read started before another one is ignored when it ends after it, so a slow answer never replaces a
// newer one.
import { type Inputs, useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { failed } from './state.ts';

export interface Data<T> {
  /** The last answer, undefined until the first one arrives. */
  data: T | undefined;
  /** Why the last read failed; cleared by the next answer. */
  error: Error | undefined;
  loading: boolean;
  /** Reads again now; resolves when the answer is in (a failure is reported, not thrown). */
  reload: () => Promise<void>;
  /** Replaces the shown data without reading (an answer a write returned, a decided card kept in place). */
  set: (data: T) => void;
}

interface State<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

export function useData<T>(
  read: () => Promise<T>,
  inputs: Inputs = [],
  options: { every?: number } = {},
): Data<T> {
  const [state, setState] = useState<State<T>>({ data: undefined, error: undefined, loading: true });
  const latest = useRef(read);
  latest.current = read;
  // Each read's number; only the newest one's outcome is kept, and none after the component is gone.
  const counter = useRef(0);
  const run = useCallback(async (quiet: boolean) => {
    const id = ++counter.current;
    setState((s) => (s.loading ? s : { ...s, loading: true }));
    try {
      const data = await latest.current();
      if (id === counter.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      if (id !== counter.current) return;
      setState((s) => ({ ...s, error: error as Error, loading: false }));
      // A background refresh that fails stays quiet: the next one tries again.
      if (!quiet) failed(error);
    }
  }, []);
  useEffect(() => {
    run(false);
    const timer = options.every ? setInterval(() => run(true), options.every) : undefined;
    return () => {
      clearInterval(timer);
      counter.current++;
    };
  }, inputs);
  const reload = useCallback(() => run(false), []);
  const set = useCallback((data: T) => {
    counter.current++;
    setState({ data, error: undefined, loading: false });
  }, []);
  return { ...state, reload, set };
}
