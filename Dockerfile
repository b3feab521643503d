# One image for every tapehouse part (capture, worker, load, migrate, …); the command picks the part.
# Pinned to the exact Node release CI runs on (node --version there: v20.20.2).
FROM node:20.20.2-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# npm's `prepare` runs scripts/build.mjs; with no sources yet it compiles nothing (see below).
COPY scripts/build.mjs ./scripts/
# The lock installs with this image's npm (10.8) and with the newest npm (CI: scripts/check-lock.sh).
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY sql ./sql
COPY dashboards ./dashboards
COPY scripts/docker-entrypoint.sh ./scripts/docker-entrypoint.sh
# The JavaScript the command runs (dist/): without it every start would compile TypeScript.
RUN node scripts/build.mjs
# State a part keeps between restarts (capture's coverage marks); docker-compose.yml mounts a
# volume here, which takes this directory's owner when first created.
RUN mkdir -p /var/lib/tapehouse && chown node:node /var/lib/tapehouse
ENV TAPEHOUSE_COVERAGE_FILE=/var/lib/tapehouse/capture-coverage.json
USER node
# --metrics-port of capture, load and worker (docker-compose.yml).
EXPOSE 9464
# Checks the secret files it was given (readable by `node`, not empty, not a placeholder), then
# runs `tapehouse "$@"`.
ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]
CMD ["--help"]
