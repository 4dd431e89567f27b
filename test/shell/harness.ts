import { Bash, InMemoryFs } from "just-bash";
import { compatBashOptions, compatCommands } from "../../src/shell/commands/index.js";

/** The working directory scripts start in (the product uses a similar home). */
export const HOME = "/home/user";

/**
 * Build a shell the way `src/shell/engine.ts` does: one `new Bash` over an InMemoryFs,
 * with our compatibility commands first and our constructor options spread last.
 */
export function makeShell(): Bash {
  const fs = new InMemoryFs();
  const bash = new Bash({
    fs,
    cwd: HOME,
    customCommands: [...compatCommands()],
    executionLimits: { maxExecutionTimeMs: 30_000 },
    ...compatBashOptions(),
  });
  return bash;
}

/** Write files (paths relative to HOME) into a shell's filesystem, creating parents. */
export async function writeFiles(bash: Bash, files: Record<string, string>): Promise<void> {
  await bash.fs.mkdir(HOME, { recursive: true });
  for (const [p, content] of Object.entries(files)) {
    const abs = p.startsWith("/") ? p : `${HOME}/${p}`;
    await bash.fs.mkdir(abs.slice(0, abs.lastIndexOf("/")) || "/", { recursive: true });
    await bash.fs.writeFile(abs, content);
  }
}

/** Quote one word for bash (single quotes). */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
