/**
 * Which shell engine a session runs on: just-bash (the default, patches/README.md) or, as an
 * experiment, bashkit (docs/shell.md, "The other road: bashkit"), chosen by `TOOLSHELL_ENGINE=bashkit`
 * in the host's environment. On bashkit the pre-start check reads the script with just-bash's
 * parser, so a script runs only when bashkit's own parser finds the same `tools` calls with the
 * same literal words and nothing hidden (no `eval`, dynamic command names); otherwise it is refused
 * before anything runs, exit 2.
 *
 * See docs/shell.md; docs/security.md → The preflight.
 */
import { createBashkitEngine } from "../shell/bashkit-engine.js";
import { createEngine, type Engine, type EngineOptions } from "../shell/index.js";
import { readScript } from "../policy/script-reader.js";
import { Turns } from "../policy/turns.js";

/** The engines a session can run on. */
export type EngineKind = "just-bash" | "bashkit";

/** The engine the host's environment asks for (`TOOLSHELL_ENGINE`), just-bash unless it says bashkit. */
export function engineKind(env: NodeJS.ProcessEnv = process.env): EngineKind {
  return env.TOOLSHELL_ENGINE === "bashkit" ? "bashkit" : "just-bash";
}

/**
 * Creates a session's engine of the given kind.
 * @throws Error as {@link createEngine} does, or when bashkit cannot be loaded
 */
export function createSessionEngine(options: EngineOptions, kind: EngineKind = engineKind()): Engine {
  if (kind !== "bashkit") return createEngine(options);
  const kit = createBashkitEngine(options);
  return {
    fs: kit.fs,
    cwd: kit.cwd,
    async exec(script, o = {}) {
      const refuse = (why: string) => ({ stdout: "", stderr: `bash: not run on the bashkit engine: ${why}\n`, exitCode: 2 });
      let ours: Array<Array<string | null>>;
      try {
        ours = (await readScript(script, new Turns(o.signal))).calls.map((c) => c.words ?? [null]);
      } catch (err) {
        return refuse(err instanceof Error ? err.message : String(err));
      }
      const theirs = kit.read(script);
      if (theirs.opaque) return refuse("bashkit cannot read all of it before it runs (eval, source or a command name built at run time)");
      const same = (a: Array<Array<string | null>>, b: Array<Array<string | null>>) => JSON.stringify(a.map((w) => (w.includes(null) ? null : w))) === JSON.stringify(b.map((w) => (w.includes(null) ? null : w)));
      if (!same(ours, theirs.calls)) return refuse("its tools calls read differently by the check before the start and by bashkit");
      return kit.exec(script, o);
    },
  };
}
