# One image runs any service: the command picks which (dist/start.js runs them all in one process).
#   docker build -t pps .
#   docker run -p 8080:8080 --stop-timeout 30 pps            # everything
#   docker run --stop-timeout 30 pps node dist/settlement.js  # one service (gateway, payments, merchants, settlement, webhooks)
#   docker run --rm pps node dist/cli.js accounts:create --name Acme
# Production refuses the development secrets: pass ADMIN_TOKEN, INTERNAL_SECRET, TOKEN_SIGNING_KEYS,
# DATA_ENCRYPTION_KEYS and BLIND_INDEX_KEY (see README; docker compose reads them from .env: cp .env.example .env).
# --stop-timeout: on SIGTERM the requests in flight get up to SHUTDOWN_TIMEOUT_MS (25 s) to finish (a settlement
# worker finishes its batch), and Docker's default is 10 s.

# Node.js 24 LTS (supported through April 2028).
FROM node:24-bookworm-slim AS base
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY services/gateway/package.json services/gateway/
COPY services/payments/package.json services/payments/
COPY services/merchants/package.json services/merchants/
COPY services/settlement/package.json services/settlement/
COPY test/package.json test/
# npm ci's postinstall applies these (patch-package) in both stages below: postgres.js is a runtime dependency.
COPY patches patches

# Build: every dependency (esbuild, tsx, TypeScript sources), then `npm run build` bundles each entry point to dist/.
FROM base AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY packages packages
COPY services services
COPY scripts scripts
RUN npm run build

# Runtime: production dependencies and the bundles only; no TypeScript, no tsx, no sources.
FROM base AS runtime
# tini as PID 1: forwards SIGTERM to node (which drains and exits 0) and reaps zombies.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# Every interface: a container is reached through its published ports. (Outside one, HOST defaults to 0.0.0.0 only
# with NODE_ENV=production; said here too, so the image never depends on that default.)
ENV HOST=0.0.0.0
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# dist/ holds the bundles, their source maps and the migrations (dist/drizzle); package.json ("type": "module") is
# already here from the base stage. swagger-ui-dist's assets are read from node_modules.
COPY --from=build /app/dist dist
# Stack traces point at the TypeScript sources (maps are applied only when a stack is read). A young generation of
# 64 MB per semi-space halves garbage collection's time per payment (README, Memory); `npm start` passes the same.
ENV NODE_OPTIONS="--enable-source-maps --max-semi-space-size=64"
# One worker per core (node:cluster); set a number to pin it.
ENV WEB_CONCURRENCY=auto
USER node
EXPOSE 8080
ENTRYPOINT ["tini", "--"]
CMD ["node", "dist/start.js"]
