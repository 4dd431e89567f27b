/**
 * Tasks as a client, in both eras.
 *
 * The 2026-07-28 Tasks extension (`io.modelcontextprotocol/tasks`): a `tools/call` the server
 * answers with a task handle (`resultType: "task"`) is followed to its end — polled with
 * `tasks/get` at the server's `pollIntervalMs`, its status shown to the person as progress, its
 * questions (`input_required` with `inputRequests`) answered through the relay and sent back with
 * `tasks/update`, and `tasks/cancel` sent when the shell call stops first.
 *
 * The 2025-11-25 core's tasks: a tool whose definition says `execution.taskSupport: "required"`,
 * on a server that declares `capabilities.tasks.requests.tools.call`, is called with a `task`
 * parameter; the `CreateTaskResult` is polled with `tasks/get` (its `pollInterval`) the same way,
 * and once the task is done or waits for input its outcome is read with `tasks/result` (which
 * blocks while the server asks its questions as `elicitation/create` requests tied to the task);
 * `tasks/cancel` as above.
 *
 * The SDK (2.4.0) carries neither as a client, so the messages are written here from the
 * specifications: the Tasks extension 2026-07-28 (modelcontextprotocol/ext-tasks): Capability
 * Negotiation, Polymorphic Results, Task Polling (respect `pollIntervalMs`), Task Update Requests,
 * Task Cancellation (`notifications/cancelled` MUST NOT be used), Error Handling (`failed` carries
 * the JSON-RPC error; a tool error is `completed` with `isError`); MCP spec 2025-11-25
 * "Utilities" → Tasks (Tool-Level Negotiation, Creating Tasks, Getting Task Status, Retrieving
 * Task Results, Cancelling Tasks).
 */
import { ProtocolError, type Client, type ElicitRequest, type ElicitResult, type Transport } from "@modelcontextprotocol/client";
import { ToolCallError } from "../tool/types.js";
import type { McpCallResult } from "./result.js";

/** The extension's identifier, declared in the client's capabilities (`extensions`). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Where {@link answerTasksAsResults} leaves a task handle in the `tools/call` result it hands the SDK. */
const TASK_META = "dev.toolshell/task";

/** The least and most time between two polls, whatever `pollIntervalMs` says (ms). */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 30_000;

/** The longest a 2025 `tasks/result` is waited for (ms): in practice the shell call's time limit ends it first. */
const RESULT_WAIT_MS = 2_147_483_647;

/** A task as the server describes it (the fields toolshell reads). */
export interface TaskState {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled" | string;
  statusMessage?: string;
  pollIntervalMs?: number;
  /** The 2025 core's name for the interval (ms). */
  pollInterval?: number;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string; data?: unknown };
  inputRequests?: Record<string, { method?: string; params?: Record<string, unknown> }>;
}

/**
 * Lets a task handle through the SDK, which refuses a result type it does not know: the answer to
 * a `tools/call` with `resultType: "task"` (2026), or to one sent with a `task` parameter and
 * answered with a `CreateTaskResult` (2025), reaches the SDK as a complete result holding the
 * handle in its `_meta` ({@link taskOf} takes it out). A task answering any other request stays
 * as the server sent it, and the SDK refuses it (an invalid response to that request).
 */
export function answerTasksAsResults(transport: Transport): void {
  /** The `tools/call` requests in flight, and whether each asked for a task (2025). */
  const toolCalls = new Map<string | number, boolean>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ("method" in message && message.method === "tools/call" && "id" in message && message.id !== undefined) {
      toolCalls.set(message.id, typeof (message.params as { task?: unknown } | undefined)?.task === "object");
      if (toolCalls.size > 1000) toolCalls.delete(toolCalls.keys().next().value!);
    }
    return send(message, options);
  };
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("id" in message && "result" in message && message.id !== undefined && toolCalls.has(message.id)) {
      const askedForTask = toolCalls.get(message.id);
      toolCalls.delete(message.id);
      const result = message.result as Record<string, unknown>;
      const created = result?.task as Record<string, unknown> | undefined;
      if (result?.resultType === "task" && typeof result.taskId === "string") {
        const { resultType: _task, _meta, ...task } = result;
        message = { ...message, result: { resultType: "complete", content: [], _meta: { ...(_meta as object), [TASK_META]: task } } };
      } else if (askedForTask && created && typeof created === "object" && typeof created.taskId === "string" && result.content === undefined) {
        message = { ...message, result: { content: [], _meta: { ...(result._meta as object), [TASK_META]: created } } };
      }
    }
    receive?.(message, extra);
  };
}

/**
 * Whether a call of a tool with this `execution.taskSupport` is sent as a 2025 task (a `task`
 * parameter): only when the tool requires it and the server declares task-augmented
 * `tools/call` (MCP spec 2025-11-25 "Tasks" → Tool-Level Negotiation). The 2026 era needs no
 * parameter: the server answers with a task when it chooses.
 */
