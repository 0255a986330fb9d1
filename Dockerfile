# syntax=docker/dockerfile:1
# The Keymaster controller image. Build it from the repository root:
#   docker build -t registry.example.com/platform/keymaster:0.2.0 \
#     --build-arg REVISION="$(git rev-parse HEAD)" --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
# Both stages use Node.js 26.10.0 (the newest LTS), pinned by digest: the Node.js CI runs the suites on
# (packages/testenv/node-versions.env; a test keeps them equal). docs/operations.md ("The image") says
# how to move to a newer one. The chart and deploy/manager run it with `run --namespace=... --leader-elect ...`.
ARG NODE_IMAGE=node:26.10.0-bookworm-slim@sha256:662933cf47f013bc8e4beb31a6116448427a82057ba7c42c97e4c5ba766504c2

FROM ${NODE_IMAGE} AS build
RUN npm install --global pnpm@10.34.9
WORKDIR /src
# Dependencies first, so that editing a source keeps these layers: pnpm fetch downloads what the
# lockfile names (nothing else decides it), then install links the workspace from the manifests.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY package.json ./
COPY packages/api/package.json packages/api/
COPY packages/identity/package.json packages/identity/
COPY packages/tagging/package.json packages/tagging/
COPY packages/reconciler/package.json packages/reconciler/
COPY packages/kube-emulator/package.json packages/kube-emulator/
COPY packages/aws-emulator/package.json packages/aws-emulator/
COPY packages/testenv/package.json packages/testenv/
COPY packages/devtools/package.json packages/devtools/
COPY e2e/package.json e2e/
RUN pnpm install --frozen-lockfile --offline
# Then the sources: the controller and the packages it is built with.
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
RUN pnpm exec tsc -b packages/reconciler
# The controller and its production dependencies, from the shared lockfile: not the dev-only packages
# (@keymaster/devtools with the demo, the emulators, testenv), which no production dependency names. pnpm 10 deploys from a
# shared lockfile only with injected workspace packages (copied with their dist/, not linked); the
# setting applies to this command only. Types, source maps and docs are not run: they go (101 MB -> 49 MB).
RUN pnpm --config.inject-workspace-packages=true deploy --filter @keymaster/reconciler --prod --offline /out && \
    find /out/node_modules /out/dist -type f \
      \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) -delete

FROM ${NODE_IMAGE}
ARG NODE_IMAGE
# The release (package.json's version; a test keeps them equal), the commit and the build time.
ARG VERSION=0.2.0
ARG REVISION=""
ARG CREATED=""
LABEL org.opencontainers.image.title="keymaster" \
      org.opencontainers.image.description="Keymaster: per-tenant AWS identities and tag policies for Cluster API AWSClusters" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
ENV NODE_ENV=production
WORKDIR /app
# Owned by root and read-only for the user that runs them.
COPY --from=build /out/package.json ./package.json
COPY --from=build /out/dist ./dist
COPY --from=build /out/node_modules ./node_modules
# The image's "node" user, by number, so that Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 8080 8081
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["run"]
