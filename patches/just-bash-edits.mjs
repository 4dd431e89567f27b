#!/usr/bin/env node
// Applies toolshell's interpreter fixes to a clean just-bash 3.4.2 (its ESM bundle,
// dist/bundle/index.js) and appends patches/just-bash-helpers.js plus the engine id. It is
// how patches/just-bash+3.4.2.patch was made (see patches/README.md); it does not run at
// install time. Each rep(old, new) is one exact replacement that must match exactly once.
//
//   node patches/just-bash-edits.mjs <folder of a clean just-bash 3.4.2>
//   node patches/just-bash-edits.mjs --id      (prints the engine id these edits produce)
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const helpers = readFileSync(path.join(here, "just-bash-helpers.js"), "utf8");
const edits = readFileSync(fileURLToPath(import.meta.url), "utf8");

/** The engine id: just-bash's version and a digest of these edits and the helpers. */
export const engineId = `just-bash@3.4.2+toolshell.${createHash("sha256").update(edits).update(helpers).digest("hex").slice(0, 12)}`;

let s = "";
function rep(old, replacement) {
  const n = s.split(old).length - 1;
  if (n !== 1) throw new Error(`expected one match, found ${n}: ${old.slice(0, 80)}`);
  s = s.replace(old, () => replacement);
}

// The turn functions of the main bundle, as the chunks reach them (they cannot see its names).
const ENGINE_YIELD = 'const __tsE=()=>globalThis[Symbol.for("toolshell.engineYield")];';

/**
 * Edits of the bundle's chunks (dist/bundle/chunks/<file>): each file's [old, new] replacements,
 * applied one after another, and the text appended to it.
 */
