FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/server/package.json apps/server/
COPY apps/admin/package.json apps/admin/
COPY packages ./packages
RUN npm ci --omit=dev --ignore-scripts
COPY . .
# The admin console's bundle, built now: the server runs as `node`, which may not write it at start-up.
RUN npm run build -w @resident/admin
ENV NODE_ENV=production PORT=3000
EXPOSE 3000
USER node
CMD ["npm", "start"]
