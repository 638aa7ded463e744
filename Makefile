# Every target runs on the Node 24 that package.json pins (node_modules/.bin/node), not the system Node.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: all deps prereqs test lint typecheck demo bench image images cluster cluster-down kind-up e2e clean k8s-binaries

all: test

# `npm ci`: the lock lists every platform's optional packages (biome's binaries), as npm 11 writes it.
node_modules/.install-stamp: package.json package-lock.json
	npm ci --no-audit --no-fund --prefer-offline
	@node -e 'if (!process.version.startsWith("v24.")) { console.error("expected Node 24, got " + process.version); process.exit(1) }'
	@touch $@

deps: node_modules/.install-stamp

# System packages the tests use for real peers (redis-server, iptables, iproute2, …).
prereqs:
	scripts/install-prereqs.sh

test: deps prereqs
	npm test

lint: deps
	npm run lint

typecheck: deps
	npm run typecheck

demo: deps
	node bin/toolwall.js demo

bench: deps prereqs
	scripts/install-prereqs.sh --bench
	npm run build
	npm run bench

IMAGE ?= localhost/toolwall:dev
# With a running Docker engine where there is one; otherwise with buildah (no daemon), like the test node.
image:
	if docker info >/dev/null 2>&1; then docker build -t $(IMAGE) .; else $(MAKE) images; fi

# Every image of the test node (Debian + Node bases, pause, CoreDNS, Redis, Toolwall, test peers),
# built with mmdebstrap and buildah into ${TOOLWALL_CACHE_DIR:-~/.cache/toolwall}/images.
images: deps prereqs
	node test/cluster/images.ts

# A one-node Kubernetes cluster on this machine (root, Linux, no Docker) with Toolwall installed by
# helm; prints the kubeconfig. `make cluster-down` removes everything it made.
cluster: deps prereqs
	node test/cluster/up.ts

cluster-down: deps
	node test/cluster/node.ts down

KIND_CLUSTER ?= toolwall
kind-up:
	kind create cluster --name $(KIND_CLUSTER) --wait 120s

# The scenarios of test/e2e/scenarios.test.ts on kind (images built with docker and loaded).
e2e: deps kind-up
	KIND_CLUSTER=$(KIND_CLUSTER) test/e2e/kind.sh $(IMAGE)

clean:
	rm -rf node_modules .cache

# kube-apiserver, etcd, kubectl, helm, the node's components, CoreDNS and pause, built from their Go modules into
# ${TOOLWALL_CACHE_DIR:-~/.cache/toolwall}/k8s/ (the tests also build them on first use).
k8s-binaries: deps
	node test/k8s/binaries.ts
