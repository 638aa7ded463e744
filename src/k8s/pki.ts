/**
 * Small X.509 toolkit for the control plane: a self-signed CA and the leaf certificates it signs
 * (webhook serving certificates, and in the tests the API server's and the admin's). ECDSA P-256,
 * PEM in and out.
 */
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect polyfill.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

const algorithm = { name: "ECDSA", namedCurve: "P-256" } as const;
const signingAlgorithm = { name: "ECDSA", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

/** The webhook's and controller's serving CA as keys and PEM (the sidecar's per-pod CA is tls/ca.ts). */
export interface CaKeyPair extends KeyPairPem {
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
}

export interface LeafOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: "server" | "client" | "both";
  validDays: number;
  /** Backdating absorbs clock skew between the issuer and the peers that verify. */
  now?: Date;
}

function pemBlock(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der).toString("base64");
  return `-----BEGIN ${label}-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
}

export async function privateKeyPem(key: CryptoKey): Promise<string> {
  return pemBlock("PRIVATE KEY", await webcrypto.subtle.exportKey("pkcs8", key));
}

export async function publicKeyPem(key: CryptoKey): Promise<string> {
  return pemBlock("PUBLIC KEY", await webcrypto.subtle.exportKey("spki", key));
}

function escapeName(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

function distinguishedName(commonName: string, organizations: string[] = []): string {
  return [`CN=${escapeName(commonName)}`, ...organizations.map((o) => `O=${escapeName(o)}`)].join(", ");
}

export async function createCertificateAuthority(
  commonName: string,
  validDays: number,
  now = new Date(),
): Promise<CaKeyPair> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: distinguishedName(commonName),
    keys,
    signingAlgorithm,
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + validDays * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { keys, cert, certPem: cert.toString("pem"), keyPem: await privateKeyPem(keys.privateKey!) };
}

export async function loadCertificateAuthority(pair: KeyPairPem): Promise<CaKeyPair> {
  const cert = new x509.X509Certificate(pair.certPem);
  const der = Buffer.from(pair.keyPem.replace(/-----[^-]+-----|\s/g, ""), "base64");
  const privateKey = await webcrypto.subtle.importKey("pkcs8", der, algorithm, true, ["sign"]);
  const publicKey = await cert.publicKey.export(algorithm, ["verify"]);
  return { cert, keys: { privateKey, publicKey }, certPem: pair.certPem, keyPem: pair.keyPem };
}

export async function issueCertificate(ca: CaKeyPair, options: LeafOptions): Promise<KeyPairPem> {
  const keys = await generateKeys();
  const now = options.now ?? new Date();
  const usages = {
    server: [x509.ExtendedKeyUsage.serverAuth],
    client: [x509.ExtendedKeyUsage.clientAuth],
    both: [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth],
  }[options.usage];
  const names = [
    ...(options.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    subject: distinguishedName(options.commonName, options.organizations),
    issuer: ca.cert.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey!,
    signingAlgorithm,
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + options.validDays * DAY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension(usages),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey!),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await privateKeyPem(keys.privateKey!) };
}

/** The validity window of a PEM certificate. */
export function certificateValidity(certPem: string): { notBefore: Date; notAfter: Date } {
  const cert = new x509.X509Certificate(certPem);
  return { notBefore: cert.notBefore, notAfter: cert.notAfter };
}

/** Whether `certPem` was signed by `caPem`'s key. */
export async function isSignedBy(certPem: string, caPem: string): Promise<boolean> {
  const cert = new x509.X509Certificate(certPem);
  const ca = new x509.X509Certificate(caPem);
  return cert.verify({ publicKey: ca.publicKey, signatureOnly: true });
}

/** The SAN DNS names of a PEM certificate. */
export function certificateDnsNames(certPem: string): string[] {
  const cert = new x509.X509Certificate(certPem);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return san ? san.names.items.filter((n) => n.type === "dns").map((n) => n.value) : [];
}
