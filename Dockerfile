# One image runs any service: the command picks which (npm start runs them all in one process).
#   docker build -t pps .
#   docker run -p 8080:8080 pps                           # everything
#   docker run pps npm run start:settlement                # one service
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY services/gateway/package.json services/gateway/
COPY services/payments/package.json services/payments/
COPY services/merchants/package.json services/merchants/
COPY services/settlement/package.json services/settlement/
COPY test/package.json test/
# tsx runs the TypeScript sources directly (no build step), so it is a runtime dependency.
RUN npm ci --omit=dev --no-audit --no-fund
COPY packages packages
COPY services services
COPY scripts scripts
COPY tsconfig.json ./
USER node
EXPOSE 8080
CMD ["npm", "start"]
