// Builds the sandbox image when its inputs change: the offline base (debootstrap + docker import, only
// when no registry answers) and the image on top (Dockerfile + packages + agent bundle). Tags are
// content hashes, so a second run is a lookup; `berth-sandbox:latest` always names the current one.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { run, runAsync, tryRun, step } from "./proc.mjs";

export const SANDBOX_IMAGE = "berth-sandbox:latest";

function hashFiles(files) {
  const hash = crypto.createHash("sha256");
  for (const file of files) hash.update(path.basename(file)).update("\0").update(fs.readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

function imageExists(tag) {
  return tryRun("docker", ["image", "inspect", "--format", "{{.Id}}", tag]).ok;
}

function baseTagOf(dir) {
  return `berth-base:bookworm-${hashFiles([path.join(dir, "packages.txt"), path.join(dir, "build-base.sh")])}`;
}

/**
 * The image the sandbox image is built FROM: the offline base when it exists, else debian:bookworm-slim when a
 * registry gives it, else the offline base built now with debootstrap. Needs no node_modules, so the setup starts
 * it beside `npm ci`.
 */
export async function ensureBaseImage(root) {
  const dir = path.join(root, "docker/sandbox");
  const baseTag = baseTagOf(dir);
  if (imageExists(baseTag)) return baseTag;
  const slim = "debian:bookworm-slim";
  if (imageExists(slim)) return slim;
  // A registry may answer elsewhere; here it does not, and the base is built offline (~90 s, once).
  const pulled = await step(`pull ${slim}`, () => tryRun("docker", ["pull", slim], { timeoutMs: 30_000 }).ok);
  if (pulled) return slim;
  await step(`build offline base image ${baseTag} (debootstrap, ~90 s, once)`, () =>
    runAsync("bash", [path.join(dir, "build-base.sh"), baseTag], { inherit: true }),
  );
  return baseTag;
}

/** `base`: the promise of ensureBaseImage when the caller started it early; otherwise it runs here when needed. */
export async function ensureSandboxImage(root, { agentBundle, base }) {
  const dir = path.join(root, "docker/sandbox");
  const baseInputs = [path.join(dir, "packages.txt"), path.join(dir, "build-base.sh")];
  const imageTag = `berth-sandbox:${hashFiles([...baseInputs, path.join(dir, "Dockerfile"), path.join(dir, "berth-pty.py"), agentBundle])}`;

  if (imageExists(imageTag)) {
    run("docker", ["tag", imageTag, SANDBOX_IMAGE]);
    return { image: imageTag, built: false };
  }
  const from = await (base ?? ensureBaseImage(root));

  // Build context: only what the Dockerfile copies (the agent bundle lives outside docker/).
  const context = fs.mkdtempSync(path.join(os.tmpdir(), "berth-image-"));
  try {
    for (const name of ["Dockerfile", "packages.txt", "berth-pty.py"]) fs.copyFileSync(path.join(dir, name), path.join(context, name));
    fs.copyFileSync(agentBundle, path.join(context, "berth-agent.mjs"));
    await step(`build sandbox image ${imageTag}`, () =>
      runAsync("docker", ["build", "-q", "--build-arg", `BASE_IMAGE=${from}`, "-t", imageTag, "-t", SANDBOX_IMAGE, context], {
        env: { ...process.env, DOCKER_BUILDKIT: "0" },
      }),
    );
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  return { image: imageTag, built: true };
}
