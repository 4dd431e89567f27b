/**
 * The junction matrix: the user paths every surface must take the same way, over every tool
 * kind. A surface is a driver (drivers/): it runs a script as that surface's user does and has
 * the person answer an approval (or a server's question) as that surface lets them. A path is a
 * row: what happens and what must come out, the same on every surface. Add a row here and every
 * surface runs it; add a driver and it runs every row.
 *
 * Where a surface cannot take a path at all, its driver says so in `notApplicable` with the
 * reason, and the matrix states that cell (it registers no test that pretends to run it); the
 * file's "matrix" test checks every such cell names a reason and that the driver indeed lacks
 * what the path needs, so a driver that gains it must run the row.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { Decision } from "../../src/index.js";
import { eventually } from "../fixtures/eventually.js";
import type { StreamMessage } from "../fixtures/event-stream.js";
import { TOOL_KINDS, type ToolKind } from "./kinds.js";
import { FILES_BOUND, OUTPUT_BOUND, plantSession, SECRETS, type World } from "./world.js";

/** What one turn of a surface came to. */
export interface Turn {
  /** How many approval cards (or questions, for {@link Surface.question}) the person was shown. */
  asked: number;
  /** What the agent (or the user) finally got from the script: its stdout and stderr. */
  stdout: string;
  stderr: string;
  /** Approval requests of the session still pending after the turn. */
  pending: number;
}

/** A session event as a surface lists it (the store's JSON form). */
export type ListedEvent = { type: string } & Record<string, unknown>;

/** One run of a durable step: what came out, and the approval requests it waits on. */
export interface StepRun {
  stdout: string;
  stderr: string;
  /** The stop report's `stopped`, if the script stopped. */
  stopped?: { reason?: string; request_id?: string; before_start?: boolean };
}

/** One surface, as its user drives it. */
export interface Surface {
  name: string;
  /**
   * Runs `script` in the surface's session the way its user does; when a call waits for a
   * person's approval, the person answers `decision` (through the surface's own way of
   * answering), and the surface goes on as its docs say.
   */
  turn(script: string, decision: Decision): Promise<Turn>;
  /** The session's events as the surface (or the person behind it) lists them. */
  events(): Promise<ListedEvent[]>;
  /**
   * Runs `script`; when a tool asks the person a question, the person answers `content`
   * (accept) the surface's way. Absent when nobody can answer on this surface: the question is
   * then declined and the call fails saying why (docs/mcp.md "Elicitation relay").
   */
  question?(script: string, content: Record<string, unknown>): Promise<Turn>;
  /** Runs `script`; the progress messages the person saw while it ran, the surface's way. */
  progress(script: string): Promise<Turn & { seen: string[] }>;
  /**
   * Sign-in to an MCP server that uses OAuth (README "Sign-in"), the surface's way: runs
   * `script` (it calls `server`, which nobody signed in to), has the person sign in as the
   * surface offers it, and runs `script` again. `way` matches what the surface offers the person
   * (the CLI: `toolshell auth SERVER`; the gateway: a URL elicitation; the API: `GET /v1/sign-ins`).
   */
  signIn?: {
    way: (server: string) => RegExp;
    run(script: string, server: string): Promise<SignInTurn>;
  };
  /** Durable steps with an id the user gives (docs/sessions.md "Durable steps"). */
  step?: {
    run(script: string, stepId: string): Promise<StepRun>;
    answer(requestId: string, decision: Decision): Promise<void>;
    pending(): Promise<number>;
    /** Each step's status as the surface lists the session's steps (the API, the console's session page). */
    listed?(): Promise<Record<string, string>>;
  };
  /** The session's events pushed as server-sent events, from the start or after `lastEventId`. */
  stream?(lastEventId?: string): Promise<{ messages: StreamMessage[]; close(): void }>;
}

/** What a sign-in through a surface came to. */
export interface SignInTurn {
  /** The run before sign-in. */
  before: { stdout: string; stderr: string };
  /** What the surface offered the person to sign in (a message, a listing, an elicitation), as text. */
  offered: string;
  /** The same run after the person signed in. */
  after: { stdout: string; stderr: string };
}

/** The rows a surface may declare it cannot take, each with the reason. */
export type OptionalRow = "resumed step" | "sign-in" | "session owner";

/** One user path: run against a surface and a tool kind, with ids of its own. */
export interface PathRow {
  name: string;
  /** Set on rows a surface may lack (see {@link Surface} and `notApplicable`). */
  needs?: OptionalRow;
  /** Set on rows that apply to some tool kinds only. */
  kinds?: (kind: ToolKind) => boolean;
  /** `open` opens another session on the surface, as its user (or as an agent's, see {@link Opened.agent}). */
  run(surface: Surface, kind: ToolKind, world: World, id: (n: number) => string, open: (session: string) => Promise<Surface>): Promise<void>;
}

