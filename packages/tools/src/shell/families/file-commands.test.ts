import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([
    ["cp a.txt /usr/local/bin/a", "system_modify"],
    ["mv /etc/passwd .", "system_modify"],
    ["touch ../outside.txt", "system_modify"],
    ["rm -rf /", "system_modify"],
    ["rm -rf /*", "system_modify"],
    ["rm -rf ~", "system_modify"],
    ["find / -name x -delete", "system_modify"],
    ["dd if=/dev/zero of=/dev/sda", "system_modify"],
  ]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([["find . -name '*.ts'", "execute", true]]);
});

describe("classifyCommand: other execute", () => {
  check([
    ["rm -rf build", "execute", false],
    ["rm a.txt", "execute", false],
  ]);
});
