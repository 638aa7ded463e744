# syntax=docker/dockerfile:1
# One image for every Toolwall component: controller, webhook, and the injected init container and
# sidecar. The build stage compiles src/ to dist/ (tsc); the final image holds the compiled JS, the
# CRD the policy loader validates against and the production dependencies only, on Debian slim with
# Node 24 (glibc: koffi's prebuilt binary and iptables' nft and legacy backends both work).
ARG NODE_IMAGE=node:24-bookworm-slim
ARG DEBIAN_IMAGE=debian:bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts are not needed to compile (the `node` devDependency would download a second Node).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Type declarations, sources maps, TypeScript sources (never run from node_modules) and docs are
# about half of the production dependencies' size.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' \
      -o -name '*.md' \) -delete

# The Node binary alone on Debian slim: npm and Node's headers are not needed at run time.
FROM ${DEBIAN_IMAGE}
# iptables/ip6tables for `toolwall init`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends iptables ca-certificates \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/* \
 && groupadd --system --gid 10001 toolwall \
 && useradd --system --uid 10001 --gid toolwall --no-create-home --shell /usr/sbin/nologin toolwall
COPY --from=build /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY crds ./crds
# Non-root by default; the injected init container runs as root with NET_ADMIN/NET_RAW only, the
# sidecar as uid 1337 (both set by the webhook's securityContext).
USER 10001:10001
ENTRYPOINT ["node", "/app/dist/cli/entry.js"]
CMD ["--help"]
