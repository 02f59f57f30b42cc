import { spawn } from "node:child_process";
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import type { SkillsSyncParams, SkillsSyncResult } from "@berth/protocol";
import type { AgentConfig } from "../config";
import { NO_CAPS } from "../processes/launch";

type Skill = SkillsSyncParams["skills"][number];

/** The writer's whole run; a catalog of a few MiB takes well under a second. */
const WRITER_TIMEOUT_MS = 10_000;

/**
 * The writer, run as root with no capabilities: the skills root is root's and mode 0755 (a tmpfs the driver
 * mounts), so the workspace user, whose uid the agent's file access uses, can read it and never write it.
 * Plain CommonJS for `node -e`; the catalog comes on stdin. Each file is written to a temp name and renamed,
 * so a reader sees the old body or the new one, never half.
 */
const WRITER = `
const fs = require("node:fs");
const path = require("node:path");
const root = process.argv[1];
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const skills = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const names = new Set(skills.map((skill) => skill.name));
  for (const entry of fs.readdirSync(root)) {
    if (!names.has(entry)) fs.rmSync(path.join(root, entry), { recursive: true, force: true });
  }
  for (const { name, body } of skills) {
    const dir = path.join(root, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.chmodSync(dir, 0o755);
    const temp = path.join(dir, ".SKILL.md.tmp");
    fs.writeFileSync(temp, body);
    fs.chmodSync(temp, 0o644);
    fs.renameSync(temp, path.join(dir, "SKILL.md"));
  }
});
`;

/**
 * Makes the skills root hold exactly `skills`, each as `<root>/<name>/SKILL.md`. Nothing is written when it
 * already does (a session's first sync with no skills installed costs a readdir). Refuses a root the workspace
 * user could write to: skills there could be rewritten by the code the agent runs.
 */
export async function syncSkills(config: AgentConfig, skills: readonly Skill[]): Promise<SkillsSyncResult> {
  const root = config.skillsRoot;
  checkRoot(root, config);
  const result = { root, skills: skills.map((skill) => skill.name).sort() };
  if (holdsExactly(root, skills)) return { ...result, written: false };
  const args = ["-e", WRITER, root];
  const launch = config.workspaceUser
    ? {
        file: "setpriv",
        args: ["--reuid=0", "--regid=0", "--clear-groups", ...NO_CAPS, "--", process.execPath, ...args],
      }
    : { file: process.execPath, args };
  await new Promise<void>((resolve, reject) => {
    const child = spawn(launch.file, launch.args, { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < 8192) stderr += chunk;
    });
    // It holds the agent's write queue: a writer that hangs must not hold every later edit with it.
    const timer = setTimeout(() => child.kill("SIGKILL"), WRITER_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `skills.sync: writing ${root} failed (${signal === "SIGKILL" ? `killed after ${WRITER_TIMEOUT_MS} ms` : `exit ${code}`}): ${stderr.trim()}`,
          ),
        );
    });
    child.stdin.end(JSON.stringify(skills));
  });
  return { ...result, written: true };
}

function checkRoot(root: string, config: AgentConfig): void {
  let info;
  try {
    info = lstatSync(root);
  } catch {
    throw new Error(`skills.sync: the skills root ${root} is not mounted in this sandbox`);
  }
  if (!info.isDirectory()) throw new Error(`skills.sync: the skills root ${root} is not a folder`);
  if (config.workspaceUser && (info.uid !== 0 || (info.mode & 0o022) !== 0)) {
    throw new Error(
      `skills.sync: the skills root ${root} must be root's and writable by no one else (uid ${info.uid}, mode ${(info.mode & 0o777).toString(8)})`,
    );
  }
}

function holdsExactly(root: string, skills: readonly Skill[]): boolean {
  try {
    const present = readdirSync(root).sort();
    const wanted = skills.map((skill) => skill.name).sort();
    if (present.join("\n") !== wanted.join("\n")) return false;
    return skills.every((skill) => readFileSync(path.join(root, skill.name, "SKILL.md"), "utf8") === skill.body);
  } catch {
    return false;
  }
}
