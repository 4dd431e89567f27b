/**
 * Renders a tool's output for the script: stdout text, and images/audio written to files.
 *
 * See README → The `tools` command (Output, Errors).
 */
import { randomBytes } from "node:crypto";
import type { IFileSystem } from "just-bash";
import { jsonText, ToolCallError, type MaybePromise, type ToolOutput } from "../../../tool/index.js";

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/svg+xml": "svg",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/webm": "webm",
};

/** The folder (relative to the working directory) where media blocks are written. */
export const MEDIA_DIR = "tool-images";

/** What the `tools` command prints for one output. */
export interface Rendered {
  stdout: string;
  stderr: string;
  /** Absolute paths written in the session filesystem. */
  files: string[];
}

/**
 * Renders `output`: text as is (a newline added when missing), JSON compact on one line (from
 * `output.json` when it stands for the value: see `jsonText`); each
 * media block written to `<cwd>/tool-images/<tool>-<id>.<ext>` with a stderr line naming it.
 * Synchronous when there is no media block to write.
 * @throws ToolCallError `tool_error` when a media block is not valid base64 or cannot be written.
 */
export function renderOutput(output: ToolOutput, fs: IFileSystem, cwd: string, toolName: string): MaybePromise<Rendered> {
  let stdout: string;
  if (output.kind === "text") {
    const text = output.text ?? "";
    stdout = text === "" || text.endsWith("\n") ? text : text + "\n";
  } else {
    // The source's own text when it holds integers beyond 2^53 (docs/mcp.md): every digit kept.
    stdout = jsonText(output) + "\n";
  }
  if (!output.media?.length) return { stdout, stderr: "", files: [] };
  return writeMedia(output.media, fs, cwd, toolName).then(({ stderr, files }) => ({ stdout, stderr, files }));
}

async function writeMedia(media: NonNullable<ToolOutput["media"]>, fs: IFileSystem, cwd: string, toolName: string): Promise<{ stderr: string; files: string[] }> {
  let stderr = "";
  const files: string[] = [];
  const dir = fs.resolvePath(cwd, MEDIA_DIR);
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (err) {
    throw new ToolCallError("tool_error", `cannot create ${MEDIA_DIR}/: ${(err as Error).message}`);
  }
  const safe = toolName.replace(/[^A-Za-z0-9_.-]/g, "_");
  for (const block of media) {
    const bytes = Buffer.from(block.data, "base64");
    const ext = EXT[block.mimeType] ?? (block.kind === "image" ? "img" : "audio");
    const rel = `${MEDIA_DIR}/${safe}-${randomBytes(4).toString("hex")}.${ext}`;
    const full = fs.resolvePath(cwd, rel);
    try {
      await fs.writeFile(full, new Uint8Array(bytes));
    } catch (err) {
      throw new ToolCallError("tool_error", `cannot write ${rel}: ${(err as Error).message}`);
    }
    files.push(full);
    stderr += `tools: ${block.kind} saved to ${rel} (${block.mimeType}, ${bytes.length} bytes)\n`;
  }
  return { stderr, files };
}

/** The error line (README "The `tools` command" → Errors): `{"error":{"code","message","retryable"}}` and a newline. */
export function errorLine(err: ToolCallError): string {
  return JSON.stringify(err.toJSON()) + "\n";
}
