# The hub on Node 24, run as the unprivileged `node` user. It expects DATABASE_URL (compose.yaml sets it); without
# one it would start its embedded PostgreSQL under DATA_DIR, which x64 images can do but containers rarely want.
FROM node:24-slim

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    NODE_COMPILE_CACHE=/tmp/node-compile-cache \
    MALLOC_ARENA_MAX=2

WORKDIR /app

# Dependencies first: this layer is rebuilt only when the lock file changes.
COPY package.json package-lock.json ./
# The browser app is an npm workspace: its manifest is needed for the install.
COPY web/package.json web/
# The driver patch that postinstall (patch-package) applies must be present before the install.
COPY patches ./patches
# npm install honours the lock file (npm ci refuses one without entries for every optional platform package).
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

# The sources stay owned by root: the service can read its code but not change it.
COPY . .
# The browser app and the server's bundle are built into the image, so the read-only sources need no build at start.
RUN node scripts/build-web.ts && node scripts/build-server.ts

# The owner token (when OWNER_TOKEN is unset), voice clips and the like live in DATA_DIR.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]

USER node
EXPOSE 3000

# slim has no curl; Node's fetch asks the liveness route.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/api/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM (docker stop) finishes in-flight requests and jobs before exiting; give it the time (compose.yaml does).
STOPSIGNAL SIGTERM
# The memory flags are npm start's (README, "Resources").
CMD ["node", "--optimize-for-size", "--efficiency-mode", "--max-semi-space-size=1", "--max-old-space-size=512", "dist/main.js"]
