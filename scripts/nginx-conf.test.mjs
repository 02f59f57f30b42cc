import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nginxConf, writeNginxConf } from "./lib/nginx-conf.mjs";

const options = (over = {}) => ({ port: 8080, runners: ["127.0.0.1:4101", "127.0.0.1:4102"], web: "127.0.0.1:3100", dir: "/tmp/x", ...over });

describe("the cluster's nginx config", () => {
  it("refuses what it must not proxy to or listen on, naming the field and the value", () => {
    expect(() => nginxConf(options({ runners: ["10.0.0.5:4101"] }))).toThrow('runners[0]: "10.0.0.5:4101" is not 127.0.0.1:<port>');
    expect(() => nginxConf(options({ web: "0.0.0.0:3100" }))).toThrow('web: "0.0.0.0:3100" is not 127.0.0.1:<port>');
    expect(() => nginxConf(options({ runners: [] }))).toThrow("runners: at least one runner is needed, got none");
    expect(() => nginxConf(options({ port: 70000 }))).toThrow("port: 70000 is not a TCP port (1-65535)");
  });

  it("listens on 127.0.0.1 only and sends the sign-in route to the web app, the runners' paths to the runners", () => {
    const text = nginxConf(options());
    expect(text.match(/^\s*listen .*$/gm)).toEqual(["    listen 127.0.0.1:8080;"]);
    expect(text).toContain("location = /api/session { proxy_pass http://berth_web; }");
    expect(text).toContain("location ^~ /api/ { proxy_pass http://berth_runners; }");
    expect(text).toContain("location ^~ /socket.io/ { proxy_pass http://berth_runners; }");
    expect(text).toContain("server 127.0.0.1:4102 max_fails=1 fail_timeout=5s;");
  });

  it("writes a config Debian's nginx accepts (nginx -t)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "berth-nginx-conf-"));
    try {
      const file = writeNginxConf(options({ dir }));
      expect(fs.readFileSync(file, "utf8")).toContain(`pid ${path.join(dir, "nginx.pid")};`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
