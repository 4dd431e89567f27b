/**
 * Files and folders only their owner may read: toolshell's state folder (`.toolshell/`), the
 * serve files, the gateway's token, server logs, the SQLite store. One rule for every local file
 * that holds what a server or a person said, or a credential: a folder 0700, a file 0600, and one
 * made earlier (by an older version, or under a looser umask) is narrowed when it is next written.
 *
 * Narrowing changes only what is toolshell's own: a regular file this user owns, and a folder
 * that is or lies inside a `.toolshell` folder. A path a config names may be a device
 * (`store: "/dev/null"`), a pipe, another user's file or a shared folder (`logDir: "/tmp"`):
 * those are used as they are and never re-moded (as root, a chmod would change the machine's
 * `/dev/null` or `/tmp` for everyone). A folder toolshell makes is made 0700 wherever it is.
 *
 * See docs/security.md → Who acts for whom.
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, statSync, writeSync, type Stats } from "node:fs";
import path from "node:path";

/** A regular file this process's user owns and others may read or write: one to narrow. */
function narrowable(st: Stats): boolean {
  const uid = process.getuid?.();
  return st.isFile() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) !== 0;
}

/** True when `dir` is a `.toolshell` folder or lies inside one. */
function isStateFolder(dir: string): boolean {
  return path.resolve(dir).split(path.sep).includes(".toolshell");
}

/**
 * Makes `dir` (and missing parents) a folder only its owner may use: 0700. One that exists is
 * narrowed when it is toolshell's own (a `.toolshell` folder or inside one) and this user's;
 * any other existing folder is left as it is. @throws Error when it cannot be made or is not a folder.
 */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
  const uid = process.getuid?.();
  if ((st.mode & 0o077) !== 0 && isStateFolder(dir) && (uid === undefined || st.uid === uid)) chmodSync(dir, 0o700);
  return dir;
}

/** Narrows the open file `fd` to 0600 when it is a regular file of this user's ({@link narrowable}). */
function narrowFd(fd: number): void {
  if (narrowable(fstatSync(fd))) fchmodSync(fd, 0o600);
}

/**
 * Narrows `file` to 0600 when it exists and is a regular file of this user's; a device, a pipe
 * or another user's file is left as it is. Never throws.
 */
export function narrowPrivateFile(file: string): void {
  try {
    if (narrowable(statSync(file))) chmodSync(file, 0o600);
  } catch {}
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
    narrowFd(fd);
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
  try {
    narrowFd(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
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
