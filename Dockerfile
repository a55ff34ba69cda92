# syntax=docker/dockerfile:1
# Multi-stage build: compile with dev dependencies, run with production ones only.
FROM node:22-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
COPY bench ./bench
# The admin console and account page (a Vite build into dist/console, served by the service).
COPY console ./console
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
# The embedded PostgreSQL (used when DATABASE_URL is unset) runs as this user too.
RUN groupadd --system iam && useradd --system --gid iam --home /app iam && mkdir -p /data && chown iam:iam /data
COPY --from=build --chown=iam:iam /app/node_modules ./node_modules
COPY --from=build --chown=iam:iam /app/dist ./dist
COPY --chown=iam:iam package.json ./
# Maintenance commands, runnable in the image without any build step:
#   iam-migrate, iam-migration-status, iam-keys-rotate <tenant slug>, iam-secrets-reseal, iam-tenant-move <tenant slug> <server>
RUN for c in migrate:iam-migrate migration-status:iam-migration-status rotate-key:iam-keys-rotate reseal-secrets:iam-secrets-reseal tenant-move:iam-tenant-move; do \
      f="/app/dist/src/cli/${c%%:*}.js"; chmod +x "$f" && ln -s "$f" "/usr/local/bin/${c##*:}"; \
    done
USER iam
EXPOSE 3000
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM drains in-flight requests, closes pools and stops the embedded database.
STOPSIGNAL SIGTERM
# V8 sizes its heap from the machine's memory when nothing limits it, and a busy
# instance then grows far past what it keeps; 320 MiB holds the default caches
# (AUTH_CACHE_ENTRIES) with room. Override with -e NODE_OPTIONS=--max-old-space-size=N.
ENV NODE_OPTIONS=--max-old-space-size=320
CMD ["node", "dist/src/main.js"]
