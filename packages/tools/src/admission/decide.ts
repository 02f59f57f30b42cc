import type { ActionClass, Autonomy, Decision } from "@berth/protocol";
import { severityLevel } from "./severity";
import type { SeverityLevel } from "./severity";

type Row = Record<Autonomy, Decision>;

/** The autonomy table of docs/tools.md, row by row. */
export const AUTONOMY_TABLE: Record<SeverityLevel, Row> = {
  read: { "read-only": "allow", default: "allow", trusted: "allow", yolo: "allow" },
  write: { "read-only": "deny", default: "allow", trusted: "allow", yolo: "allow" },
  "execute-recognised": { "read-only": "deny", default: "allow", trusted: "allow", yolo: "allow" },
  "execute-other": { "read-only": "deny", default: "ask", trusted: "allow", yolo: "allow" },
  unknown: { "read-only": "deny", default: "ask", trusted: "allow", yolo: "allow" },
  network: { "read-only": "deny", default: "ask", trusted: "allow", yolo: "allow" },
  dispatch: { "read-only": "deny", default: "ask", trusted: "ask", yolo: "allow" },
  system_modify: { "read-only": "deny", default: "ask", trusted: "ask", yolo: "allow" },
  git_destructive: { "read-only": "deny", default: "deny", trusted: "deny", yolo: "deny" },
};

export interface DecideOptions {
  /** Unseen code (a command name from an expansion, `eval "$X"`, `curl … | sh`): an allow becomes ask, even in yolo; deny stays deny. */
  alwaysAsk?: boolean;
  /**
   * The session's owner at the keyboard (caller `browser`, own session): autonomy governs agents and
   * scripts, not the person, so every class is allowed at every level but `read-only`, which still
   * denies what it denies. Policy rules are applied apart from this (admit's settle).
   */
  person?: boolean;
}

/** What autonomy alone says about a class. `recognised` only matters for execute. */
export function decide(
  actionClass: ActionClass,
  recognised: boolean,
  autonomy: Autonomy,
  options: DecideOptions = {},
): Decision {
  const decision = AUTONOMY_TABLE[severityLevel(actionClass, recognised)][autonomy];
  if (options.person) return autonomy === "read-only" ? decision : "allow";
  return options.alwaysAsk && decision === "allow" ? "ask" : decision;
}
