/**
 * The CLI's approval book, kept in a JSON file so an answer given with `toolshell approve` (or at
 * the terminal prompt) covers the next `toolshell run`.
 *
 * Rule source: issue 4 → The person's side (CLI: on yes, tell the user to run again).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ApprovalBook, type ApprovalSnapshot } from "../policy/index.js";

/**
 * Opens the book stored at `file` (a missing or unreadable file starts an empty book) and
 * writes every change back atomically (temp file + rename).
 */
export function fileApprovalBook(file: string, sessionId: string): ApprovalBook {
  let snapshot: ApprovalSnapshot | undefined;
  try {
    snapshot = JSON.parse(readFileSync(file, "utf8")) as ApprovalSnapshot;
  } catch {
    snapshot = undefined;
  }
  const book = new ApprovalBook(sessionId, snapshot);
  book.onChange = (snap) => {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(snap, null, 2));
    renameSync(tmp, file);
  };
  return book;
}
