/**
 * The per-pod certificate authority: an ECDSA P-256 self-signed root generated at sidecar start,
 * its private key a non-extractable WebCrypto key that exists only in this process's memory, and
 * leaf certificates per TLS server name signed on demand and kept in an LRU cache.
 * `toolwall proxy --ca-dir` (explicit mode on a laptop) keeps its CA on disk instead: see `persistent`.
 */

import { createPrivateKey, KeyObject, randomBytes, webcrypto } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { CappedMap } from "../kernel/bounded-map.ts";
import { x509 } from "./x509.ts";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** Clients whose clock runs a little behind still accept a certificate issued just now. */
const BACKDATE = HOUR;

export interface CertificateAuthorityOptions {
  /** Common name of the root; the pod name makes it recognisable in a client's error message. */
  commonName?: string;
  validityDays?: number;
  leafValidityHours?: number;
  leafCacheSize?: number;
  now?: () => Date;
}

export interface Leaf {
  name: string;
  certificatePem: string;
  keyPem: string;
  notAfter: Date;
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive INTEGER
  return bytes.toString("hex");
}

/** A valid leaf name: a DNS name (wildcards not issued) or an IP address. */
export function validateServerName(name: string): string {
  const lower = name.toLowerCase().replace(/\.$/, "");
  if (isIP(lower) !== 0) return lower;
  if (
    lower.length === 0 ||
    lower.length > 253 ||
    !lower.split(".").every((label) => /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/.test(label))
  ) {
    throw new Error(`not a valid server name: '${name}'`);
  }
  return lower;
}

function resolveOptions(
  options: CertificateAuthorityOptions,
  validityDays: number,
): Required<CertificateAuthorityOptions> {
  return {
    commonName: options.commonName ?? "Toolwall pod CA",
    validityDays: options.validityDays ?? validityDays,
    leafValidityHours: options.leafValidityHours ?? 48,
    leafCacheSize: options.leafCacheSize ?? 1000,
    now: options.now ?? (() => new Date()),
  };
}

async function selfSigned(
  keys: webcrypto.CryptoKeyPair,
  resolved: Required<CertificateAuthorityOptions>,
): Promise<x509.X509Certificate> {
  const now = resolved.now().getTime();
  return x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: [{ CN: [resolved.commonName] }, { O: ["Toolwall"] }],
    notBefore: new Date(now - BACKDATE),
    notAfter: new Date(now + resolved.validityDays * DAY),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
}

/** Loaded non-extractable: once in memory the key is used for signing only, as the pod CA's is. */
function importSigningKey(pem: string): Promise<webcrypto.CryptoKey> {
  const der = createPrivateKey(pem).export({ type: "pkcs8", format: "der" });
  return webcrypto.subtle.importKey("pkcs8", der, ALGORITHM, false, ["sign"]);
}

/** Written to a temporary file created with `mode`, then renamed: never briefly world-readable. */
function writePrivately(path: string, content: string, mode = 0o600): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode, flag: "wx" });
  renameSync(temporary, path);
}

export class CertificateAuthority {
  readonly certificatePem: string;
  readonly certificate: x509.X509Certificate;
  private readonly signingKey: webcrypto.CryptoKey;
  private readonly options: Required<CertificateAuthorityOptions>;
  private readonly leaves: CappedMap<string, Promise<Leaf>>;

  private constructor(
    certificate: x509.X509Certificate,
    signingKey: webcrypto.CryptoKey,
    options: Required<CertificateAuthorityOptions>,
  ) {
    this.certificate = certificate;
    this.certificatePem = certificate.toString("pem");
    this.signingKey = signingKey;
    this.options = options;
    this.leaves = new CappedMap(options.leafCacheSize);
  }

  static async create(options: CertificateAuthorityOptions = {}): Promise<CertificateAuthority> {
    const resolved = resolveOptions(options, 90);
    // extractable: false — not even this process can serialise the key; it dies with the process.
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, false, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const certificate = await selfSigned(keys, resolved);
    return new CertificateAuthority(certificate, keys.privateKey, resolved);
  }

