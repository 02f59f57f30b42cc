import type { CommandFamily, CommandHandler } from "../command-family";
import { hasFlag, optionValues } from "../command-args";

// prettier-ignore
const NETWORK_TOOLS = [
  "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "ping", "dig", "nslookup",
  "host", "traceroute", "aria2c", "http", "https", "gh", "kubectl", "helm", "aws", "gcloud", "az", "ssh-keyscan",
  "ssh-copy-id", "git-remote-http", "lftp", "mosh", "bunx", "pnpx",
] as const;

const network: CommandHandler = (c) => c.add("network", `${c.name} talks to the network`);

const curl: CommandHandler = (c) => {
  c.add("network", `${c.name} talks to the network`);
  for (const file of optionValues(c.args, [
    "-o",
    "--output",
    "--output-dir",
    "-c",
    "--cookie-jar",
    "-D",
    "--dump-header",
    "--trace",
    "--trace-ascii",
    "--stderr",
  ])) {
    if (file !== "-") c.writes(file, "curl");
  }
  if (hasFlag(c.args, ["--remote-name", "--remote-name-all"], "OJ")) c.writes(".", "curl -O");
};

const wget: CommandHandler = (c) => {
  c.add("network", `${c.name} talks to the network`);
  for (const file of optionValues(c.args, [
    "-O",
    "--output-document",
    "-P",
    "--directory-prefix",
    "-o",
    "--output-file",
    "-a",
    "--append-output",
  ])) {
    if (file !== "-") c.writes(file, "wget");
  }
  c.writes(".", "wget");
};

/** Programs that talk to the network (and the files curl and wget write). */
export const NETWORK_COMMANDS: CommandFamily = {
  family: "network",
  rules: [
    { names: NETWORK_TOOLS, handler: network },
    { names: ["curl"], handler: curl },
    { names: ["wget"], handler: wget },
  ],
};
