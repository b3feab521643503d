# One image for every tapehouse part (capture, worker, load, migrate, …); the command picks the part.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY workflows ./workflows
COPY sql ./sql
COPY dashboards ./dashboards
USER node
ENTRYPOINT ["node", "bin/tapehouse.js"]
CMD ["--help"]
