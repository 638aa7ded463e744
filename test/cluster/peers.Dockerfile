# The scenarios' peers and agent (fake LLM provider, server-everything, the SDK agents): the
# repository's locked dependencies and test/cluster/peers/. Built by the node harness with buildah
# and by `make e2e` with docker, from a context holding package.json, package-lock.json and peers/.
FROM node:24-bookworm-slim
WORKDIR /peers
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY peers ./
USER 1000:1000
CMD ["node", "-e", "setInterval(() => {}, 1 << 30)"]
