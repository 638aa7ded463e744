/**
 * `make cluster`: the one-node cluster of node.ts, left running, with Toolwall installed by helm from
 * the image built here. Prints the kubeconfig and the first commands; `make cluster-down` removes it.
 */
import { images } from "./images.ts";
import { clusterState, installToolwall } from "./install.ts";
import { startNode } from "./node.ts";

const started = Date.now();
const node = await startNode({ detached: true });
const plane = {
  server: node.server,
  kubeconfigPath: node.kubeconfigPath,
  caPem: "",
  binaries: node.binaries,
  buildSeconds: 0,
  startSeconds: 0,
};
const install = await installToolwall(plane, images);
if (install.code !== 0) {
  process.stderr.write(
    `helm install failed:\n${install.stderr}\n${await clusterState(plane)}\nThe node is still up: make cluster-down removes it.\n`,
  );
  process.exit(1);
}
const bin = node.binaries.kubectl.replace(/\/kubectl$/, "");
process.stdout.write(`${install.stdout}
Toolwall is running on a one-node cluster (up in ${Math.round((Date.now() - started) / 1000)} s).

  export KUBECONFIG=${node.kubeconfigPath}
  export PATH=${bin}:$PATH      # kubectl and helm of the same version
  kubectl get pods -A

Images built here (pullPolicy Never): ${images.toolwall}, ${images.peers} (SDK agents and test peers).
Remove everything with: make cluster-down
`);