const chunkEdits = {
  "chunk-KVG5FR5F.js": {
    edits: [
      // H25 (speed only): a regular expression's RE2 program is compiled once per pattern and flags
      // and kept (a small process-wide cache of patterns under 1,000 characters): grep, sed, awk and
      // globs compiled it again on every call. RE2 programs are immutable; each use has its own matcher.
      ["this._re2=_.compile(n,r)", "this._re2=__tsRe2Compile(n,r,()=>_.compile(n,r))"],
      // H30: RE2's matching loops (its NFA, a step per character over every live thread, and its
      // DFA) count their work and look, every 65,536 units, at how long the event loop has been held.
      ["for(e===0?S=C.emptyOpContext(-1,h):S=t.context(e);;){if(r.isEmpty()){",
        "for(e===0?S=C.emptyOpContext(-1,h):S=t.context(e);;){if((__tsRxN+=r.size+1)>65535)__tsRxLook();if(r.isEmpty()){"],
      ["let a=e;for(;a<n;){let o=t.step(a),h=o>>3,p=o&7;", "let a=e;for(;a<n;){if(++__tsRxN>65535)__tsRxLook();let o=t.step(a),h=o>>3,p=o&7;"],
    ],
    appended: "const __tsRe2Cache=new Map();function __tsRe2Compile(p,f,c){if(p.length>=1000)return c();const k=`${f}\\0${p}`;let r=__tsRe2Cache.get(k);if(r)return r;r=c();__tsRe2Cache.size>=256&&__tsRe2Cache.clear();__tsRe2Cache.set(k,r);return r}\n" +
      `${ENGINE_YIELD}let __tsRxN=0;function __tsRxLook(){__tsRxN=0;__tsE().held("a regular expression match")}\n`,
  },
  // H28: awk gives the event loop a turn every 20 ms of work too (before each statement, the
  // H15 rule of the shell), and after the turn a stopped shell call (its time limit) or a full
  // heap stops awk with a limit error: an awk loop froze the whole process for as long as it
  // ran, past the shell call's time limit.
  "chunk-3CBCABOZ.js": {
    edits: [['async function H(e,t){switch(D(e,"single statement execution"),',
      'async function H(e,t){if(__tsE().due())await __tsAwkTurn(e);switch(D(e,"single statement execution"),']],
    appended: `${ENGINE_YIELD}async function __tsAwkTurn(e){await __tsE().yield();__tsE().after({executionScope:{consumeLimited(){throw new w("stopped: its shell call ended (its time limit, or the host's memory)","iterations",e.output)}}})}\n`,
  },
  // H29: sed gives the event loop a turn every 20 ms of work (before each cycle over a line) and
  // stops when its shell call has ended, as awk does (H28); one cycle's own loop (`:a;…;ba`),
  // which runs without a turn, is stopped after __tsSedCycleMs of work.
  "chunk-CFBEDNHJ.js": {
    edits: [
      ["do{if(Y++,Y>fe)break;",
        'do{if(__tsE().due()){await __tsE().yield();__tsE().after({executionScope:{consumeLimited(){throw new x("stopped: its shell call ended (its time limit, or the host\'s memory)","iterations")}}})}if(Y++,Y>fe)break;'],
      ["function Z(i,e,t,n){", "function Z(i,e,t,n){let __tsT0=__tsE().clock();"],
      ["for(;u<i.length;){if(r++,r>a)throw new x(",
        "for(;u<i.length;){if((r&63)===63&&__tsE().clock()-__tsT0>__tsSedCycleMs)throw new x(`one cycle over a line ran ${__tsSedCycleMs} ms of work without ending (a loop that does not end?)`,\"iterations\");if(r++,r>a)throw new x("],
    ],
    appended: `${ENGINE_YIELD}const __tsSedCycleMs=1000;\n`,
  },
  // H30: the query engine (yq, xan's expressions) looks at the held time every 4,096 evaluations.
  "chunk-6KK46B7Q.js": {
    edits: [['function d(e,n,t){let r=t&&"vars"in t?t:tt(t);', 'function d(e,n,t){if(++__tsQN>4095)__tsQN=0,__tsE().held("a query (yq)");let r=t&&"vars"in t?t:tt(t);']],
    appended: `${ENGINE_YIELD}let __tsQN=0;\n`,
  },
  // H30: sort looks every 4,096 comparisons, uniq every 4,096 lines.
  "chunk-6R4OQQWP.js": {
    edits: [["n.sort(d),e.unique", "n.sort((a,b)=>(++__tsSN>4095&&(__tsSN=0,__tsE().held(\"sort\")),d(a,b))),e.unique"]],
    appended: `${ENGINE_YIELD}let __tsSN=0;\n`,
  },
  "chunk-B3NGH6KE.js": {
    edits: [["for(let e=1;e<t.length;e++)O(t[e],i)?", "for(let e=1;e<t.length;e++)(e&4095)===0&&__tsE().held(\"uniq\"),O(t[e],i)?"]],
    appended: `${ENGINE_YIELD}\n`,
  },
  // H34: tee and split say why a write failed (a full disk: `No space left on device`, as GNU
  // does): tee reported every failure as a missing folder, split as "failed to write output".
  "chunk-LSLPJOYM.js": {
    edits: [["catch{s+=`tee: ${i}: No such file or directory\n`,a=1}", "catch(__e){s+=`tee: ${i}: ${__tsE().fsMessage(__e)||\"No such file or directory\"}\n`,a=1}"]],
    appended: `${ENGINE_YIELD}\n`,
  },
  "chunk-XPDOK3XY.js": {
    edits: [
      ["}catch{for(let r of[...m].reverse())r.committed", "}catch(__e){for(let r of[...m].reverse())r.committed"],
      ["stderr:`split: failed to write output\n`", "stderr:`split: failed to write output${__tsE().fsMessage(__e)?`: ${__tsE().fsMessage(__e)}`:\"\"}\n`"],
    ],
    appended: `${ENGINE_YIELD}\n`,
  },
  // H32: html-to-markdown refuses HTML nested deeper than 1,000 elements before turndown parses
  // it: its parser's work grows with the square of the nesting (4,000 nested <b> held the event
  // loop for 3-11 s, then failed out of stack), inside one call no turn check can reach.
  "chunk-QE275OWT.js": {
    edits: [["let t=e.turndown(r).trim()", "__tsHtmlDepth(r);let t=e.turndown(r).trim()"]],
    appended: "const __tsVoid=new Set([\"area\",\"base\",\"br\",\"col\",\"embed\",\"hr\",\"img\",\"input\",\"link\",\"meta\",\"param\",\"source\",\"track\",\"wbr\"]);" +
      "function __tsHtmlDepth(h){let d=0,m;const re=/<(\\/?)([A-Za-z][A-Za-z0-9-]*)([^<>]*)>/g;while((m=re.exec(h))!==null){if(m[1])d=d>0?d-1:0;else if(!m[3].endsWith(\"/\")&&!__tsVoid.has(m[2].toLowerCase())&&++d>1000)throw new Error(\"the HTML is nested deeper than 1000 elements\")}}\n",
  },
};

