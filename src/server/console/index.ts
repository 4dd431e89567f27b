/** The console's public face: a Hono app (pages, live updates, forms) mounted by the HTTP API. */
export { createConsole } from "./routes.js";
export type { ConsoleOptions } from "./routes.js";
export { LiveHub } from "./live.js";
export type { LiveMessage } from "./live.js";
