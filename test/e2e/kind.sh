#!/usr/bin/env bash
# End to end on kind (`make e2e`: builds the image, creates the cluster, loads the image, runs this).
# Installs the same chart and CRDs the tests dry-run, opts a namespace in, applies the example
# policies and checks that a new pod comes up with the init container and the native sidecar.
# Needs docker, kind, kubectl and helm on PATH.
set -euo pipefail
image=${1:?usage: test/e2e/kind.sh IMAGE (e.g. toolwall:dev)}
cd "$(dirname "$0")/../.."
release_ns=toolwall-system
agents_ns=toolwall-e2e

helm upgrade --install toolwall charts/toolwall --namespace "$release_ns" --create-namespace \
  --set image.repository="${image%:*}" --set image.tag="${image##*:}" --set image.pullPolicy=Never \
  --set redis.bundled.enabled=true --wait --timeout 5m

kubectl create namespace "$agents_ns" --dry-run=client -o yaml | kubectl apply -f -
kubectl label namespace "$agents_ns" toolwall.io/injection=enabled --overwrite
shopt -s nullglob
for policy in examples/policies/*.yaml; do kubectl apply -n "$agents_ns" -f "$policy"; done

kubectl delete pod -n "$agents_ns" agent --ignore-not-found --wait
kubectl run agent -n "$agents_ns" --image="$image" --image-pull-policy=Never --restart=Never \
  --command -- node -e 'setInterval(() => {}, 1 << 30)'
init=$(kubectl get pod -n "$agents_ns" agent -o jsonpath='{.spec.initContainers[*].name}')
[ "$init" = "toolwall-init toolwall-sidecar" ] || { echo "kind.sh: pod not injected (init containers: '$init')" >&2; exit 1; }
kubectl wait -n "$agents_ns" pod/agent --for=condition=Ready --timeout=180s

if kubectl run host -n "$agents_ns" --image="$image" --restart=Never --overrides='{"spec":{"hostNetwork":true}}' \
  -- --help 2>/tmp/kind-host.err; then
  echo "kind.sh: a hostNetwork pod was admitted" >&2
  exit 1
fi
grep -q hostNetwork /tmp/kind-host.err
echo "kind.sh: injection and refusal work on kind"
