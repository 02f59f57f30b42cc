import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

// Import boundaries of docs/architecture.md: the agent runs inside the container and may use only the
// protocol; protocol imports nothing of ours; packages never import apps; the web app never talks to Docker.
const noAppImports = { group: ["@berth/runner", "@berth/web", "**/apps/**"], message: "packages never import apps" };
const noSrcReach = { group: ["@berth/*/src/*", "**/packages/*/src/**"], message: "import a package by its exports, never its src/" };

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "**/.next/**",
      "**/generated/**",
      "**/bin/**",
      "test-results/**",
      ".berth/**",
      "**/next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", fetch: "readonly", AbortSignal: "readonly", URL: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly" } },
  },
  {
    files: ["packages/protocol/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["@berth/*"], message: "protocol imports nothing of ours (zod only)" }] }] },
  },
  {
    files: ["packages/agent/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@berth/*", "!@berth/protocol"], message: "the agent runs in the container: it may import only @berth/protocol" }, { group: ["dockerode", "@prisma/*"], message: "the agent runs in the container" }] }],
    },
  },
  {
    files: ["packages/**/*.ts"],
    ignores: ["packages/protocol/**", "packages/agent/**"],
    rules: { "no-restricted-imports": ["error", { patterns: [noAppImports, noSrcReach] }] },
  },
  {
    files: ["apps/web/**/*.ts", "apps/web/**/*.tsx"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["dockerode", "@berth/sandbox", "@berth/db", "@berth/runner"], message: "the web app talks to the runner over HTTP/socket.io, never to Docker or the database" }, noSrcReach] }],
    },
  },
  prettier,
);
