import { describe } from "vitest";
import { check } from "../testing/check-classification";

describe("classifyCommand: system_modify", () => {
  check([
    ["pip install requests", "system_modify"],
    ["pip install --user requests", "system_modify"],
    ["npm i -g typescript", "system_modify"],
    ["npm install -g typescript", "system_modify"],
    ["npm install --global typescript", "system_modify"],
    ["yarn global add x", "system_modify"],
  ]);
});

describe("classifyCommand: network", () => {
  check([
    ["npm install", "network"],
    ["npm ci", "network"],
    ["pip install -r requirements.txt --target ./vendor", "network"],
    ["npx create-react-app x", "network"],
  ]);
});

describe("classifyCommand: recognised execute (tests, builds, read-ish)", () => {
  check([
    ["npm test", "execute", true],
    ["npm run build", "execute", true],
    ["npm run test:unit", "execute", true],
    ["npm run lint", "execute", true],
    ["pnpm test", "execute", true],
    ["yarn build", "execute", true],
    ["npx tsc -p .", "execute", true],
    ["npx vitest run", "execute", true],
  ]);
});

describe("classifyCommand: other execute", () => {
  check([
    ["npm start", "execute", false],
    ["npm run deploy", "execute", false],
  ]);
});
