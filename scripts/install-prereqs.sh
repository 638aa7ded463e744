#!/usr/bin/env bash
# Installs the system packages the test suite runs for real. Idempotent and quiet when all are present.
# With CI=true a package that cannot be installed fails the run; elsewhere the tests that need it fail
# with a message naming it.
set -euo pipefail

declare -A wanted=(
  [redis-server]=redis-server
  [iptables]=iptables
  [ip]=iproute2
  [unshare]=util-linux
  [setpriv]=util-linux
  [curl]=curl
  [openssl]=openssl
  # The one-node Kubernetes cluster (test/cluster/): container runtime, CNI plugins, image builds.
  [containerd]=containerd
  [runc]=runc
  [buildah]=buildah
  [mmdebstrap]=mmdebstrap
  [nsenter]=util-linux
)
# `install-prereqs.sh --bench`: the side-by-side benchmark's load generator, upstream and reverse-proxy peer.
if [ "${1:-}" = "--bench" ]; then
  wanted[wrk]=wrk
  wanted[nginx]=nginx
fi
missing=()
for cmd in "${!wanted[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || missing+=("${wanted[$cmd]}")
done
# The namespace tests run python3 as an unprivileged uid: a user-local interpreter (pyenv under /root) will not do.
[ -x /usr/bin/python3 ] || missing+=(python3)
[ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-prereqs: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v sudo >/dev/null 2>&1; then
  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-prereqs: cannot install ${missing[*]} (not root, no sudo)" >&2
  [ "${CI:-}" = "true" ] && exit 1
fi
