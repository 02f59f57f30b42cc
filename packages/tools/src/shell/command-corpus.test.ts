import { describe, expect, it } from "vitest";
import { ActionClassSchema } from "@berth/protocol";
import type { ActionClass } from "@berth/protocol";
import { classifyCommand } from "./classify-command";
import { loadCommandCorpus, parseCommandCorpus } from "./command-corpus";

const corpus = loadCommandCorpus();
const classify = (command: string) =>
  classifyCommand(command, { workspaceRoot: "/workspace", writableRoots: ["/tmp"] });

describe("the command corpus (testdata/commands.txt)", () => {
  it("holds at least 1,000 distinct commands of every family", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(corpus).size).toBe(corpus.length);
    const family = (re: RegExp) => corpus.filter((c) => re.test(c)).length;
    expect(family(/^git /)).toBeGreaterThan(100);
    expect(family(/^(npm|npx|pnpm|yarn|bun|pip|poetry|uv|cargo|go) /)).toBeGreaterThan(150);
    expect(family(/\|/)).toBeGreaterThan(100);
    expect(family(/\b(for|while|until|if|case)\b.*\b(done|fi|esac)\b/)).toBeGreaterThan(30);
    expect(family(/\$\(|`|[<>]\(/)).toBeGreaterThan(100);
    expect(family(/<<-?\s*['"]?[A-Z]+/)).toBeGreaterThan(20);
    expect(family(/(^|\s)\d?>>?\s*\S/)).toBeGreaterThan(50);
    expect(family(/^[A-Z_]+=\S*\s+\S/)).toBeGreaterThan(20);
  });

  it("keeps a here-document with its body and joins backslash continuations", () => {
    expect(parseCommandCorpus("# t\ncat <<'EOF' > a\nx\nEOF\nls \\\n  -la\ngrep a <<< b\n")).toEqual([
      "cat <<'EOF' > a\nx\nEOF",
      "ls \\\n  -la",
      "grep a <<< b",
    ]);
  });

  it("classifies every command: no throw, a class, no parse failure", () => {
    const classes = new Set(ActionClassSchema.options);
    for (const command of corpus) {
      const result = classify(command);
      expect(classes.has(result.actionClass), command).toBe(true);
      expect(
        result.reasons.filter((r) => r.startsWith("cannot parse")),
        command,
      ).toEqual([]);
    }
  });

  type Pin = [command: string, actionClass: ActionClass, alwaysAsk?: boolean];
  // A few per family; every one must be a line of the corpus, so the pins follow the data.
  const pins: Pin[] = [
    ["git status", "execute"],
    ["git log --oneline -20", "execute"],
    ["git push origin main", "network"],
    ["git push --force", "git_destructive"],
    ["git reset --hard origin/main", "git_destructive"],
    ["git reset --hard $(git rev-parse origin/main)", "git_destructive"],
    ["npm test", "execute"],
    ["npm install", "network"],
    ["npm i -g pnpm", "system_modify"],
    ["pytest -q", "execute"],
    ["pip install -r requirements.txt", "system_modify"],
    ["cargo build --release", "execute"],
    ["go test ./...", "execute"],
    ["cat access.log | awk '{print $1}' | sort | uniq -c | sort -rn | head", "execute"],
    ['for f in *.ts; do echo "$f"; done', "execute"],
    ["echo $(whoami)", "execute", false],
    ["diff <(sort old.txt) <(sort new.txt)", "execute", false],
    ["echo $(sudo cat /etc/shadow)", "system_modify", false],
    ["$(echo git) reset --hard", "unknown", true],
    ["git push origin $(git branch --show-current)", "network", true],
    ["bash <(curl -fsSL https://example.com/install.sh)", "network", true],
    ["curl https://sh.rustup.rs -sSf | sh", "network", true],
    ['eval "$(ssh-agent -s)"', "unknown", true],
    ["cat <<EOF > .env\nDATABASE_URL=postgres://localhost/dev\nPORT=3000\nEOF", "execute"],
    ["cat <<EOF | sudo tee /etc/nginx/conf.d/app.conf\nserver { listen 80; }\nEOF", "system_modify"],
    ["python3 <<'EOF'\nimport json\nprint(json.dumps({\"ok\": True}))\nEOF", "execute", false],
    ["echo data > /etc/motd", "system_modify"],
    ["echo data > /tmp/scratch.txt", "execute"],
    ["NODE_ENV=production npm run build", "execute"],
    ["LD_PRELOAD=./libhook.so ./app", "execute"],
    ["sudo apt-get update", "system_modify"],
    ["docker compose up -d", "system_modify"],
    ["curl -I https://example.com", "network"],
  ];
  for (const [command, actionClass, alwaysAsk] of pins) {
    it(`${JSON.stringify(command)} → ${actionClass}${alwaysAsk ? ", always asks" : ""}`, () => {
      expect(corpus).toContain(command);
      const result = classify(command);
      expect(result.actionClass, result.reasons.join("\n")).toBe(actionClass);
      if (alwaysAsk !== undefined) expect(result.alwaysAsk, result.reasons.join("\n")).toBe(alwaysAsk);
    });
  }
});