const ranCount = (world: World, line: string) => world.ran().filter((l) => l === line).length;
const text = (t: { stdout: string; stderr: string }) => `${t.stdout}\n${t.stderr}`;

export const PATHS: PathRow[] = [
  {
    name: "approve once: the call runs once; the same call asks again",
    async run(surface, kind, world, id) {
      const first = await surface.turn(kind.call(id(1)), "allow");
      assert.equal(first.asked, 1, "the person is asked once");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1, "the approved call ran once");
      assert.match(first.stdout, new RegExp(kind.output(id(1))));
      assert.equal(first.pending, 0, "nothing stays pending");
      const again = await surface.turn(kind.call(id(1)), "allow");
      assert.equal(again.asked, 1, "allow covers one call: the same call asks again");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 2);
    },
  },
  {
    name: "approve always: the call runs; the tool then runs without asking",
    async run(surface, kind, world, id) {
      const first = await surface.turn(kind.call(id(1)), "allow_always");
      assert.equal(first.asked, 1);
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1);
      assert.match(first.stdout, new RegExp(kind.output(id(1))));
      const other = await surface.turn(kind.call(id(2)), "reject");
      assert.equal(other.asked, 0, "allow_always: another input of the tool is not asked about");
      assert.equal(ranCount(world, kind.ranLine(id(2))), 1);
      assert.equal(other.pending, 0);
    },
  },
  {
    name: "reject: nothing runs; the same call again is refused without asking",
    async run(surface, kind, world, id) {
      const r = await surface.turn(kind.call(id(1)), "reject");
      assert.equal(r.asked, 1);
      assert.equal(ranCount(world, kind.ranLine(id(1))), 0, "a rejected call never runs");
      assert.doesNotMatch(r.stdout, new RegExp(kind.output(id(1))));
      // The refusal was stored where the next call looks it up: it answers denied, asking nobody.
      const again = await surface.turn(kind.call(id(1)), "allow");
      assert.equal(again.asked, 0, "a refused call is not asked about again");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 0);
      assert.match(again.stderr, /denied|refused/);
      assert.equal(again.pending, 0, "nothing stays pending");
    },
  },
  {
    name: "a question from a server: the person's answer reaches the tool, or it is declined saying why",
    async run(surface, kind) {
      // Every kind's asking tool asks the same question: "Which name?" with a `name` field.
      if (surface.question) {
        const r = await surface.question(kind.ask, { name: "Ada" });
        assert.equal(r.asked, 1, "the person is asked once");
        assert.match(r.stdout, /name: Ada/, `the answer reached the tool: ${text(r)}`);
      } else {
        const r = await surface.turn(kind.ask, "allow");
        assert.doesNotMatch(r.stdout, /name:/);
        assert.match(text(r), /nobody can answer/, `the call fails saying the question was declined and why: ${text(r)}`);
      }
      const events = await surface.events();
      assert.ok(events.some((e) => e.type === "question.asked"), "question.asked is listed");
      const answered = events.find((e) => e.type === "question.answered");
      assert.equal(answered?.action, surface.question ? "accept" : "decline");
    },
  },
  {
    name: "progress: the person sees each step while the call runs; the events list it",
    async run(surface, kind) {
      const r = await surface.progress(kind.steps(3));
      assert.match(r.stdout, /3 steps/, text(r));
      for (const step of ["step 1", "step 2", "step 3"]) assert.ok(r.seen.some((s) => s.includes(step)), `the person saw "${step}": ${JSON.stringify(r.seen)}`);
      const events = await surface.events();
      const progress = events.filter((e) => e.type === "tool.progress").map((e) => e.message);
      assert.deepEqual(progress.filter((m) => /^step \d$/.test(String(m))), ["step 1", "step 2", "step 3"]);
    },
  },
  {
    name: "events listed: the shell calls, the approval asked and answered, the nested call completed",
    async run(surface, kind, world, id) {
      await surface.turn(kind.call(id(1)), "allow");
      const events = await surface.events();
      const completed = events.filter((e) => e.type === "tool.nested_call" && e.status === "completed" && String(e.input_preview ?? "").includes(id(1)));
      assert.equal(completed.length, kind.literal ? 1 : 2, `the approved call (and the saved script around it) listed completed: ${JSON.stringify(events.filter((e) => e.type === "tool.nested_call"))}`);
      const requested = events.filter((e) => e.type === "approval.requested");
      assert.equal(requested.length, 1, "the approval asked is listed");
      const answered = events.filter((e) => e.type === "approval.answered");
      assert.deepEqual(answered.map((e) => [e.request_id, e.decision]), [[requested[0].request_id, "allow"]], "the person's answer is listed");
      // One session never has two shell calls with one id (the audit timeline hangs nested calls
      // under it); a durable step resumed after its approval goes on as its own shell call, under
      // its id, and says so first (`step.resumed`, docs/sessions.md "Durable steps").
      const ended = events.filter((e) => e.type === "shell_call.ended").map((e) => String(e.tool_call_id));
      assert.ok(ended.length >= 1, `the shell calls are listed: ${ended.join(", ")}`);
      const resumed = events.filter((e) => e.type === "step.resumed").map((e) => String(e.tool_call_id));
      const calls = ended.filter((id, i) => ended.indexOf(id) === i || !resumed.includes(id));
      assert.equal(new Set(calls).size, calls.length, `shell call ids are unique in the session: ${ended.join(", ")}`);
    },
  },
  {
    name: "sign-in: a call before sign-in answers connection_required with the surface's way to sign in; once signed in the same call runs",
    needs: "sign-in",
    kinds: (kind) => kind.oauth === true,
    async run(surface, kind, world) {
      const server = world.freshSignIn();
      const authorizations = world.oauth.counts.authorizations;
      const r = await surface.signIn!.run(`tools ${server} steps n=1`, server);
      assert.match(text(r.before), /connection_required/, `before sign-in: ${text(r.before)}`);
      assert.doesNotMatch(r.before.stdout, /1 steps/, "nothing ran before sign-in");
      assert.match(r.offered, surface.signIn!.way(server), "the surface offers its way to sign in");
      assert.ok(world.oauth.counts.authorizations > authorizations, "the person went through the authorization server");
      assert.match(r.after.stdout, /1 steps/, `after sign-in the same call runs: ${text(r.after)}`);
      assert.doesNotMatch(text(r.after), /connection_required/);
    },
  },
  {
    name: "resumed step: a step waiting for approval runs once answered, then answers from its record",
    needs: "resumed step",
    async run(surface, kind, world, id) {
      const step = surface.step!;
      const stepId = `step-${id(1)}`;
      const first = await step.run(kind.call(id(1)), stepId);
      assert.equal(first.stopped?.reason, "needs_approval", text(first));
      const requestId = first.stopped!.request_id!;
      const waiting = await step.run(kind.call(id(1)), stepId);
      assert.equal(waiting.stopped?.request_id, requestId, "asked again while pending: the same report, no new request");
      assert.equal(await step.pending(), 1);
      await step.answer(requestId, "allow");
      const resumed = await step.run(kind.call(id(1)), stepId);
      // Stopped before it started (a literal call) or where the call was reached (a saved
      // script's): either way the step waited, and now runs on with the answer, the call once.
      assert.match(resumed.stdout, new RegExp(kind.output(id(1))), text(resumed));
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1);
      const recorded = await step.run(kind.call(id(1)), stepId);
      assert.equal(recorded.stdout, resumed.stdout, "a completed step answers from its record");
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1, "and runs nothing again");
    },
  },
  {
    name: "session owner: another principal's session is refused; its answers never cover this user's call",
    needs: "session owner",
    kinds: (kind) => kind.name === "local tool",
    async run(_surface, kind, world, id, open) {
      // Another principal made the session, answered allow_always there, and its call ran once.
      const theirs = `${id(1)}-theirs`;
      await plantSession(world, theirs, "intruder", kind.call(id(1)));
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1);
      let r: { stdout: string; stderr: string };
      try {
        r = await (await open(theirs)).turn(kind.call(id(1)), "reject");
      } catch (err) {
        r = { stdout: "", stderr: err instanceof Error ? err.message : String(err) };
      }
      assert.equal(ranCount(world, kind.ranLine(id(1))), 1, `the call never ran under the other principal's answer: ${text(r)}`);
      assert.match(text(r), /principal \\?"intruder\\?"/, `the refusal names whose session it is: ${text(r)}`);
    },
  },
  {
    name: "broken tool file: only its own tool is not available, saying which file and why; the other tools run",
    kinds: (kind) => kind.name === "local tool",
    async run(surface) {
      const r = await surface.turn("tools broken-local; tools steps-local n=1", "allow");
      assert.match(r.stderr, /broken_local\.mjs: failed to load: the junction service key is not configured/, text(r));
      assert.match(r.stderr, /"code":"unavailable"/, text(r));
      assert.match(r.stdout, /1 steps/, `the other local tool ran in the same script: ${text(r)}`);
      const listed = await surface.turn("tools --help", "allow");
      assert.match(listed.stdout, /broken[-_]local[^\n]*Not available: broken_local\.mjs did not load/, text(listed));
      assert.match(listed.stdout, /remove-local/);
    },
  },
  {
    name: "compound secrets: a DSN's password and a `password=` value from the config are redacted in output and events",
    kinds: (kind) => kind.name === "local tool",
    async run(surface) {
      const r = await surface.turn(`echo "${[...SECRETS.parts, ...SECRETS.words].join(" ")}"`, "allow");
      for (const part of SECRETS.parts) assert.ok(!text(r).includes(part), `the output showed ${part}: ${text(r)}`);
      assert.equal(r.stdout.match(/\[REDACTED\]/g)?.length, SECRETS.parts.length, `each part was redacted: ${r.stdout}`);
      for (const word of SECRETS.words) assert.ok(r.stdout.includes(word), `control: the word ${word} shows: ${r.stdout}`);
      const events = JSON.stringify(await surface.events());
      for (const part of SECRETS.parts) assert.ok(!events.includes(part), `the events hold ${part}`);
    },
  },
  {
    name: "server log: a secret a stdio server writes on stderr is in the host's log file of that server only redacted",
    kinds: (kind) => kind.name === "MCP over stdio",
    async run(surface, _kind, world, id) {
      const r = await surface.turn(`tools jstdio confess id=${id(1)}`, "allow");
      assert.match(r.stdout, /confessed/, text(r));
      const file = path.join(world.dir, "logs", "jstdio.log");
      // The line is written when the server's stderr line ends (by the host, in its own process).
      const log = await eventually("the server's stderr line in its log file", () => {
        const t = existsSync(file) ? readFileSync(file, "utf8") : "";
        return t.includes(`junction-server: ${id(1)} connecting with `) ? t : undefined;
      });
      for (const part of SECRETS.parts) assert.ok(!log.includes(part), `the log file holds ${part}`);
      // The server's env value is a secret whole (its password a part of it): the line keeps its words, the value is gone.
      assert.ok(log.includes(`junction-server: ${id(1)} connecting with [REDACTED]`), `control: the rest of the line is there: ${log.slice(-600)}`);
      assert.ok(!log.includes(SECRETS.env.JUNCTION_DSN), "the connection string is not in the log");
    },
  },
  {
    name: "output bound: a script printing past maxOutputBytes stops there, says so, keeps nothing past it; the session goes on",
    kinds: (kind) => kind.name === "local tool",
    async run(surface) {
      // ~130 KB of numbered lines, twice the bound; nothing after the loop may run.
      const r = await surface.turn('for i in $(seq 1 3000); do echo "bound line $i 0123456789012345678901234567890"; done; echo after-the-bound', "allow");
      assert.match(text(r), new RegExp(`toolshell: output passed maxOutputBytes \\(${OUTPUT_BOUND} bytes\\); the script was stopped`), text(r).slice(-500));
      assert.doesNotMatch(text(r), /after-the-bound/, "the script stopped at the bound");
      assert.match(r.stdout, /bound line 1 /, "the output up to the bound is kept");
      assert.doesNotMatch(text(r), /bound line 3000 /, "nothing past the bound is shown");
      assert.ok(Buffer.byteLength(r.stdout) <= OUTPUT_BOUND, `stdout is within the bound: ${Buffer.byteLength(r.stdout)} bytes`);
      const events = JSON.stringify(await surface.events());
      assert.ok(!events.includes("bound line 3000 "), "nothing past the bound is in the events");
      const next = await surface.turn("echo still-here", "allow");
      assert.match(next.stdout, /still-here/, `the session's next call runs as usual: ${text(next)}`);
    },
  },
  {
    name: "session files: a write past maxSessionFileBytes fails as on a full disk and the call says which bound; what fit stays for the next call; removing files makes room",
    kinds: (kind) => kind.name === "local tool",
    async run(surface) {
      // Under /tmp: a real folder mounted as the workspace is not counted. 60,000 bytes (within the
      // output bound) copied until the bound refuses a copy.
      const r = await surface.turn(`mkdir -p /tmp/jf && printf '%060000d' 0 > /tmp/jf/a && for i in $(seq 1 30); do cp /tmp/jf/a /tmp/jf/a$i 2>/dev/null || break; done; echo "files: $(ls /tmp/jf | wc -l)"`, "allow");
      assert.ok(r.stderr.includes(`toolshell: the session's files reached maxSessionFileBytes (${FILES_BOUND} bytes), so a write failed (No space left on device)`), text(r).slice(-500));
      const files = Number(/files: (\d+)/.exec(r.stdout)?.[1]);
      assert.ok(files > 1 && files < 18, `copies stopped at the bound: ${r.stdout}`);
      const next = await surface.turn(`echo "kept: $(ls /tmp/jf | wc -l)"; rm /tmp/jf/a1*; cp /tmp/jf/a /tmp/jf/again && echo room`, "allow");
      assert.match(next.stdout, new RegExp(`^kept: ${files}\nroom\n$`), `the files that fit are the session's next call's: ${text(next)}`);
      assert.doesNotMatch(next.stderr, /maxSessionFileBytes/, "control: a call that fits adds no line");
    },
  },
  {
    name: "nested text: a script built to nest 20,000 substitutions is refused by the parser's bound (docs/security.md, script size), not read level by level; the session goes on",
    kinds: (kind) => kind.name === "local tool",
    async run(surface) {
      // 20,000 openings and closings built in variables (printed, they would pass the output bound).
      const r = await surface.turn(`printf -v a '%20000s' ''; o=\${a// /\\$(echo }; c=\${a// /)}; echo \${#o}; eval "echo $o hi$c"; echo "eval: $?"`, "allow");
      assert.match(r.stderr, /Too much nested text: substitutions inside substitutions re-read more than \d+ characters/, text(r).slice(-500));
      assert.match(r.stdout, /^140000\neval: [1-9]\n$/, "the script went on after the refused eval");
      const next = await surface.turn("echo $(echo $(echo still-here))", "allow");
      assert.match(next.stdout, /still-here/, `control: nesting as scripts do runs: ${text(next)}`);
    },
  },
];

