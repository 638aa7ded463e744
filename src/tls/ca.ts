/**
 * The per-pod certificate authority: an ECDSA P-256 self-signed root generated at sidecar start,
 * its private key a non-extractable WebCrypto key that exists only in this process's memory, and
 * leaf certificates per TLS server name signed on demand and kept in an LRU cache.
 */
import { KeyObject, randomBytes, webcrypto } from "node:crypto";
import { isIP } from "node:net";
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

export class CertificateAuthority {
  readonly certificatePem: string;
  readonly certificate: x509.X509Certificate;
  private readonly signingKey: webcrypto.CryptoKey;
  private readonly options: Required<CertificateAuthorityOptions>;
  private readonly leaves = new Map<string, Promise<Leaf>>();

  private constructor(
    certificate: x509.X509Certificate,
    signingKey: webcrypto.CryptoKey,
    options: Required<CertificateAuthorityOptions>,
  ) {
    this.certificate = certificate;
    this.certificatePem = certificate.toString("pem");
    this.signingKey = signingKey;
    this.options = options;
  }

  static async create(options: CertificateAuthorityOptions = {}): Promise<CertificateAuthority> {
    const resolved: Required<CertificateAuthorityOptions> = {
      commonName: options.commonName ?? "Toolwall pod CA",
      validityDays: options.validityDays ?? 90,
      leafValidityHours: options.leafValidityHours ?? 48,
      leafCacheSize: options.leafCacheSize ?? 1000,
      now: options.now ?? (() => new Date()),
    };
    // extractable: false — not even this process can serialise the key; it dies with the process.
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, false, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const now = resolved.now().getTime();
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
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
    return new CertificateAuthority(certificate, keys.privateKey, resolved);
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
    while (this.leaves.size > this.options.leafCacheSize) {
      const oldest = this.leaves.keys().next().value as string;
      this.leaves.delete(oldest);
    }
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
