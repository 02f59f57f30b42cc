// The one sha256 lives in @berth/protocol/node; receipts hash with it.
export { sha256Hex, sha256Json } from "@berth/protocol/node";