/** What a surface's test file gives the matrix. */
export interface Opened {
  world: World;
  surface: (session: string) => Promise<Surface>;
  /**
   * The surface as an agent-role token's user, where the surface's own user is an operator
   * (who reaches every session by design): the "session owner" row opens through it.
   */
  agent?: (session: string) => Promise<Surface>;
}

/**
 * Registers the matrix for one surface: a test per tool kind × path, each in a session of its own
 * (an `allow_always` of one path must not answer for another). `open` gives the world and the
 * surface's factory (made once per file, so servers and hosts are shared). `notApplicable`
 * names the rows this surface cannot take, each with the reason; `kinds` narrows the kinds and
 * `cells` the kind × row cells (say why where it is called).
 */
export function junctionMatrix(
  surfaceName: string,
  open: () => Promise<Opened>,
  options: { kinds?: ToolKind[]; paths?: PathRow[]; cells?: (kind: ToolKind, row: PathRow) => boolean; notApplicable?: Partial<Record<OptionalRow, string>> } = {},
): void {
  let n = 0;
  const notApplicable = options.notApplicable ?? {};
  const rows = options.paths ?? PATHS;
  for (const kind of options.kinds ?? TOOL_KINDS) {
    for (const row of rows) {
      // Ids and sessions of their own per surface too: several surfaces share one world's log and store.
      const prefix = `${surfaceName.toLowerCase().replace(/[^a-z0-9]+/g, "")}${++n}x`;
      if (row.needs && notApplicable[row.needs]) continue;
      if (row.kinds && !row.kinds(kind)) continue;
      if (options.cells && !options.cells(kind, row)) continue;
      test(`${surfaceName} × ${kind.name}: ${row.name}`, async () => {
        const { surface, world, agent } = await open();
        await row.run(await surface(`junction-${prefix}`), kind, world, (i) => `${prefix}${i}`, agent ?? surface);
      });
    }
  }
  // The cells this surface does not take, stated with their reasons (see the file's comment).
  test(`${surfaceName}: matrix (not applicable: ${Object.entries(notApplicable).map(([row, why]) => `${row} — ${why}`).join("; ") || "none"})`, async () => {
    const { surface } = await open();
    const s = await surface(`junction-${surfaceName.toLowerCase().replace(/[^a-z]+/g, "")}-matrix`);
    for (const [row, why] of Object.entries(notApplicable)) {
      assert.ok(why && why.length > 10, `${row}: the reason is stated`);
      if (row === "resumed step") assert.equal(s.step, undefined, `${surfaceName} drives steps: run the "resumed step" row instead of declaring it not applicable`);
      if (row === "sign-in") assert.equal(s.signIn, undefined, `${surfaceName} drives sign-in: run the "sign-in" row instead of declaring it not applicable`);
    }
  });
}
