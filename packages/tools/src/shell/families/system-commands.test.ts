import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([
    ["apt-get install -y curl", "system_modify"],
    ["apt install jq", "system_modify"],
    ["dpkg -i pkg.deb", "system_modify"],
    ["yum install x", "system_modify"],
    ["apk add x", "system_modify"],
    ["systemctl restart nginx", "system_modify"],
    ["docker run alpine", "system_modify"],
    ["mount /dev/sda1 /mnt", "system_modify"],
  ]);
});
