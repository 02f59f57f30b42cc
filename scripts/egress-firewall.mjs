#!/usr/bin/env node
// `node scripts/egress-firewall.mjs install|remove|status`: the rules that keep egress sessions off the host
// (scripts/lib/egress-firewall.mjs says what they are). Setup installs them; needs root.
import { egressFirewallInstalled, installEgressFirewall, removeEgressFirewall } from "./lib/egress-firewall.mjs";

const action = process.argv[2] ?? "status";
try {
  if (action === "install") installEgressFirewall();
  else if (action === "remove") removeEgressFirewall();
  else if (action !== "status")
    throw new Error(`unknown action ${JSON.stringify(action)}: use install, remove or status`);
  process.stdout.write(`egress firewall: ${egressFirewallInstalled() ? "installed" : "not installed"}\n`);
} catch (error) {
  process.stderr.write(`egress-firewall: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
