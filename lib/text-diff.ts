// A unified diff of two texts (what page history and stale proposals show), by the `diff` library.
import type * as Diff from 'diff';
import { lazyRequire } from './lazy.ts';

// Loaded at the first diff shown, not at start.
const diff = lazyRequire<typeof Diff>('diff');

/** The unified diff from `before` to `after`, labelled with what each side is; empty when they are the same. */
export function unifiedDiff(before: string, after: string, beforeLabel: string, afterLabel: string): string {
  if (before === after) return '';
  return diff().createTwoFilesPatch(beforeLabel, afterLabel, before, after, undefined, undefined, {
    context: 3,
  });
}
