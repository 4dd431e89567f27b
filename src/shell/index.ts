/** The shell folder's public face: the engine adapter and the `tools` command's parts. */
export { createEngine, WORKDIR } from "./engine.js";
export { assertEngine, engineMismatch, ENGINE_ID } from "./just-bash.js";
export type { Engine, EngineOptions, EngineResult } from "./engine.js";
export { asksForHelp, createToolsCommand } from "./commands/tools/command.js";
export { runInScope, currentScope } from "./scope.js";
export type { ShellScope, NestedCallRequest, SubcommandHandler, SubcommandResult, CommandIo } from "./scope.js";
export { buildInput, checkKnownFields, readValue, mapKey, refuseUnsafeInput, refuseUnsafeParts, refuseDeepInput, MAX_INPUT_DEPTH } from "./commands/tools/input.js";
export { renderOutput, errorLine, MEDIA_DIR } from "./commands/tools/output.js";
export { SHELL_SUBCOMMANDS, helpCommand, searchCommand } from "./commands/tools/subcommands/index.js";
export type { SubcommandFactory } from "./commands/tools/subcommands/index.js";
export { haltScript, HALT_KIND, noteStop } from "./halt.js";
export { defaultEngineCommands, SHELL_NOTES } from "./defaults.js";
