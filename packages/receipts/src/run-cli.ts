import { ReceiptPublicKeySchema } from "@berth/protocol";
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { keyIdOf } from "./receipt-signer";
import { verifyChain } from "./verify-chain";
import { verifyReceipt } from "./verify-receipt";

export const USAGE = `Usage: berth-verify <receipt.json | url> [--key <public-key.pem>] [--previous <receipt.json>]

Verifies a Berth receipt offline: its fields, digest, Ed25519 signature and chain link.
  <receipt.json>  a bare receipt, the JSON of GET /api/shared/:token ({receipt, run, logs}),
                  or an array of receipts (verified as one chain, in order)
  <url>           a share link (http://host/share/<token>) or http://host/api/shared/<token>;
                  the public key comes from /api/receipts/public-key on the same origin
  --key <file>    the runner's public key (PEM, or the JSON of /api/receipts/public-key);
                  without it a file needs BERTH_URL (the runner or web origin) to fetch the key
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
      options: { key: { type: "string" }, previous: { type: "string" }, help: { type: "boolean", short: "h" } },
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

  const fetchFn = context.fetch ?? fetch;
  try {
    const isUrl = /^https?:\/\//i.test(target);
    const document = isUrl ? await fetchJson(fetchFn, sharedApiUrl(target)) : await readJsonFile(target, "receipt");
    const previous = parsed.values.previous
      ? unwrapReceipt(await readJsonFile(parsed.values.previous, "--previous"))
      : undefined;

    let publicKey: string;
    if (parsed.values.key) publicKey = await readPublicKeyFile(parsed.values.key);
    else if (context.berthUrl) publicKey = await fetchPublicKey(fetchFn, context.berthUrl);
    else if (isUrl) {
      // The server that sent the receipt also vouches for the key: say so, so the reader can compare.
      publicKey = await fetchPublicKey(fetchFn, new URL(target).origin);
      context.stderr(`note: key ${keyIdOf(publicKey)} came from ${new URL(target).origin}; pass --key to pin the key`);
    } else throw new CliError("no public key: pass --key <public-key.pem> or set BERTH_URL to the Berth origin");

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

/** undefined when valid, else the reason. */
function verifyDocument(document: unknown, publicKey: string, previous: unknown): string | undefined {
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
  const result = verifyReceipt(receipt, publicKey, previous === undefined ? {} : { previous });
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

async function fetchPublicKey(fetchFn: typeof fetch, origin: string): Promise<string> {
  let base: URL;
  try {
    base = new URL(origin);
  } catch {
    throw new CliError(`BERTH_URL is not a URL: ${origin}`);
  }
  const body = await fetchJson(fetchFn, new URL("/api/receipts/public-key", base).toString());
  const parsed = ReceiptPublicKeySchema.safeParse(body);
  if (!parsed.success) throw new CliError(`public key endpoint of ${base.origin} did not return {keyId, publicKey}`);
  return checkPublicKey(parsed.data.publicKey, `the public key of ${base.origin}`);
}

async function fetchJson(fetchFn: typeof fetch, url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchFn(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new CliError(`could not fetch ${url}: ${(error as Error).message}`);
  }
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
