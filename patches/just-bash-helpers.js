// ---- toolshell patch (patches/README.md): helpers for trap, ERR/EXIT traps, redirect errors ----
const __tsSignals = { 0: "EXIT", EXIT: "EXIT", ERR: "ERR", DEBUG: "DEBUG", RETURN: "RETURN", 1: "HUP", HUP: "HUP", 2: "INT", INT: "INT", 3: "QUIT", QUIT: "QUIT", 9: "KILL", KILL: "KILL", 13: "PIPE", PIPE: "PIPE", 14: "ALRM", ALRM: "ALRM", 15: "TERM", TERM: "TERM", USR1: "USR1", USR2: "USR2", CHLD: "CHLD" };
function __tsSignal(name) {
  const up = String(name).toUpperCase();
  return __tsSignals[up.startsWith("SIG") ? up.slice(3) : up];
}
function __tsQuote(v) {
  return "'" + v.replace(/'/g, "'\\''") + "'";
}
// trap [-lp] [[action] signal ...]: actions are stored on the shell state; EXIT and ERR run.
function __tsTrap(ctx, args) {
  const st = ctx.state;
  let a = args;
  if (a[0] === "--") a = a.slice(1);
  if (a[0] === "-l") return { stdout: " 1) SIGHUP\t 2) SIGINT\t 3) SIGQUIT\t 9) SIGKILL\t13) SIGPIPE\t14) SIGALRM\t15) SIGTERM\n", stderr: "", exitCode: 0 };
  if (a.length === 0 || a[0] === "-p") {
    const traps = st.tsTraps || {};
    const names = a.length > 1 ? a.slice(1).map(__tsSignal) : Object.keys(traps);
    let out = "";
    for (const n of names) if (n && traps[n] !== undefined) out += `trap -- ${__tsQuote(traps[n])} ${n}\n`;
    return { stdout: out, stderr: "", exitCode: 0 };
  }
  let action = a[0];
  let sigs = a.slice(1);
  if (sigs.length === 0) { sigs = [action]; action = "-"; }
  else if (/^[0-9]+$/.test(action) && __tsSignal(action)) { sigs = a; action = "-"; }
  const next = { ...(st.tsTraps || {}) };
  let err = "";
  for (const sg of sigs) {
    const n = __tsSignal(sg);
    if (!n) { err += `bash: trap: ${sg}: invalid signal specification\n`; continue; }
    if (action === "-") delete next[n];
    else next[n] = action;
  }
  st.tsTraps = next;
  return { stdout: "", stderr: err, exitCode: err ? 1 : 0 };
}
async function __tsRunTrap(interp, action) {
  return interp.executeScript(new Q().parse(action));
}
// ERR: run where errexit would act (not in conditions, && / || lists, negations), not inside
// functions unless set -E; $? is the failed status during the trap and after it.
async function __tsErrTrap(interp, out, code) {
  const st = interp.ctx.state;
  const action = st.tsTraps && st.tsTraps.ERR;
  if (!action || st.tsInErrTrap || (st.callDepth > 0 && !st.options.errtrace)) return false;
  st.tsInErrTrap = true;
  try {
    st.lastExitCode = code;
    st.env.set("?", String(code));
    const r = await __tsRunTrap(interp, action);
    out.appendResult(r, r.stdout);
  } finally {
    st.tsInErrTrap = false;
    st.lastExitCode = code;
    st.env.set("?", String(code));
  }
  return false;
}
// EXIT: run once after the top-level script, whether it ended, exited or stopped on set -e/-u.
async function __tsRunWithExitTrap(interp, ast) {
  let res;
  let exited = null;
  try {
    res = await interp.executeScript(ast);
  } catch (e) {
    if (!(e instanceof G)) throw e;
    exited = e;
  }
  const st = interp.ctx.state;
  const action = st.tsTraps && st.tsTraps.EXIT;
  if (action === undefined) {
    if (exited) throw exited;
    return res;
  }
  delete st.tsTraps.EXIT;
  const code = exited ? exited.exitCode : res.exitCode;
  st.lastExitCode = code;
  st.env.set("?", String(code));
  let tr;
  let trapExit = null;
  try {
    tr = await __tsRunTrap(interp, action);
  } catch (e) {
    if (!(e instanceof G)) throw e;
    trapExit = e;
  }
  const first = exited || res;
  const second = trapExit || tr;
  const acc = (r) => r.internalOutputAccounting;
  const merged = {
    ...(res || {}),
    stdout: first.stdout + second.stdout,
    stderr: first.stderr + second.stderr,
    exitCode: trapExit ? trapExit.exitCode : code,
    env: (tr && tr.env) || (res && res.env) || {},
  };
  if (acc(first) || acc(second)) {
    merged.internalOutputAccounting = {
      stdout: (acc(first)?.stdout ?? 0) + (acc(second)?.stdout ?? 0),
      stderr: (acc(first)?.stderr ?? 0) + (acc(second)?.stderr ?? 0),
    };
  }
  return merged;
}
// A redirect target that does not exist: its directory must (bash does not create it).
async function __tsParentError(e, path, target) {
  const dir = path.slice(0, path.lastIndexOf("/")) || "/";
  try {
    if (!(await e.fs.exists(dir))) return `bash: ${target}: No such file or directory\n`;
    if (!(await e.fs.stat(dir)).isDirectory) return `bash: ${target}: Not a directory\n`;
  } catch {}
  return null;
}
// A subshell starts with no traps; its own EXIT trap runs at its end, still inside it.
async function __tsSubshellTraps(ctx, executeStatement, run) {
  const st = ctx.state;
  const saved = st.tsTraps;
  st.tsTraps = undefined;
  try {
    let res = await run();
    const action = st.tsTraps && st.tsTraps.EXIT;
    if (action !== undefined) {
      st.lastExitCode = res.exitCode;
      st.env.set("?", String(res.exitCode));
      let out = "";
      let err = "";
      let code = res.exitCode;
      try {
        for (const stmt of new Q().parse(action).statements) {
          const r = await executeStatement(stmt);
          out += r.stdout;
          err += r.stderr;
        }
      } catch (e) {
        if (!(e instanceof G)) throw e;
        out += e.stdout;
        err += e.stderr;
        code = e.exitCode;
      }
      res = { ...res, stdout: res.stdout + out, stderr: res.stderr + err, exitCode: code };
    }
    return res;
  } finally {
    st.tsTraps = saved;
  }
}
// The bash message for a filesystem error, or null when the error is not one (limits etc.).
function __tsFsErrorMessage(err) {
  const code = err && (err.code || ((/^(E[A-Z]+)\b/.exec(String(err.message || "")) || [])[1]));
  const messages = { EROFS: "Read-only file system", ENOSPC: "No space left on device", EACCES: "Permission denied", EPERM: "Operation not permitted", ENOENT: "No such file or directory", ENOTDIR: "Not a directory", EISDIR: "Is a directory", EDQUOT: "Disk quota exceeded", EFBIG: "File too large" };
  return messages[code] || null;
}
// H15: one turn of the event loop every __tsYieldEveryMs of script work, process-wide.
// The clock and setImmediate are taken at load: the defense-in-depth layer blocks the globals
// while a script runs, and this is the interpreter's own bookkeeping, not the script's.
const __tsYieldEveryMs = 20;
const __tsClock = performance.now.bind(performance);
const __tsSetImmediate = setImmediate;
let __tsLastYield = 0;
// A stop (a shell call's time limit, a halt) counted in globalThis[Symbol.for("toolshell.stops")]
// makes the next boundary a turn too, so the stopped script halts there, not up to 20 ms later.
// Each script keeps the count it saw (`ctx.state.tsStopsSeen`; awk and sed, which have no shell
// context, share one): a boundary of one script, or an awk inside it, does not use up another's.
const __tsStops = (globalThis[Symbol.for("toolshell.stops")] ??= { n: 0 });
let __tsStopsSeen = __tsStops.n;
function __tsYieldDue(ctx) {
  const now = __tsClock();
  const st = ctx?.state;
  if (st && st.tsStopsSeen === undefined) st.tsStopsSeen = __tsStops.n;
  if (st ? st.tsStopsSeen !== __tsStops.n : __tsStopsSeen !== __tsStops.n) {
    if (st) st.tsStopsSeen = __tsStops.n;
    else __tsStopsSeen = __tsStops.n;
  } else if (now - __tsLastYield < __tsYieldEveryMs) return false;
  __tsLastYield = now;
  return true;
}
function __tsYield() {
  return new Promise((resolve) => __tsSetImmediate(resolve));
}
// Hooks run with the interpreter's context after each turn; one may throw to halt the script.
function __tsAfterYield(ctx) {
  const hooks = globalThis[Symbol.for("toolshell.afterYield")];
  if (hooks) for (const hook of hooks) hook(ctx);
}
// H30: one command that computes without a break inside itself (a regular expression over a long
// input, a sort or uniq of millions of lines, a yq loop) holds the event loop, every session and
// its own time limit with it. Its long loops look here now and then: the first look of a stretch
// without a turn notes the time and asks for a turn (which ends the stretch); a look more than
// __tsHoldMs later stops the command with a limit error.
const __tsHoldMs = 1000;
let __tsHeldSince = -1;
function __tsHeld(what) {
  const now = __tsClock();
  if (__tsHeldSince < 0) {
    __tsHeldSince = now;
    __tsSetImmediate(() => { __tsHeldSince = -1; });
  } else if (now - __tsHeldSince > __tsHoldMs) {
    // toolshell stops the command's shell call too: a command may catch the error below.
    globalThis[Symbol.for("toolshell.onHeld")]?.(what, __tsHoldMs);
    throw new x(`${what} was stopped: it computed for ${__tsHoldMs} ms without a break, holding every other session (a smaller input or a simpler pattern stays under it)`, "time");
  }
}
// H28/H29/H30: the same turns, and the held look, for the chunks, which cannot see this bundle's functions.
globalThis[Symbol.for("toolshell.engineYield")] = { due: __tsYieldDue, yield: __tsYield, after: __tsAfterYield, clock: __tsClock, held: __tsHeld, fsMessage: __tsFsErrorMessage };
// H18: the array a name stands for: the target of a nameref (`local -n r=arr`), else the name.
function __tsArrayName(e, t) {
  if (!e.state.namerefs || !e.state.namerefs.has(t)) return t;
  const r = Fe(e, t);
  return typeof r === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(r) ? r : t;
}
// H19: an assignment-looking word inside `( … )` of an array literal, parsed as the word it is
// (the same way a simple command parses `k=v` given as an argument).
function __tsAssignmentItem(e) {
  const a = e.advance();
  const f = e.parseWordFromString(a.value, a.quoted, a.singleQuoted, !0);
  return e.parseAdjacentWordParts(f.parts, a.end, Re.Assignment);
}
// H20: a command read the stdin it inherited (the script's, a group's, a loop's): it is used up,
// and a descriptor it came from (`done < file`, `<&3`) moves past what was read.
function __tsConsumeGroupStdin(ctx, text) {
  ctx.state.groupStdin = "";
  if (ctx.state.groupStdinSourceFd !== undefined) tn(ctx, ctx.state.groupStdinSourceFd, text.length);
}
// H22: the status of an assignment-only command: that of the last command substitution it ran
// (counted in state.tsSubstitutions), else 0.
function __tsAssignStatus(ctx, before) {
  return (ctx.state.tsSubstitutions ?? 0) !== before ? ctx.state.lastExitCode : 0;
}
// H23: commands that run without the per-command guard: just-bash's own (registered as bundled,
// not as an extension) and toolshell's (marked tsDirect), only while the defense-in-depth layer is off.
function __tsDirect(ctx, cmd) {
  return !ctx.requireDefenseContext && (!cmd.internalIsExtension || cmd.tsDirect === true);
}
// H23: one deadline per exec: a signal aborted by the exec's own signal or at its time limit, made
// once per execution scope, its timer cleared when the scope closes.
const __tsExecSignals = new WeakMap();
function __tsExecSignal(ctx) {
  const scope = ctx.executionScope;
  if (!scope || typeof scope.remainingTimeMs !== "function") return ctx.state.signal;
  let signal = __tsExecSignals.get(scope);
  if (signal) return signal;
  const ac = new AbortController();
  const outer = ctx.state.signal;
  const onAbort = () => ac.abort(outer.reason);
  if (outer) outer.aborted ? onAbort() : outer.addEventListener("abort", onAbort, { once: true });
  const timer = __tsSetTimeout(() => ac.abort(new Error("execution deadline")), Math.max(1, scope.remainingTimeMs()));
  timer.unref?.();
  try {
    scope.registerCleanup(() => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    });
  } catch {}
  signal = ac.signal;
  __tsExecSignals.set(scope, signal);
  return signal;
}
const __tsSetTimeout = setTimeout;
// H24: compiled glob patterns, by pattern text.
const __tsGlobCache = new Map();
// H27: the options a command substitution starts with: the shell's, with `set -e` cleared unless
// `shopt -s inherit_errexit` or POSIX mode keeps it (bash's rule); returns the shell's own options
// object, put back when the substitution ends so a `set` inside it stays inside it.
function __tsSubstitutionOptions(ctx) {
  const st = ctx.state;
  const saved = st.options;
  const keep = st.shoptOptions?.inherit_errexit === true || saved.posix === true;
  st.options = { ...saved, errexit: keep ? saved.errexit : false };
  return saved;
}

// H33: an array subscript holding a substitution (`${a[${a[…]}]}`) is expanded at run time by
// reading its text again, one level at a time; 130,000 levels took a minute. It nests at most 100
// levels, and the levels inside the outermost re-read at most 100,000 characters in all.
const __tsSubscriptLimit = 100;
const __tsSubscriptRereadLimit = 100000;
async function __tsSubscript(e, text, expand) {
  const depth = (e.tsSubscriptDepth ?? 0) + 1;
  if (depth > __tsSubscriptLimit) throw new x(`array subscript nesting limit exceeded (${__tsSubscriptLimit})`, "substitution_depth");
  e.tsSubscriptReread = depth === 1 ? 0 : e.tsSubscriptReread + text.length;
  if (e.tsSubscriptReread > __tsSubscriptRereadLimit) {
    throw new x(`array subscripts inside array subscripts re-read more than ${__tsSubscriptRereadLimit} characters`, "substitution_depth");
  }
  e.tsSubscriptDepth = depth;
  try {
    return await expand(e, text);
  } finally {
    e.tsSubscriptDepth = depth - 1;
  }
}