function applyEdits() {
  // H1: command word goes through the same expansion as arguments (split, "$@", arrays, globs)
  rep('let u=await se(this.ctx,t.name),f=[],d=[],',
      'let __tsw=await gt(this.ctx,t.name),u=__tsw.values.length?__tsw.values[0]:"",f=[],d=[],')
  rep('let m=t.name.parts.every(P=>P.type==="CommandSubstitution"||P.type==="ParameterExpansion"||P.type==="ArithmeticExpansion");',
      '__tsw.values.length>1&&(f.unshift(...__tsw.values.slice(1)),d.unshift(...__tsw.values.slice(1).map(()=>__tsw.quoted)));let m=__tsw.values.length===0||t.name.parts.every(P=>P.type==="CommandSubstitution"||P.type==="ParameterExpansion"||P.type==="ArithmeticExpansion");')

  // H2: "${v:-x}" alone in double quotes must not trip set -u
  rep('else{let l=r.parameter,c=await St(e,l),u=await ie(e,l),',
      'else{let l=r.parameter,c=await St(e,l),u=await ie(e,l,!1),')

  // H3: redirecting onto a path whose directory is missing fails like bash (nothing created)
  rep('async function Eh(e,t,n,r){try{if(!await e.fs.exists(t))return null;',
      'async function Eh(e,t,n,r){try{if(!await e.fs.exists(t))return await __tsParentError(e,t,n);')

  // H4: the trap builtin
  rep('async function df(e,t,n,r,s,i,o,a,l=!1){let{ctx:c,runCommand:u}=e;',
      'async function df(e,t,n,r,s,i,o,a,l=!1){let{ctx:c,runCommand:u}=e;if(t==="trap")return __tsTrap(c,n);')

  // H5: ERR trap where errexit would act
  rep('if(this.ctx.state.errexitSafe=o||i||a,this.ctx.state.options.errexit&&r!==0&&',
      'if(this.ctx.state.errexitSafe=o||i||a,r!==0&&s===t.pipelines.length-1&&!i&&!this.ctx.state.inCondition&&!a&&await __tsErrTrap(this,n,r),this.ctx.state.options.errexit&&r!==0&&')

  // H6: EXIT trap after the top-level script
  rep('N=await new kr(k,m).executeScript(S);', 'N=await __tsRunWithExitTrap(new kr(k,m),S);')


  // H7: a subshell has its own traps; its EXIT trap runs at its end, inside it
  rep('async function Om(e,t,n,r,s){(s||n)&&(e.state.groupStdin=n);',
      'async function Om(e,t,n,r,s){return __tsSubshellTraps(e,r,()=>__tsOm(e,t,n,r,s))}async function __tsOm(e,t,n,r,s){(s||n)&&(e.state.groupStdin=n);')

  // H8: a loop left by `break` has status 0 (the status of break)
  rep('n.replace(l.stdout,l.stderr),l.action==="break")break;', 'n.replace(l.stdout,l.stderr),l.action==="break"){r=0;break}')
  rep('r.replace(a.stdout,a.stderr),a.action==="break")break;', 'r.replace(a.stdout,a.stderr),a.action==="break"){s=0;break}')
  rep('s.replace(h.stdout,h.stderr),h.action==="break")break;', 's.replace(h.stdout,h.stderr),h.action==="break"){i=0;break}')
  rep('s.replace(f.stdout,f.stderr),f.action==="break")break;', 's.replace(f.stdout,f.stderr),f.action==="break"){i=0;break}')

  // H9: a non-interactive shell ends with status 127 on set -u and ${v:?} errors, like bash -c
  rep('if(i instanceof Ve)return r.append("stdout",i.stdout,i.internalOutputAccounting.stdout),r.append("stderr",i.stderr,i.internalOutputAccounting.stderr),n=1,',
      'if(i instanceof Ve)return r.append("stdout",i.stdout,i.internalOutputAccounting.stdout),r.append("stderr",i.stderr,i.internalOutputAccounting.stderr),n=127,')
  rep(':`${t}: parameter null or not set`;throw new G(1,"",`bash: ${o}', ':`${t}: parameter null or not set`;throw new G(127,"",`bash: ${o}')

  // H10: `return` outside a function fails with status 2; `[ 1 -eq x ]` says why it failed
  rep('return D("bash: return: can only `return\' from a function or sourced script\\n");',
      'return D("bash: return: can only `return\' from a function or sourced script\\n",2);')
  rep('return!o.valid||!a.valid?L("","",2):be(ys(s,o.value,a.value))',
      'return!o.valid||!a.valid?L("",`bash: test: ${o.valid?i:r}: integer expression expected\\n`,2):be(ys(s,o.value,a.value))')

  // H11: $(...) and `...` inside $(( )) run in the current shell (functions visible), like other substitutions
  rep('if(e.execFn){let u=await e.execFn(c,{signal:e.state.signal});i+=u.stdout.replace(/\\n+$/,""),u.stderr&&(e.state.expansionStderr=(e.state.expansionStderr||"")+u.stderr)}o=l}',
      'if(e.execFn){i+=await ns(e,c)}o=l}')
  rep('if(e.execFn){let c=await e.execFn(l,{signal:e.state.signal});i+=c.stdout.replace(/\\n+$/,""),c.stderr&&(e.state.expansionStderr=(e.state.expansionStderr||"")+c.stderr)}o=a+1}',
      'if(e.execFn){i+=await ns(e,l)}o=a+1}')

  rep('case"ArithCommandSubst":{if(e.execFn){let i=await e.execFn(t.command,{signal:e.state.signal});i.stderr&&(e.state.expansionStderr=(e.state.expansionStderr||"")+i.stderr);let o=i.stdout.trim();return Number.parseInt(o,10)||0}return 0}',
      'case"ArithCommandSubst":{if(e.execFn){let o=(await ns(e,t.command)).trim();return Number.parseInt(o,10)||0}return 0}')
  rep('case"ArithCommandSubst":return e.execFn?(await e.execFn(t.command,{signal:e.state.signal})).stdout.trim():"0";',
      'case"ArithCommandSubst":return e.execFn?(await ns(e,t.command)).trim():"0";')


  // H12: a redirect whose target cannot be written (read-only, full, no permission) fails the
  // command with bash's message instead of throwing out of exec; limit errors still propagate
  rep('catch(a){if(!s)throw a;return{error:L("",`bash: ${t}: cannot open redirect target\n`,1)}',
      'catch(a){let __m=__tsFsErrorMessage(a);if(!s&&!__m)throw a;return{error:L("",__m?`bash: ${t}: ${__m}\n`:`bash: ${t}: cannot open redirect target\n`,1)}')
  rep('let k=async(A,C,N)=>{A.append?await e.fs.appendFile(A.path,C,N):await e.fs.writeFile(A.path,C,N)};',
      'let k=async(A,C,N)=>{try{A.append?await e.fs.appendFile(A.path,C,N):await e.fs.writeFile(A.path,C,N)}catch(__e){let __m=__tsFsErrorMessage(__e);if(!__m)throw __e;c+=`${a?"":"bash: "}${o}: write error: ${__m}\n`,u=1}};')

  // H13 (speed only): a word that is one plain literal (no glob, brace, tilde, quote or expansion
  // characters) expands to itself without the ~50 promises of the general path; behaviour unchanged
  rep('async function Ic(e,t,n){e.coverage?.hit("bash:expansion:word_glob");',
      'async function Ic(e,t,n){e.coverage?.hit("bash:expansion:word_glob");if(t.parts.length===1&&t.parts[0].type==="Literal"&&/^[A-Za-z0-9_.\\/=:@%+,-]+$/.test(t.parts[0].value))return{values:[t.parts[0].value],quoted:!1};')

  // H15: a running script gives the event loop a turn at least every 20 ms (at a statement,
  // command or conditional-term boundary), so timers fire (the shell call's time limit, other sessions, the HTTP API) even
  // while a script computes without any I/O; after the turn, hooks registered under
  // Symbol.for("toolshell.afterYield") may halt the script (a stopped shell call)
  rep('async executeStatement(t){if(this.assertDefenseContext("statement"),',
      'async executeStatement(t){if(__tsYieldDue(this.ctx)){await __tsYield();__tsAfterYield(this.ctx)}if(this.assertDefenseContext("statement"),')
  // ... and before each command of a statement (`a || b || c`) and each term of `[[ … ]]`
  rep('async executeCommand(t,n,r=!1){let s=jc(this.ctx),i;',
      'async executeCommand(t,n,r=!1){if(__tsYieldDue(this.ctx)){await __tsYield();__tsAfterYield(this.ctx)}let s=jc(this.ctx),i;')
  rep('async function Yt(e,t){switch(t.type){',
      'async function Yt(e,t){if(__tsYieldDue(e)){await __tsYield();__tsAfterYield(e)}switch(t.type){')

  // H16: a numeric brace range longer than the expansion cap (10,000 items) is an error instead
  // of being cut short without a word ({1..150000} gave 10,000 items)
  rep('else for(let d=e,p=0;d>=t&&p<dr&&Jr(l,f(d),i,u);d-=a,p++);return l}function gp(',
      'else for(let d=e,p=0;d>=t&&p<dr&&Jr(l,f(d),i,u);d-=a,p++);if(l.length>=Math.min(dr,i.maxResults)&&(e<=t?e+a*l.length<=t:e-a*l.length>=t))throw new x(`brace expansion: {${r??e}..${s??t}${n!==void 0?`..${n}`:""}} has more than ${l.length} items`,"array_elements");return l}function gp(')

  // H17: $( ) inside $(( )) is expanded as text before the arithmetic is parsed, as bash does
  // (`$(( $(echo "1 + 2") * 2 ))` is 5): the text path that `$var` already takes now also runs
  // command substitutions
  rep('if(s&&/\\$[a-zA-Z_][a-zA-Z0-9_]*(?![{[(])/.test(s)){let o=await Bl(e,s)',
    'if(s&&(/\\$[a-zA-Z_][a-zA-Z0-9_]*(?![{[(])/.test(s)||/\\$\\((?!\\()|`/.test(s))){let o=await Bl(e,s)');
  rep('if(t[r+1]==="("){let s=1,i=r+2;for(;i<t.length&&s>0;)t[i]==="("?s++:t[i]===")"&&s--,i++;n+=t.slice(r,i),r=i;continue}',
    'if(t[r+1]==="("){let s=1,i=r+2;for(;i<t.length&&s>0;)t[i]==="("?s++:t[i]===")"&&s--,i++;t[r+2]!=="("&&e.execFn?n+=await ns(e,t.slice(r+2,i-1)):n+=t.slice(r,i),r=i;continue}if(t[r]==="`"&&e.execFn){let s=t.indexOf("`",r+1);if(s>r){n+=await ns(e,t.slice(r+1,s)),r=s+1;continue}}');

  // H18: a nameref to an array is the array: "${r[@]}", ${#r[@]}, ${!r[@]}, r+=(x) (the
  // element forms already followed the reference)
  rep('function K(e,t){return t==="FUNCNAME"', 'function K(e,t){t=__tsArrayName(e,t);return t==="FUNCNAME"');
  rep('function Pe(e,t){return e.state.arrays?.get(t)}', 'function Pe(e,t){return e.state.arrays?.get(__tsArrayName(e,t))}');
  rep('function Ne(e,t){return e.state.arrays?.has(t)??!1}', 'function Ne(e,t){return e.state.arrays?.has(__tsArrayName(e,t))??!1}');
  rep('function rr(e,t,n="indexed"){e.state.arrays??=new Map;', 'function rr(e,t,n="indexed"){t=__tsArrayName(e,t);e.state.arrays??=new Map;');

  // H19: an array literal item that looks like an assignment (`a=(k=v --opt=1)`) is an item; it
  // was skipped
  rep('e.isWord()?t.push(e.parseWord()):kd.has(e.current().type)',
    'e.isWord()?t.push(e.parseWord()):e.check(E.ASSIGNMENT_WORD)?t.push(__tsAssignmentItem(e)):kd.has(e.current().type)');

  // H20: the shell's stdin is one stream that commands use up, as in bash: a command that reads
  // the stdin it inherits from the script, a group or a loop (`x=$(cat)`, `jq -r .name`,
  // `head -n1`, a subshell's `cat`) consumes it, so later commands see what is left; a command
  // whose stdin was redirected from an empty file or here-doc reads that, not the inherited one
  rep('{...await pf(c,t,n,s,o),internalProducerCommand:t}', '{...await pf(c,t,n,s,o,l),internalProducerCommand:t}')
  rep('async function pf(e,t,n,r,s){', 'async function pf(e,t,n,r,s,__tsX=!1){')
  rep('let d=r||i.state.groupStdin||"",p=!1,h=o();',
      'let __tsInh=!r&&!__tsX&&i.state.groupStdin!==void 0,d=__tsInh?i.state.groupStdin:r||"",p=!1,h=o();')
  rep('A=u.trusted?await Ce.runTrustedAsync(k):await k();return{...A,internalStdinConsumed:',
      'A=u.trusted?await Ce.runTrustedAsync(k):await k();p&&__tsInh&&__tsConsumeGroupStdin(i,d);return{...A,internalStdinConsumed:')
  // ... and what a subshell reads of the stdin it inherits is gone for the shell after it
  rep('try{return await nt(e,t.redirections,n,l=>Om(e,t,l.stdin??n,r,s||l.stdin!==void 0))}finally{let l=new Map;',
      'let __tsInh=!1;try{return await nt(e,t.redirections,n,l=>(__tsInh=!(s||l.stdin!==void 0||n),Om(e,t,l.stdin??n,r,s||l.stdin!==void 0)))}finally{let __tsG=e.state.groupStdin,l=new Map;')
  rep('l.set(p,Math.max(l.get(p)??0,d))}a();for(let[c,u]of l)tn(e,c,u)}}async function Om(',
      'l.set(p,Math.max(l.get(p)??0,d))}a();__tsInh&&(e.state.groupStdin=__tsG);for(let[c,u]of l)tn(e,c,u)}}async function Om(')

  // H22: an assignment-only command (`x=3`, `x=$(cmd) y=2`) has status 0, or the status of the last
  // command substitution it ran, as in bash; it kept the previous command's status (`false; x=3;
  // echo $?` printed 1, and under `set -e` an `else y=1` branch ended the script)
  rep('case"CommandSubstitution":{let s=Wl(t.body);', 'case"CommandSubstitution":{e.state.tsSubstitutions=(e.state.tsSubstitutions??0)+1;let s=Wl(t.body);')
  rep('async function ns(e,t){', 'async function ns(e,t){e.state.tsSubstitutions=(e.state.tsSubstitutions??0)+1;')
  rep('this.ctx.state.expansionStderr="";let s=await nf(this.ctx,t);', 'this.ctx.state.expansionStderr="";let __tsS=this.ctx.state.tsSubstitutions??0,s=await nf(this.ctx,t);')
  rep('let V=L("",o,0),q=await rn(', 'let V=L("",o,__tsAssignStatus(this.ctx,__tsS)),q=await rn(')
  rep('return this.ctx.state.expansionStderr="",L("",P,this.ctx.state.lastExitCode)}', 'return this.ctx.state.expansionStderr="",L("",P,__tsAssignStatus(this.ctx,__tsS))}')

  // H26: a command of an `&&`/`||` list other than the last, or one negated with `!`, runs with
  // `set -e` ignored inside it, as bash does: a function or compound command there (`f || echo
  // failed`, `{ false; echo in; } && …`, `! f`) runs its whole body; it ended the script at its
  // first failing command
  rep('let f=await this.executePipeline(c);',
      'let __tsC=this.ctx.state.inCondition;(l<t.pipelines.length-1||c.negated)&&(this.ctx.state.inCondition=!0);let f;try{f=await this.executePipeline(c)}finally{this.ctx.state.inCondition=__tsC}')

  // H27: a command substitution is a subshell for shell options: `set -e` is cleared inside it
  // (bash outside POSIX mode, unless `shopt -s inherit_errexit`), and a `set` inside it does not
  // change the shell after it (`x=$(false; echo hi)` under `set -e` is "hi")
  rep('let c=new Map(e.state.env),u=ot(e.state.arrays),f=e.state.cwd,d=e.state.suppressVerbose;',
      'let __tsO=__tsSubstitutionOptions(e),c=new Map(e.state.env),u=ot(e.state.arrays),f=e.state.cwd,d=e.state.suppressVerbose;')
  rep('let p=await e.executeScript(t.body),h=p.exitCode;e.state.env=c,',
      'let p=await e.executeScript(t.body),h=p.exitCode;e.state.options=__tsO,e.state.env=c,')
  rep('catch(p){if(e.state.env=c,e.state.arrays=u,e.state.cwd=f,e.state.bashPid=l,',
      'catch(p){if(e.state.options=__tsO,e.state.env=c,e.state.arrays=u,e.state.cwd=f,e.state.bashPid=l,')
  rep('let i=new Map(e.state.env),o=ot(e.state.arrays),a=e.state.cwd,l=e.state.suppressVerbose;',
      'let __tsO=__tsSubstitutionOptions(e),i=new Map(e.state.env),o=ot(e.state.arrays),a=e.state.cwd,l=e.state.suppressVerbose;')
  rep('let c=await e.executeScript(r),u=c.exitCode;return e.state.env=i,',
      'let c=await e.executeScript(r),u=c.exitCode;return e.state.options=__tsO,e.state.env=i,')
  rep('catch(c){if(e.state.env=i,e.state.arrays=o,e.state.cwd=a,e.state.bashPid=s,',
      'catch(c){if(e.state.options=__tsO,e.state.env=i,e.state.arrays=o,e.state.cwd=a,e.state.bashPid=s,')
  // ... and `shopt -s inherit_errexit` is kept (it was accepted and forgotten), so a substitution keeps `set -e`
  rep('function Ls(e){return ea.includes(e)}', 'function Ls(e){return ea.includes(e)||e==="inherit_errexit"}')

  // H23 (speed only): a command that needs no guard runs directly: with the defense-in-depth layer
  // off, just-bash's own commands and toolshell's own (marked `tsDirect`) get the command
  // context as it is, with no per-command membrane, AbortController, deadline race and timer; the
  // exec keeps one deadline (one timer per exec, its signal is the command's `ctx.signal`)
  rep('w=u.internalOriginalCommand,b=()=>{};if(w){',
      'w=u.internalOriginalCommand,b=()=>{};if(__tsDirect(i,u)){m.signal=__tsExecSignal(i);w&&(m.origCommand=N=>w.execute(N,m));try{let A=await u.execute(n,m);p&&__tsInh&&__tsConsumeGroupStdin(i,d);return{...A,internalStdinConsumed:A.internalStdinConsumed??(p?r.length:0)}}catch(v){if(v instanceof x||v instanceof ze||v instanceof _t)throw v;return D(`${t}: ${wt($t(v))}\n`)}}if(w){')

  rep('o={name:t.name,trusted:r,internalIsExtension:n,internalOriginalCommand:i,execute:(l,c)=>t.execute(l,c)}',
      'o={name:t.name,trusted:r,internalIsExtension:n,internalOriginalCommand:i,tsDirect:t.tsDirect===!0,execute:(l,c)=>t.execute(l,c)}')

  // H24 (speed only): a glob pattern's regular expression is compiled once and kept (a small
  // process-wide cache), not once per directory entry it is matched against
  rep('patternToRegex(t){let n=this.patternToRegexStr(t);return ge(`^${n}$`)}',
      'patternToRegex(t){let r=__tsGlobCache.get(t);if(r)return r;let n=this.patternToRegexStr(t);r=ge(`^${n}$`);__tsGlobCache.size>=256&&__tsGlobCache.clear();__tsGlobCache.set(t,r);return r}')

  // H21 (reading only): a compound command (`for`, `while`, `if`, `case`, `{ }`, `( )`) keeps the
  // line it starts on as `tsLine`, which the interpreter never reads (LINENO is unchanged), so
  // toolshell's plan and preflight can name the line of a call in its words (`for k in $(tools …)`)
  rep('parseCommand(){if(this.currentTokenJoinsProcessSubstitution())return yi(this);let t=this.current();',
      'parseCommand(){let __tsL=this.processLineState?void 0:this.current().line,__tsC=this.__tsParseCommand();return __tsC&&typeof __tsC==="object"&&__tsC.line===void 0&&__tsL!==void 0&&(__tsC.tsLine=__tsL),__tsC}__tsParseCommand(){if(this.currentTokenJoinsProcessSubstitution())return yi(this);let t=this.current();')

  // H31: a command's argument written like an assignment (`echo amount={5,500}`, `declare
  // a={1,2}`, `tools pay k={a,b}`) is brace-expanded, as bash does; only a real assignment
  // (`x={1,2}` before or without a command) keeps its braces. The argument is parsed as
  // "arg" instead of as an assignment: still truthy for the tilde after `:`, not for braces.
  rep('let f=e.parseWordFromString(l,a.quoted,a.singleQuoted,!0);s.push(e.parseAdjacentWordParts(f.parts,a.end,Re.Assignment))',
      'let f=e.parseWordFromString(l,a.quoted,a.singleQuoted,"arg");s.push(e.parseAdjacentWordParts(f.parts,a.end,Re.Assignment))')
  rep('if(m==="{"&&!s&&!a&&!i){let w=fl(e,t,d,jt);', 'if(m==="{"&&(!s||s==="arg")&&!a&&!i){let w=fl(e,t,d,jt);')
  // H31: so is one of a declaration builtin (`declare a={1,2}` declares a=1, then a=2): such an
  // argument with braces is expanded as other arguments are, into one assignment per word.
  rep('if($)p($,!0);else{let R=await nu(this.ctx,P);', 'if($)p($,!0);else{let R=P.parts.some(x=>x.type==="BraceExpansion")?null:await nu(this.ctx,P);')

  // H33: a substitution's text (`$( )`, `<( )`, backquotes) is read again by a parser of its own,
  // so nesting made reading cost depth × length before the 200-level limit fired (300 KB of
  // nested `$(` held the process 27 s). One parse now re-reads at most four times its input plus
  // 200,000 characters in all, then stops with a parse error.
  rep('reset(){this.iterations=0,this.tokens=0,this.depth=0}',
      'reset(){this.iterations=0,this.tokens=0,this.depth=0,this.tsReread=0}tsRereadRoom=2e5;tsReread=0;chargeReread(t){if(this.tsReread+=t,this.tsReread>this.tsRereadRoom)throw new xe(`Too much nested text: substitutions inside substitutions re-read more than ${this.tsRereadRoom} characters`,1,1)}')
  rep('parse(t,n){this.ownsParseBudget&&this.parseBudget.reset();let r=this.ownsParseBudget?void 0:this.enterDepth();try{',
      'parse(t,n){this.ownsParseBudget&&(this.parseBudget.reset(),this.parseBudget.tsRereadRoom=4*t.length+2e5);let r=this.ownsParseBudget?void 0:this.enterDepth();try{this.ownsParseBudget||this.parseBudget.chargeReread(t.length);')
  // H33: `((((…` decided whether it opens subshells by calling itself once per parenthesis, so
  // 70,000 of them overflowed the stack, and the lexer asks again at every `((`. It walks them in
  // a loop and, past the parser's 200 levels, answers "subshells" (the parser then refuses the depth).
  rep('let n=this.input,r=n.length,s=t;for(;s<r&&(n[s]===" "||n[s]==="\t");)s++;if(s>=r)return!1;let i=n[s];if(i==="(")return this.looksLikeNestedSubshells(s+1);',
      'let n=this.input,r=n.length,s=t;for(let __tsN=0;;){for(;s<r&&(n[s]===" "||n[s]==="\t");)s++;if(s>=r)return!1;if(n[s]!=="(")break;if(++__tsN>Ua)return!0;s++}let i=n[s];')
  // H33: an array subscript's substitution nests at most 100 levels at run time (see __tsSubscript),
  // whether it is read as text or as arithmetic; the limit is not taken for a variable's name.
  rep('else try{let f=new Q,d=re(f,a);c=await Y(e,d.expression)}catch{let f=e.state.env.get(a);',
      'else try{c=await __tsSubscript(e,a,(e,a)=>Y(e,re(new Q,a).expression))}catch(__tsX){if(__tsX instanceof x)throw __tsX;let f=e.state.env.get(a);')
  rep('let m=await Li(e,p);r=`${d}[${m}]`', 'let m=await __tsSubscript(e,p,Li);r=`${d}[${m}]`')
  rep('let b=await Li(e,m);r=`${h}[${b}]`', 'let b=await __tsSubscript(e,m,Li);r=`${h}[${b}]`')
}

const main = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
const arg = process.argv[2];
if (main && arg === "--id") {
  console.log(engineId);
} else if (main && arg) {
  const bundle = path.join(arg, "dist", "bundle", "index.js");
  s = readFileSync(bundle, "utf8");
  if (s.includes("toolshell patch")) throw new Error(`${bundle} is already patched: start from a clean just-bash 3.4.2`);
  applyEdits();
  s = `${s.replace(/\n+$/, "")}\n${helpers}export const toolshellEngineId = ${JSON.stringify(engineId)};\n`;
  writeFileSync(bundle, s);
  for (const [file, { edits: fileEdits, appended }] of Object.entries(chunkEdits)) {
    const chunk = path.join(arg, "dist", "bundle", "chunks", file);
    s = readFileSync(chunk, "utf8");
    for (const [old, replacement] of fileEdits) rep(old, replacement);
    writeFileSync(chunk, `${s.replace(/\n+$/, "")}\n${appended}`);
  }
  console.log(`patched ${bundle} (${engineId})`);
}