export function sendsAsTask(client: Client, taskSupport: unknown): boolean {
  if (taskSupport !== "required" || client.getProtocolEra() === "modern") return false;
  const tasks = (client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/** The task handle a `tools/call` was answered with, or undefined for a result. */
export function taskOf(result: McpCallResult): TaskState | undefined {
  const task = (result._meta as Record<string, unknown> | undefined)?.[TASK_META];
  return task && typeof task === "object" && typeof (task as TaskState).taskId === "string" ? (task as TaskState) : undefined;
}

/** What {@link followTask} needs besides the client and the task. */
export interface FollowOptions {
  /** Aborts when the shell call stops or times out: `tasks/cancel` is sent, then the abort's reason is thrown. */
  signal: AbortSignal;
  /** Each request's timeout (ms). */
  timeout?: number;
  /** Shows the task's status to the person. */
  report?: (update: { progress: number; message?: string }) => void;
  /** Answers one of the task's questions (the relay's `onElicit`). */
  ask: (params: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>;
  /** The server's log. */
  log: (line: string) => void;
}

/** Accepts any result (the fields read are checked where they are read). */
const ANY = { "~standard": { version: 1 as const, vendor: "toolshell", validate: (value: unknown) => ({ value: value as Record<string, unknown> }) } };

/**
 * Follows `task` until it ends: resolves with the `tools/call` result of a completed task,
 * rejects with the task's JSON-RPC error (failed) or an error saying it was cancelled; when
 * `options.signal` aborts first, sends `tasks/cancel` and rejects with the abort's reason.
 */
export async function followTask(client: Client, task: TaskState, options: FollowOptions): Promise<McpCallResult> {
  const { signal } = options;
  const modern = client.getProtocolEra() === "modern";
  const answered = new Set<string>();
  let polls = 0;
  let shown: string | undefined;
  try {
    for (let state = task; ; ) {
      const message = state.statusMessage ? `${state.status}: ${state.statusMessage}` : state.status;
      if (message !== shown) options.report?.({ progress: ++polls, message: `task ${message}` });
      shown = message;
      if (state.status === "cancelled") throw new Error(`the server cancelled its task ${state.taskId}${state.statusMessage ? `: ${state.statusMessage}` : ""}`);
      if (!modern && (state.status === "completed" || state.status === "failed" || state.status === "input_required")) {
        // 2025: the outcome (or, while it waits for input, the questions and then the outcome)
        // comes through `tasks/result`, which blocks until the task ends: only the shell call's
        // own time limit (the signal) bounds it.
        return (await client.request({ method: "tasks/result", params: { taskId: task.taskId } }, ANY, { signal, timeout: RESULT_WAIT_MS })) as unknown as McpCallResult;
      }
      if (state.status === "completed") return (state.result ?? { content: [] }) as McpCallResult;
      if (state.status === "failed") throw new ProtocolError(state.error?.code ?? -32603, state.error?.message ?? state.statusMessage ?? "the task failed", state.error?.data);
      if (state.status === "input_required") await answerQuestions(client, state, answered, options);
      await sleep(Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, Number(state.pollIntervalMs ?? state.pollInterval) || 1000)), signal);
      state = (await client.request({ method: "tasks/get", params: { taskId: task.taskId } }, ANY, { signal, timeout: options.timeout })) as unknown as TaskState;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
    // Cooperative and eventually consistent: the acknowledgement is awaited briefly, not the end.
    options.log(`the call stopped: sending tasks/cancel for task ${task.taskId}`);
    await client.request({ method: "tasks/cancel", params: { taskId: task.taskId } }, ANY, { timeout: Math.min(options.timeout ?? 5000, 5000) }).catch((e: unknown) => options.log(`tasks/cancel for ${task.taskId} failed: ${(e as Error).message}`));
    throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? "aborted"));
  }
}

/**
 * Follows the task `taskId` an earlier attempt of this call started (a durable step that runs
 * again, docs/sessions.md "Durable steps"): its state is read with `tasks/get` and it is followed
 * as {@link followTask} does; the tool is not called again. A task the server no longer knows
 * (restarted, or past its `ttlMs`) rejects with a ToolCallError saying so: whether its work was
 * done is unknown, so starting it again is left to the person (a new step id).
 */
export async function reattachTask(client: Client, taskId: string, options: FollowOptions): Promise<McpCallResult> {
  options.log(`following task ${taskId}, started by an earlier attempt of this call`);
  let state: TaskState;
  try {
    state = (await client.request({ method: "tasks/get", params: { taskId } }, ANY, { signal: options.signal, timeout: options.timeout })) as unknown as TaskState;
  } catch (error) {
    if (options.signal.aborted) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new ToolCallError("tool_error", `the server's task ${taskId}, started by an earlier attempt of this call, cannot be followed (${why}); the tool is not called again, since its work may have been done: run the step under a new step id to start it anew`, false);
  }
  return followTask(client, { ...state, taskId }, options);
}

/** Answers the questions of an `input_required` task not answered yet, and sends the answers with `tasks/update`. */
async function answerQuestions(client: Client, state: TaskState, answered: Set<string>, options: FollowOptions): Promise<void> {
  const responses: Record<string, ElicitResult> = {};
  for (const [key, request] of Object.entries(state.inputRequests ?? {})) {
    if (answered.has(key)) continue;
    answered.add(key);
    if (request?.method !== "elicitation/create") {
      options.log(`task ${state.taskId} asks ${String(request?.method)}, which toolshell does not answer`);
      continue;
    }
    responses[key] = await options.ask({ mode: "form", ...(request.params ?? {}) } as ElicitRequest["params"], options.signal);
  }
  if (Object.keys(responses).length === 0) return;
  await client.request({ method: "tasks/update", params: { taskId: state.taskId, inputResponses: responses } }, ANY, { signal: options.signal, timeout: options.timeout });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
