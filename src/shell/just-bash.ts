/**
 * The one door to the shell engine: just-bash with toolshell's interpreter fixes
 * (patches/README.md). Every module of toolshell imports just-bash through this file.
 *
 * In a checkout it re-exports the `just-bash` package, edited in place by patch-package
 * (`npm run build` runs it first).
 * `npm run build` rewrites the built copy of this file to load the engine bundled into
 * `dist/engine/` instead, so an installed toolshell runs the engine its tests ran, whatever
 * `just-bash` the consumer's `node_modules` holds (that package only provides the types).
 */
import * as loaded from "just-bash";

export * from "just-bash";

/**
 * The engine this toolshell was built and tested with: just-bash's version and a digest of
 * toolshell's edits (`node patches/just-bash-edits.mjs --id` prints it;
 * test/shell/engine-id.test.ts keeps the two equal).
 */
export const ENGINE_ID = "just-bash@3.4.2+toolshell.1f9dbaf33604";

/** The module specifier the engine is loaded from (rewritten by the build). */
const ENGINE_SPECIFIER = "just-bash";

/**
 * Checks that the loaded engine is the one toolshell was built with.
 * @returns null when it is, else the reason, in words a person can act on
 */
export function engineMismatch(): string | null {
  const found = (loaded as Record<string, unknown>).toolshellEngineId;
  if (found === ENGINE_ID) return null;
  let from = ENGINE_SPECIFIER;
  try {
    from = import.meta.resolve(ENGINE_SPECIFIER);
  } catch {}
  const what = typeof found === "string" ? `the engine ${found}` : "a just-bash without toolshell's interpreter fixes";
  return (
    `toolshell: refusing to start: the shell engine loaded from ${from} is ${what}, ` +
    `but this toolshell was built with ${ENGINE_ID}. ` +
    "In a checkout of toolshell, run `npx patch-package` (`npm run build` runs it); " +
    "an installed toolshell carries its engine in dist/engine/: reinstall the package."
  );
}

/**
 * Refuses to go on with a different shell than the one toolshell was built with.
 * @throws Error with the reason and the fix (see {@link engineMismatch})
 */
export function assertEngine(): void {
  const reason = engineMismatch();
  if (reason) throw new Error(reason);
}
