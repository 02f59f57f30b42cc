// Builds the sandbox image when its inputs change: the offline base (debootstrap + docker import, only
// when no registry answers) and the image on top (Dockerfile + packages + agent bundle). Tags are
// content hashes, so a second run is a lookup; `berth-sandbox:latest` always names the current one.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { run, tryRun, step } from "./proc.mjs";

export const SANDBOX_IMAGE = "berth-sandbox:latest";

function hashFiles(files) {
  const hash = crypto.createHash("sha256");
  for (const file of files) hash.update(path.basename(file)).update("\0").update(fs.readFileSync(file));
  return hash.digest("hex").slice(0, 16);
}

function imageExists(tag) {
  return tryRun("docker", ["image", "inspect", "--format", "{{.Id}}", tag]).ok;
}

export async function ensureSandboxImage(root, { agentBundle }) {
  const dir = path.join(root, "docker/sandbox");
  const baseInputs = [path.join(dir, "packages.txt"), path.join(dir, "build-base.sh")];
  const baseTag = `berth-base:bookworm-${hashFiles(baseInputs)}`;
  const imageTag = `berth-sandbox:${hashFiles([...baseInputs, path.join(dir, "Dockerfile"), path.join(dir, "berth-pty.py"), agentBundle])}`;

  if (imageExists(imageTag)) {
    run("docker", ["tag", imageTag, SANDBOX_IMAGE]);
    return { image: imageTag, built: false };
  }

  let base = "debian:bookworm-slim";
  if (imageExists(baseTag)) {
    base = baseTag;
  } else if (!imageExists(base)) {
    // A registry may answer elsewhere; here it does not, and the base is built offline (~90 s, once).
    const pulled = await step(`pull ${base}`, () => tryRun("docker", ["pull", base], { timeoutMs: 30_000 }).ok);
    if (!pulled) {
      await step(`build offline base image ${baseTag} (debootstrap, ~90 s, once)`, () =>
        run("bash", [path.join(dir, "build-base.sh"), baseTag], { inherit: true }),
      );
      base = baseTag;
    }
  }

  // Build context: only what the Dockerfile copies (the agent bundle lives outside docker/).
  const context = fs.mkdtempSync(path.join(os.tmpdir(), "berth-image-"));
  try {
    for (const name of ["Dockerfile", "packages.txt", "berth-pty.py"]) fs.copyFileSync(path.join(dir, name), path.join(context, name));
    fs.copyFileSync(agentBundle, path.join(context, "berth-agent.mjs"));
    await step(`build sandbox image ${imageTag}`, () =>
      run("docker", ["build", "-q", "--build-arg", `BASE_IMAGE=${base}`, "-t", imageTag, "-t", SANDBOX_IMAGE, context], {
        env: { ...process.env, DOCKER_BUILDKIT: "0" },
      }),
    );
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  return { image: imageTag, built: true };
}
