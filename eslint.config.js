import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "examples/workspace/", "bench/out/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-empty": ["error", { allowEmptyCatch: true }],
      // Help pages are indented with two spaces; tests match them literally.
      "no-regex-spaces": "off",
      // toolshell speaks MCP through the SDK's v2 line only (docs/mcp.md); the v1 package is
      // still in node_modules as the npm test servers' own dependency.
      "no-restricted-imports": ["error", { patterns: [{ regex: "^@modelcontextprotocol/sdk(/|$)", message: "Use @modelcontextprotocol/client, /server or /core (the SDK's v2 line)." }] }],
    },
  },
);
