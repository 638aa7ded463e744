/**
 * Vitest global setup: ONE Kubernetes control plane for every test file, started lazily. The main
 * vitest process serves a tiny loopback endpoint; the first test file that asks for the control plane
 * makes it build the binaries (if the cache is cold) and start etcd + kube-apiserver; later files get
 * the same one. Runs that ask for nothing start nothing. Teardown stops it.
 */
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { ensureBinaries, type KubeBinaries } from "./binaries.ts";
import { type ControlPlane, startControlPlane } from "./control-plane.ts";

export interface ControlPlaneInfo {
  server: string;
  kubeconfigPath: string;
  caPem: string;
  binaries: KubeBinaries;
  buildSeconds: number;
  startSeconds: number;
}

type State =
  | { state: "starting" }
  | { state: "ready"; info: ControlPlaneInfo }
  | { state: "failed"; error: string };

declare module "vitest" {
  export interface ProvidedContext {
    controlPlaneEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  let started: Promise<{ plane: ControlPlane; info: ControlPlaneInfo }> | undefined;
  let state: State = { state: "starting" };
  const start = () => {
    started ??= (async () => {
      const buildStart = Date.now();
      const binaries = await ensureBinaries();
      const planeStart = Date.now();
      const plane = await startControlPlane(binaries);
      const info: ControlPlaneInfo = {
        server: plane.server,
        kubeconfigPath: plane.kubeconfigPath,
        caPem: plane.caPem,
        binaries,
        buildSeconds: (planeStart - buildStart) / 1000,
        startSeconds: (Date.now() - planeStart) / 1000,
      };
      process.stderr.write(
        `[k8s] control plane ready at ${plane.server} in ${info.startSeconds.toFixed(1)} s (binaries ${info.buildSeconds.toFixed(1)} s)\n`,
      );
      state = { state: "ready", info };
      return { plane, info };
    })();
    started.catch((error: Error) => {
      state = { state: "failed", error: error.message };
    });
  };

  const endpoint = createServer((req, res) => {
    if (req.url !== "/control-plane") {
      res.writeHead(404).end();
      return;
    }
    start();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(state));
  });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  const address = endpoint.address();
  project.provide(
    "controlPlaneEndpoint",
    `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
  );

  return async () => {
    endpoint.close();
    if (!started) return;
    const result = await started.catch(() => undefined);
    await result?.plane.stop();
  };
}
