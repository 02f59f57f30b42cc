import type { CommandFamily, CommandHandler } from "../command-family";
import { recognised } from "../command-family";
import { EMPTY, isOption, operandIndex, set } from "../command-args";

/** A system tool whose listed subcommands or flags only read; anything else changes the system. */
function systemTool(
  readSubcommands: readonly string[],
  why: string,
  withValue: ReadonlySet<string> = EMPTY,
): CommandHandler {
  const reads = new Set(readSubcommands);
  return (c) => {
    const sub = c.args[operandIndex(c.args, withValue)]?.value;
    const flags = c.args.filter(isOption).map((a) => a.value!);
    if (
      (sub !== undefined && reads.has(sub)) ||
      flags.some((f) => reads.has(f)) ||
      (c.args.length === 0 && reads.has(""))
    ) {
      return c.add("execute-recognised");
    }
    c.add("system_modify", `${c.name} ${why}`);
  };
}

const systemModify =
  (why: string): CommandHandler =>
  (c) =>
    c.add("system_modify", `${c.name} ${why}`);

const APT_READ = [
  "list",
  "search",
  "show",
  "showsrc",
  "policy",
  "depends",
  "rdepends",
  "changelog",
  "madison",
  "help",
  "",
  "--version",
  "-s",
  "--simulate",
  "--dry-run",
];
const RPM_READ = ["list", "info", "search", "repolist", "provides", "check-update", "help", "", "--version"];

// prettier-ignore
const SYSTEM_ALWAYS = [
  "mount", "umount", "useradd", "userdel", "usermod", "groupadd", "groupdel", "groupmod", "adduser", "deluser",
  "passwd", "chpasswd", "chage", "visudo", "iptables", "ip6tables", "nft", "ufw", "modprobe", "insmod", "rmmod",
  "shutdown", "reboot", "halt", "poweroff", "init", "telinit", "fdisk", "sfdisk", "parted", "mkswap", "swapon",
  "swapoff", "ldconfig", "update-alternatives", "chsh", "setcap", "update-rc.d", "update-ca-certificates",
  "locale-gen", "timedatectl", "hostnamectl", "losetup", "sudoedit", "mkfs", "mke2fs", "snap", "zypper", "port",
  "flatpak", "emerge", "nix-env",
] as const;

/** The host system: packages, services, users, mounts and containers outside the sandbox. */
export const SYSTEM_COMMANDS: CommandFamily = {
  family: "the host system",
  rules: [
    {
      names: ["apt", "apt-get", "aptitude"],
      handler: systemTool(APT_READ, "changes system packages", set("-o", "-t", "-c")),
    },
    { names: ["apt-cache", "dpkg-query"], handler: recognised },
    {
      names: ["dpkg"],
      handler: systemTool(
        [
          "-l",
          "-L",
          "-s",
          "-S",
          "-p",
          "--list",
          "--listfiles",
          "--status",
          "--search",
          "--print-architecture",
          "--get-selections",
          "--version",
          "--help",
        ],
        "changes system packages",
      ),
    },
    { names: ["yum", "dnf", "microdnf"], handler: systemTool(RPM_READ, "changes system packages") },
    {
      names: ["apk"],
      handler: systemTool(["info", "search", "list", "policy", "stats", "--version", "-V"], "changes system packages"),
    },
    {
      names: ["brew"],
      handler: systemTool(
        ["list", "ls", "info", "search", "--version", "config", "doctor", "leaves", "deps", "outdated"],
        "changes system packages",
      ),
    },
    {
      names: ["gem"],
      handler: systemTool(
        ["list", "info", "env", "--version", "contents", "which", "help", "search", "query"],
        "changes system gems",
      ),
    },
    {
      names: ["pacman"],
      handler: systemTool(["-Q", "-Qi", "-Ql", "-Ss", "-Si", "--query", "--version"], "changes system packages"),
    },
    {
      names: ["rpm"],
      handler: systemTool(["-q", "-qa", "-qi", "-ql", "--query", "--version"], "changes system packages"),
    },
    {
      names: ["pipx"],
      handler: systemTool(["list", "--version", "environment"], "changes tools outside the workspace"),
    },
    {
      names: ["conda", "mamba", "micromamba"],
      handler: systemTool(["list", "info", "search", "--version"], "changes environments outside the workspace"),
    },
    {
      names: ["systemctl"],
      handler: systemTool(
        ["status", "is-active", "is-enabled", "is-failed", "list-units", "list-unit-files", "show", "cat", "--version"],
        "changes system services",
      ),
    },
    {
      names: ["service"],
      handler: (c) =>
        c.args[1]?.value === "status"
          ? c.add("execute-recognised")
          : c.add("system_modify", "service changes system services"),
    },
    {
      names: ["sysctl"],
      handler: (c) =>
        c.args.some((a) => a.value === "-w" || a.value === undefined || a.value.includes("="))
          ? c.add("system_modify", "sysctl -w changes kernel settings")
          : c.add("execute-recognised"),
    },
    { names: ["crontab"], handler: systemTool(["-l"], "changes scheduled jobs") },
    {
      names: ["docker", "podman", "nerdctl"],
      handler: systemTool(
        ["ps", "images", "version", "info", "inspect", "logs", "--version", "stats", "top"],
        "controls containers outside the sandbox",
      ),
    },
    { names: SYSTEM_ALWAYS, handler: systemModify("changes the system") },
  ],
  prefixes: [{ prefix: "mkfs.", handler: systemModify("formats a filesystem") }],
};
