// Helpers that need Node (node:crypto), kept out of the main entry so the browser bundle never sees them.
export * from "./sha256-hex";
