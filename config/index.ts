// The configuration's entry point: the loader and the whole shape. A section's own types live in its file.
export { ConfigError } from './env.ts';
export { type Config, loadConfig, loadConfigOrExit } from './load.ts';
