# syntax=docker/dockerfile:1
# One image for every Toolwall component: controller, webhook, and the injected init container and
# sidecar. Node 24 runs the TypeScript sources directly (type stripping), so there is no build step:
# the first stage only installs the production dependencies.
ARG NODE_IMAGE=node:24-alpine

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
# iptables/ip6tables (nft and legacy backends) for `toolwall init`; nothing else is added.
RUN apk add --no-cache iptables ip6tables ca-certificates \
 && addgroup -S -g 10001 toolwall && adduser -S -D -H -u 10001 -G toolwall toolwall
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY crds ./crds
# Non-root by default; the injected init container runs as root with NET_ADMIN/NET_RAW only, the
# sidecar as uid 1337 (both set by the webhook's securityContext).
USER 10001:10001
ENTRYPOINT ["node", "/app/bin/toolwall.js"]
CMD ["--help"]
