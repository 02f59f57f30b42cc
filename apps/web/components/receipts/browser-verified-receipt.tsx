"use client";
import { useEffect, useState } from "react";
import type { Receipt, Verification } from "@/lib/api";
import { verifyReceiptWithKeyInBrowser, type PublishedKey } from "@/lib/verify-in-browser";
import { ReceiptView, downloadText } from "./receipt-view";

/**
 * The share page's receipt, verified in this browser (WebCrypto Ed25519 over the canonical JSON, as
 * packages/receipts does) with the published key it names — whichever runner signed it, retired or not — with
 * the one-file verifier and the key to check it again offline.
 */
export function BrowserVerifiedReceipt({
  receipt,
  publicKey,
  serverVerification,
}: {
  receipt: Receipt;
  /** The deployment's published key the receipt names; null when none has its keyId. */
  publicKey: PublishedKey | null | undefined;
  /** The runner's own check, shown only where this browser cannot check (no WebCrypto on a plain-http origin). */
  serverVerification?: Verification | undefined;
}) {
  const [where, setWhere] = useState<"browser" | "server">("browser");
  const [verification, setVerification] = useState<Verification | null>(null);
  useEffect(() => {
    if (!publicKey) {
      setVerification({
        valid: false,
        reason: `unknown key: receipt names key ${receipt.signature.keyId}, which this deployment does not publish`,
      });
      return;
    }
    if (!globalThis.crypto?.subtle) {
      setWhere("server");
      setVerification(
        serverVerification ?? {
          valid: false,
          reason: "this browser has no WebCrypto here (it needs a secure origin): verify offline below",
        },
      );
      return;
    }
    verifyReceiptWithKeyInBrowser(receipt, publicKey)
      .then((result) => setVerification(result.valid ? { valid: true } : result))
      .catch((error: unknown) =>
        setVerification({ valid: false, reason: `could not verify in this browser: ${(error as Error).message}` }),
      );
  }, [receipt, publicKey, serverVerification]);

  return (
    <div className="stack">
      <ReceiptView receipt={receipt} verification={verification} />
      <p className="muted tiny" data-testid="receipt-checked-where" data-where={where}>
        {where === "server"
          ? "This browser cannot check signatures on this origin (no WebCrypto over plain http): the result above is the server's own check. "
          : null}
        Checked {where === "browser" ? "in this browser" : "by the server"} with WebCrypto against the runner key{" "}
        <code>{publicKey?.keyId ?? "—"}</code>
        {publicKey?.runnerId ? ` of runner ${publicKey.runnerId}` : ""}
        {publicKey?.retiredAt ? ` (retired at ${publicKey.retiredAt})` : ""}. Compare that key id with the ones your team
        trusts (<code>/api/receipts/keys</code>): the page and the key come from the same server.
      </p>
      <div className="stack tiny">
        <strong>Check it yourself, offline</strong>
        <div className="row wrap">
          <a
            className="btn small"
            href="/verify/berth-verify.mjs"
            download="berth-verify.mjs"
            data-testid="download-verifier"
          >
            Download berth-verify.mjs
          </a>
          <button
            className="btn small"
            onClick={() => downloadText("receipt.json", JSON.stringify(receipt, null, 2), "application/json")}
            data-testid="download-receipt-json"
          >
            Download receipt.json
          </button>
          {publicKey ? (
            <button
              className="btn small"
              onClick={() => downloadText("key.pem", publicKey.publicKey, "application/x-pem-file")}
              data-testid="download-key"
            >
              Download key.pem
            </button>
          ) : null}
        </div>
        <span className="muted">
          Then run <code>node berth-verify.mjs receipt.json --key key.pem</code> (Node 20 or later, nothing to install):
          it prints <code>valid</code> or why not.
        </span>
      </div>
    </div>
  );
}
