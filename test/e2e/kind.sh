#!/usr/bin/env bash
# End to end on kind (`make e2e`): builds the Toolwall and peers images with docker, loads them into
# the kind cluster and runs the same scenario file as `make test` (test/e2e/scenarios.test.ts) against
# it through TOOLWALL_E2E_KUBECONFIG. Needs docker and kind on PATH; kubectl and helm come from the
# binaries cache (test/k8s/binaries.ts).
set -euo pipefail
cluster=${KIND_CLUSTER:-toolwall}
image=${1:-localhost/toolwall:dev}
peers=localhost/toolwall-test/peers:1
cd "$(dirname "$0")/../.."
export PATH=$PWD/node_modules/.bin:$PATH

docker build -t "$image" .
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
node --input-type=module -e "import { peersContext } from './test/cluster/images.ts'; await peersContext(process.argv[1]);" "$context/ctx"
docker build -t "$peers" -f test/cluster/peers.Dockerfile "$context/ctx"
kind load docker-image "$image" "$peers" --name "$cluster"

kubeconfig="$context/kubeconfig"
kind get kubeconfig --name "$cluster" >"$kubeconfig"
TOOLWALL_E2E_KUBECONFIG="$kubeconfig" TOOLWALL_E2E_IMAGE="$image" TOOLWALL_E2E_PEERS_IMAGE="$peers" \
  vitest run --maxWorkers=1 test/e2e/scenarios.test.ts
