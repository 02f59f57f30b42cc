// The one canonical JSON (RFC 8785) lives in @berth/protocol; receipts seal and verify with it.
export { canonicalJson } from "@berth/protocol";
