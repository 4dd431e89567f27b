/** The clients whose MCP server configs `toolshell mcp --import` reads (docs/agents.md "Importing other clients' servers"). */
export const CLIENTS = ["claude-desktop", "cursor", "claude-code", "vscode"] as const;
/** One of {@link CLIENTS}. */
export type ClientName = (typeof CLIENTS)[number];