  /**
   * The CA kept in `directory` (`ca.key`, mode 0600, and `ca.crt`): loaded when present and valid,
   * generated and stored otherwise. For a laptop, where the user trusts the CA once.
   */
  static async persistent(
    directory: string,
    options: CertificateAuthorityOptions = {},
  ): Promise<{ ca: CertificateAuthority; created: boolean }> {
    const resolved = resolveOptions(options, 365);
    const keyFile = join(directory, "ca.key");
    const certificateFile = join(directory, "ca.crt");
    if (existsSync(keyFile) && existsSync(certificateFile)) {
      const loaded = await CertificateAuthority.load(keyFile, certificateFile, resolved);
      if (loaded) return { ca: loaded, created: false };
    }
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const certificate = await selfSigned(keys, resolved);
    const keyPem = KeyObject.from(keys.privateKey).export({ type: "pkcs8", format: "pem" }) as string;
    writePrivately(keyFile, keyPem);
    writePrivately(certificateFile, certificate.toString("pem"), 0o644);
    const signingKey = await importSigningKey(keyPem);
    return { ca: new CertificateAuthority(certificate, signingKey, resolved), created: true };
  }

  /** The stored CA, or undefined when it has expired (or is about to); a damaged store is an error. */
  private static async load(
    keyFile: string,
    certificateFile: string,
    resolved: Required<CertificateAuthorityOptions>,
  ): Promise<CertificateAuthority | undefined> {
    const mode = statSync(keyFile).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new Error(`${keyFile} is readable by others (mode ${mode.toString(8)}); chmod 600 it`);
    }
    let certificate: x509.X509Certificate;
    let signingKey: webcrypto.CryptoKey;
    try {
      certificate = new x509.X509Certificate(readFileSync(certificateFile, "utf8"));
      signingKey = await importSigningKey(readFileSync(keyFile, "utf8"));
    } catch (error) {
      throw new Error(`cannot load the CA in ${keyFile} / ${certificateFile}: ${(error as Error).message}`);
    }
    const challenge = randomBytes(32);
    const signature = await webcrypto.subtle.sign(ALGORITHM, signingKey, challenge);
    const publicKey = await certificate.publicKey.export(ALGORITHM, ["verify"]);
    if (!(await webcrypto.subtle.verify(ALGORITHM, publicKey, signature, challenge))) {
      throw new Error(`${keyFile} is not the key of ${certificateFile}`);
    }
    const remaining = certificate.notAfter.getTime() - resolved.now().getTime();
    return remaining > resolved.leafValidityHours * HOUR
      ? new CertificateAuthority(certificate, signingKey, resolved)
      : undefined;
  }

  /** The leaf for a server name: from the cache while it has more than half its life left. */
  leafFor(serverName: string): Promise<Leaf> {
    const name = validateServerName(serverName);
    const cached = this.leaves.get(name);
    if (cached) {
      this.leaves.delete(name);
      this.leaves.set(name, cached);
      return cached.then((leaf) => (this.isFresh(leaf) ? leaf : this.reissue(name)));
    }
    return this.reissue(name);
  }

  get cachedLeafCount(): number {
    return this.leaves.size;
  }

  private isFresh(leaf: Leaf): boolean {
    const remaining = leaf.notAfter.getTime() - this.options.now().getTime();
    return remaining > (this.options.leafValidityHours * HOUR) / 2;
  }

  private reissue(name: string): Promise<Leaf> {
    const pending = this.issue(name);
    this.leaves.set(name, pending);
    pending.catch(() => this.leaves.delete(name));
    return pending;
  }

  private async issue(name: string): Promise<Leaf> {
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const now = this.options.now().getTime();
    const notAfter = new Date(now + this.options.leafValidityHours * HOUR);
    const certificate = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(),
      subject: [{ CN: [name] }],
      issuer: this.certificate.subject,
      notBefore: new Date(now - BACKDATE),
      notAfter,
      publicKey: keys.publicKey,
      signingKey: this.signingKey,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        new x509.SubjectAlternativeNameExtension([{ type: isIP(name) ? "ip" : "dns", value: name }], false),
        await x509.AuthorityKeyIdentifierExtension.create(this.certificate.publicKey),
      ],
    });
    const keyPem = (KeyObject.from(keys.privateKey) as KeyObject).export({
      type: "pkcs8",
      format: "pem",
    }) as string;
    return { name, certificatePem: certificate.toString("pem"), keyPem, notAfter };
  }
}
