# Every target runs on the Node 24 that package.json pins (node_modules/.bin/node), not the system Node.
SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

.PHONY: all deps prereqs test lint typecheck demo bench image kind-up e2e clean k8s-binaries

all: test

# `npm install`, not `npm ci`: npm 11 with omit-lockfile-registry-resolved leaves other platforms'
# optional packages (biome's binaries) out of the lock, and `npm ci` then refuses the lock as out of sync.
node_modules/.install-stamp: package.json package-lock.json
	npm install --no-audit --no-fund --prefer-offline
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
	npm run bench

IMAGE ?= toolwall:dev
image:
	docker build -t $(IMAGE) .

KIND_CLUSTER ?= toolwall
kind-up:
	kind create cluster --name $(KIND_CLUSTER) --wait 120s

e2e: image kind-up
	kind load docker-image $(IMAGE) --name $(KIND_CLUSTER)
	test/e2e/kind.sh $(IMAGE)

clean:
	rm -rf node_modules .cache

# kube-apiserver, etcd, kubectl and helm for the k8s tests, built from their Go modules into
# ${TOOLWALL_CACHE_DIR:-~/.cache/toolwall}/k8s/ (the tests also build them on first use).
k8s-binaries: deps
	node test/k8s/binaries.ts
