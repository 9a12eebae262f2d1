// Icons (README, Configuration).
import { type Env, integer } from './env.ts';

/** Limits on an uploaded icon-set zip: entries, total and per-entry uncompressed bytes, compression ratio. */
export interface IconZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxRatio: number;
}

export interface IconsConfig {
  zip: IconZipLimits;
  /** Megabytes the rendered-icon cache (DATA_DIR/icon-cache) may hold; least recently used renders go first. */
  cacheMaxMb: number;
}

export function icons(env: Env): IconsConfig {
  return {
    zip: {
      maxEntries: integer(env, 'ICON_ZIP_MAX_ENTRIES', 5000, 1, 100_000),
      maxTotalBytes: integer(env, 'ICON_ZIP_MAX_TOTAL_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxEntryBytes: integer(env, 'ICON_ZIP_MAX_ENTRY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      maxRatio: integer(env, 'ICON_ZIP_MAX_RATIO', 100, 2, 10_000),
    },
    cacheMaxMb: integer(env, 'ICON_CACHE_MAX_MB', 64, 1, 1024 * 1024),
  };
}
