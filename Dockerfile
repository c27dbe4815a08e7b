# Chorus: the API (node dist/src/main.js) or the outbox processor alone (node dist/src/worker.js).
# Build:  docker build -t chorus .
#
# Where the build cannot reach the npm registry, build on the host and pass the result:
# a context with prebuilt/node_modules (production dependencies) and prebuilt/dist, and
# --build-arg PREBUILT=true (test/container/run.sh does this).

FROM node:20-bookworm-slim AS build
ARG PREBUILT=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN [ "$PREBUILT" = true ] || npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
COPY test/bench ./test/bench
# The glob copies prebuilt/'s node_modules and dist when the context has them, and nothing otherwise.
COPY package.json prebuil[t] ./
RUN if [ "$PREBUILT" = true ]; then test -f dist/src/main.js -a -d node_modules/@nestjs/core || \
      { echo 'PREBUILT=true needs prebuilt/dist and prebuilt/node_modules in the context' >&2; exit 1; }; \
    else npm run build && npm prune --omit=dev && rm -rf dist/test; fi

FROM node:20-bookworm-slim
# V8's young generation at 2 x 8 MB instead of 2 x 16 (the same flag as in package.json's start
# scripts), and glibc's malloc arenas at 2: together 30 MB less at peak under load, for no CPU
# that bench:floor can see (docs/operating.md, "Memory").
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=8 \
    MALLOC_ARENA_MAX=2 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Exec form, so that SIGTERM reaches Node and the shutdown is graceful.
CMD ["node", "dist/src/main.js"]
