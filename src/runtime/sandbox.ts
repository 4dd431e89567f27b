/**
 * The sandbox handle a tool gets through `ctx.getSandbox()`: the session's engine filesystem
 * (paths resolved from its working folder) and a way to run a command in it.
 *
 * See README → Use it from code (`ctx.getSandbox()`).
 */
import { currentScope, errorLine, type Engine } from "../shell/index.js";
import { ToolCallError, type SandboxHandle } from "../tool/index.js";

/** The sandbox handle over `engine`. A tool still running after its shell call stopped runs nothing more in it. */
export function sandboxOf(engine: Engine): SandboxHandle {
  const { fs, cwd } = engine;
  return {
    cwd,
    readFile: (p) => fs.readFile(fs.resolvePath(cwd, p)),
    readFileBytes: (p) => fs.readFileBuffer(fs.resolvePath(cwd, p)),
    writeFile: async (p, content) => {
      const full = fs.resolvePath(cwd, p);
      const dir = full.slice(0, full.lastIndexOf("/")) || "/";
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(full, content);
    },
    exists: (p) => fs.exists(fs.resolvePath(cwd, p)),
    run: async (command, o = {}) => {
      if (currentScope()?.isStopped()) {
        return { stdout: "", stderr: errorLine(new ToolCallError("stopped", "the shell call stopped, so this command did not run")), exitCode: 1 };
      }
      return engine.exec(command, { stdin: o.stdin, cwd: o.cwd });
    },
  };
}
