import { ReceiptKeySchema, ReceiptKeysSchema, ReceiptPublicKeySchema } from "@berth/protocol";
import type { ReceiptKey } from "@berth/protocol";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { keyIdOf } from "./receipt-signer";
import { verifyChain } from "./verify-chain";
import { verifyReceipt } from "./verify-receipt";
import { verifyReceiptWithKeys } from "./verify-receipt-with-keys";

export const USAGE = `Usage: berth-verify <receipt.json | url> [--key <public-key.pem> | --keys <keys.json>] [--previous <receipt.json>]

Verifies a Berth receipt offline: its fields, digest, Ed25519 signature and chain link.
  <receipt.json>  a bare receipt, the JSON of GET /api/shared/:token ({receipt, run, logs}),
                  or an array of receipts (verified as one chain, in order)
  <url>           a share link (http://host/share/<token>) or http://host/api/shared/<token>;
                  the keys come from /api/receipts/keys on the same origin
  --key <file>    one runner's public key (PEM, or the JSON of /api/receipts/public-key)
  --keys <file>   the deployment's key set (the JSON of /api/receipts/keys): each receipt is
                  checked with the key it names, unless that key was retired before it was issued
                  without --key or --keys a file needs BERTH_URL (the runner or web origin) to fetch the keys
  --previous <f>  the receipt before this one: also check the chain link

Prints "valid" (exit 0) or "invalid: <reason>" (exit 1). Usage errors and unreadable inputs exit 2.`;

export interface CliContext {
  /** BERTH_URL: where to fetch the public key when a file is given without --key. */
  berthUrl?: string | undefined;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  fetch?: typeof fetch;
}

/** Exit codes: 0 valid, 1 invalid, 2 usage error or input that could not be loaded. */
export const EXIT = { valid: 0, invalid: 1, usage: 2 } as const;

class CliError extends Error {}

/** The berth-verify command; returns the exit code instead of exiting, so it can run in-process. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        key: { type: "string" },
        keys: { type: "string" },
        previous: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    context.stderr(`error: ${(error as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  if (parsed.values.help) {
    context.stdout(USAGE);
    return EXIT.valid;
  }
  const [target, ...extra] = parsed.positionals;
  if (target === undefined || extra.length > 0) {
    context.stderr(`error: expected exactly one receipt file or URL, got ${parsed.positionals.length}\n${USAGE}`);
    return EXIT.usage;
  }
  if (parsed.values.key && parsed.values.keys) {
    context.stderr(`error: pass --key or --keys, not both\n${USAGE}`);
    return EXIT.usage;
  }

  const fetchFn = context.fetch ?? fetch;
  try {
    const isUrl = /^https?:\/\//i.test(target);
    const document = isUrl ? await fetchJson(fetchFn, sharedApiUrl(target)) : await readJsonFile(target, "receipt");
    const previous = parsed.values.previous
      ? unwrapReceipt(await readJsonFile(parsed.values.previous, "--previous"))
      : undefined;

    let publicKey: Keys;
    if (parsed.values.key) publicKey = await readPublicKeyFile(parsed.values.key);
    else if (parsed.values.keys) publicKey = await readKeysFile(parsed.values.keys);
    else if (context.berthUrl) publicKey = await fetchKeys(fetchFn, context.berthUrl);
    else if (isUrl) {
      // The server that sent the receipt also vouches for the keys: say so, so the reader can compare.
      const origin = new URL(target).origin;
      publicKey = await fetchKeys(fetchFn, origin);
      context.stderr(
        typeof publicKey === "string"
          ? `note: key ${keyIdOf(publicKey)} came from ${origin}; pass --key to pin the key`
          : `note: keys ${publicKey.map((k) => k.keyId).join(", ")} came from ${origin}; pass --keys to pin the keys`,
      );
    } else
      throw new CliError(
        "no public key: pass --key <public-key.pem> or --keys <keys.json>, or set BERTH_URL to the Berth origin",
      );

    const reason = verifyDocument(document, publicKey, previous);
    if (reason === undefined) {
      context.stdout("valid");
      return EXIT.valid;
    }
    context.stdout(`invalid: ${reason}`);
    return EXIT.invalid;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    context.stderr(`error: ${error.message}`);
    return EXIT.usage;
  }
}

/** One runner's key (PEM), or a deployment's key set. */
type Keys = string | readonly ReceiptKey[];

