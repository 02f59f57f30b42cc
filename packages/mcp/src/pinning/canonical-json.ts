// The one canonical JSON (RFC 8785) lives in @berth/protocol: schema pins hash what it writes.
export { canonicalJson } from "@berth/protocol";
