/**
 * Files and folders only their owner may read: toolshell's state folder (`.toolshell/`), the
 * serve files, the gateway's token, server logs. One rule for every local file that holds what
 * a server or a person said, or a credential: a folder 0700, a file 0600, and one made earlier
 * (by an older version, or under a looser umask) is narrowed when it is next written.
 *
 * See docs/security.md → Who acts for whom.
 */
import { chmodSync, closeSync, fchmodSync, lstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";

/**
 * Makes `dir` (and missing parents) a folder only its owner may use: 0700, narrowed when it
 * exists already. @throws Error when it cannot be made or is not a folder.
 */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/**
 * Writes `text` to `file` (replacing what was there), readable by its owner only (0600, narrowed
 * when the file existed), in a private folder ({@link privateDir}).
 * @throws Error when it cannot be written.
 */
export function writePrivateFile(file: string, text: string): void {
  privateDir(path.dirname(file));
  const fd = openSync(file, "w", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens `file` for appending, readable by its owner only (0600, narrowed when it existed), in a
 * private folder. @returns the file descriptor. @throws Error when it cannot be opened.
 */
export function openPrivateLog(file: string): number {
  privateDir(path.dirname(file));
  const fd = openSync(file, "a", 0o600);
  fchmodSync(fd, 0o600);
  return fd;
}

/**
 * True when `file` is this user's own and nobody else may read or write it (a token file must
 * not be one another user could have written or can read). Never throws.
 */
export function isPrivateFile(file: string): boolean {
  try {
    const st = lstatSync(file);
    const uid = process.getuid?.();
    return st.isFile() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}