/** undefined when valid, else the reason. */
function verifyDocument(document: unknown, publicKey: Keys, previous: unknown): string | undefined {
  const receipts = Array.isArray(document)
    ? document
    : isObject(document) && Array.isArray(document["receipts"])
      ? document["receipts"]
      : undefined;
  if (receipts) {
    const result = verifyChain(receipts, publicKey, previous === undefined ? {} : { previous });
    return result.valid ? undefined : result.reason;
  }
  const receipt = unwrapReceipt(document);
  const options = previous === undefined ? {} : { previous };
  const result =
    typeof publicKey === "string"
      ? verifyReceipt(receipt, publicKey, options)
      : verifyReceiptWithKeys(receipt, publicKey, options);
  if (!result.valid) return result.reason;
  // A shared document also names its run: it must be the run the signed receipt is about.
  if (isObject(document) && isObject(document["run"]) && typeof document["run"]["id"] === "string") {
    const runId = (receipt as { body: { run: { id: string } } }).body.run.id;
    if (document["run"]["id"] !== runId)
      return `run mismatch: shared run ${document["run"]["id"]}, receipt is for ${runId}`;
  }
  return undefined;
}

/** A bare receipt, or the `receipt` of a shared document. */
function unwrapReceipt(document: unknown): unknown {
  return isObject(document) && "receipt" in document && !("body" in document) ? document["receipt"] : document;
}

/** Share page links map to the JSON endpoint on the same origin; anything else is fetched as given. */
export function sharedApiUrl(target: string): string {
  const url = new URL(target);
  const match = /\/share\/([^/?#]+)\/?$/.exec(url.pathname);
  if (match && !url.pathname.includes("/api/shared/")) return `${url.origin}/api/shared/${match[1]}`;
  return url.toString();
}

/** The origin's key set (/api/receipts/keys); an instance from before key sets serves only its one public key. */
async function fetchKeys(fetchFn: typeof fetch, origin: string): Promise<Keys> {
  let base: URL;
  try {
    base = new URL(origin);
  } catch {
    throw new CliError(`BERTH_URL is not a URL: ${origin}`);
  }
  const url = new URL("/api/receipts/keys", base).toString();
  const body = await fetchJson(fetchFn, url, { notFound: null });
  if (body === null) return fetchPublicKey(fetchFn, base);
  return checkKeys(body, `the key set of ${base.origin}`);
}

async function fetchPublicKey(fetchFn: typeof fetch, base: URL): Promise<string> {
  const body = await fetchJson(fetchFn, new URL("/api/receipts/public-key", base).toString());
  const parsed = ReceiptPublicKeySchema.safeParse(body);
  if (!parsed.success) throw new CliError(`public key endpoint of ${base.origin} did not return {keyId, publicKey}`);
  return checkPublicKey(parsed.data.publicKey, `the public key of ${base.origin}`);
}

async function fetchJson(fetchFn: typeof fetch, url: string, options: { notFound?: null } = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new CliError(`could not fetch ${url}: ${(error as Error).message}`);
  }
  if (response.status === 404 && "notFound" in options) return options.notFound;
  if (!response.ok) throw new CliError(`could not fetch ${url}: HTTP ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new CliError(`${url} did not return JSON`);
  }
}

async function readJsonFile(path: string, what: string): Promise<unknown> {
  const text = await readText(path, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${what} file ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** A PEM file, or the saved JSON of /api/receipts/public-key. */
async function readPublicKeyFile(path: string): Promise<string> {
  const text = await readText(path, "--key");
  let pem = text;
  if (text.trimStart().startsWith("{")) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = ReceiptPublicKeySchema.safeParse(json);
    if (!parsed.success) throw new CliError(`--key file ${path} is JSON but not {keyId, publicKey}`);
    pem = parsed.data.publicKey;
  }
  return checkPublicKey(pem, `--key file ${path}`);
}

/** The saved JSON of /api/receipts/keys, or a bare array of its keys. */
async function readKeysFile(path: string): Promise<readonly ReceiptKey[]> {
  return checkKeys(await readJsonFile(path, "--keys"), `--keys file ${path}`);
}

/** A key set that cannot be used is an input problem (exit 2); each key must be the Ed25519 key its id names. */
function checkKeys(json: unknown, source: string): readonly ReceiptKey[] {
  const parsed = Array.isArray(json) ? ReceiptKeySchema.array().safeParse(json) : ReceiptKeysSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
    throw new CliError(`${source} is not {keys: [{keyId, runnerId, publicKey, createdAt, retiredAt?}]}: ${where}`);
  }
  const keys = Array.isArray(parsed.data) ? parsed.data : (parsed.data as { keys: ReceiptKey[] }).keys;
  for (const key of keys) {
    const pem = checkPublicKey(key.publicKey, `key ${key.keyId} of ${source}`);
    if (keyIdOf(pem) !== key.keyId) throw new CliError(`key ${key.keyId} of ${source} is the key ${keyIdOf(pem)}`);
  }
  return keys;
}

/** A key that cannot be used is an input problem (exit 2), not an invalid receipt. */
function checkPublicKey(pem: string, source: string): string {
  try {
    keyIdOf(pem);
  } catch (error) {
    throw new CliError(`${source} is not an Ed25519 public key: ${(error as Error).message}`);
  }
  return pem;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    throw new CliError(
      `cannot read ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
