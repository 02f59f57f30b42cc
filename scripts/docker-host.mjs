// `npm run docker-host [start|stop]`: a second Docker engine on this machine for trying several Docker hosts —
// dockerd in the network namespace berth-dh2, reached over TCP with mutual TLS on 10.213.90.2:2376 (a private veth
// pair; nothing beyond this machine reaches it), with the sandbox image loaded. Prints the BERTH_DOCKER_HOSTS value
// that puts sessions on both engines. Needs root and the sandbox image (npm start builds it). docs/scale-out.md.
import { NETNS_DOCKERD, loadImageInto, removeNetns, startNetnsDockerd, stopNetnsDockerd } from "./lib/netns-dockerd.mjs";

const action = process.argv[2] ?? "start";
if (process.getuid?.() !== 0) {
  console.error("npm run docker-host: run as root (it creates a network namespace and starts dockerd)");
  process.exit(1);
}
try {
  if (action === "stop") {
    await stopNetnsDockerd();
    removeNetns();
    console.log(`stopped the second Docker engine (its data stays in ${NETNS_DOCKERD.dir})`);
  } else if (action === "start") {
    const engine = await startNetnsDockerd();
    if (loadImageInto({}, "berth-sandbox:latest")) console.log("loaded berth-sandbox:latest into it");
    console.log(`second Docker engine: ${engine.url} (client certificates in ${engine.certDir})`);
    console.log(`BERTH_DOCKER_HOSTS=local=unix:///var/run/docker.sock,dh2=${engine.url}?tls=${engine.certDir}`);
  } else {
    console.error(`npm run docker-host: unknown action ${action} (start or stop)`);
    process.exit(2);
  }
} catch (error) {
  console.error(`npm run docker-host: ${error.message}`);
  process.exit(1);
}
