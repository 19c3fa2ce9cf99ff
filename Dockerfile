# Build with every dependency, then keep only what runs: the compiled JavaScript, the console bundle and the
# production dependencies. node is PID 1 (no npm in between), so SIGTERM reaches the service's graceful shutdown.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
RUN npm ci --ignore-scripts --no-audit --no-fund \
  && npm run build \
  && rm -rf node_modules packages/*/node_modules apps/*/node_modules \
  && npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000
COPY --from=build /app ./
EXPOSE 3000
USER node
CMD ["node", "apps/server/dist/main.js"]
