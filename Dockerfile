# The Keymaster controller image. Build it from the repository root:
#   docker build -t keymaster:0.1.0 .
# deploy/manager/deployment.yaml runs it with `run --namespace=... --leader-elect ...`.

FROM node:20-bookworm AS build
RUN npm install --global pnpm@10.34.9
WORKDIR /src
COPY . .
RUN pnpm install --frozen-lockfile
RUN pnpm build
# The controller and its production dependencies, from the shared lockfile. pnpm 10 deploys from a
# shared lockfile only with injected workspace packages (copied with their dist/, not linked);
# the setting applies to this command only.
RUN pnpm --config.inject-workspace-packages=true deploy --filter @keymaster/reconciler --prod /out

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/dist ./dist
COPY --from=build /out/node_modules ./node_modules
# The image's "node" user, by number, so that Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run"]
