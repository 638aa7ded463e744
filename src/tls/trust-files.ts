/**
 * The files app containers trust: `ca.crt` (the pod CA alone, for NODE_EXTRA_CA_CERTS, which adds to
 * Node's roots) and `ca-bundle.pem` (public roots + the pod CA, for SSL_CERT_FILE, REQUESTS_CA_BUNDLE,
 * CURL_CA_BUNDLE…, which replace the roots and so must not point at the CA alone).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rootCertificates } from "node:tls";

const SYSTEM_BUNDLES = [
  "/etc/ssl/certs/ca-certificates.crt",
  "/etc/pki/tls/certs/ca-bundle.crt",
  "/etc/ssl/cert.pem",
];

/** The image's system bundle (it may carry organisation roots), else Node's built-in Mozilla roots. */
export function systemRootsPem(): string {
  for (const path of SYSTEM_BUNDLES) {
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  return `${rootCertificates.join("\n")}\n`;
}

export function mergedBundle(rootsPem: string, caPem: string): string {
  const roots = rootsPem.endsWith("\n") ? rootsPem : `${rootsPem}\n`;
  return `${roots}# Toolwall pod CA\n${caPem.trim()}\n`;
}

export interface TrustFiles {
  caFile: string;
  bundleFile: string;
}

function writeAtomically(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode: 0o644 });
  renameSync(temporary, path);
}

/** Writes both files (world-readable: they hold only public certificates, never a key). */
export function writeTrustFiles(directory: string, caPem: string, rootsPem = systemRootsPem()): TrustFiles {
  mkdirSync(directory, { recursive: true });
  const caFile = join(directory, "ca.crt");
  const bundleFile = join(directory, "ca-bundle.pem");
  writeAtomically(caFile, `${caPem.trim()}\n`);
  writeAtomically(bundleFile, mergedBundle(rootsPem, caPem));
  return { caFile, bundleFile };
}
