/**
 * The bash conformance corpus. `generate.ts` runs each script with the real
 * bash 5.2 (`bash --norc --noprofile -c SCRIPT`) in an empty temp dir and records stdout,
 * stderr and the exit status; the test replays them through our shell. Scripts use
 * relative paths only and print nothing that depends on the host, user or time.
 */
export interface BashCase {
  name: string;
  script: string;
  stdin?: string;
  files?: Record<string, string>;
}

const cases: BashCase[] = [];
const b = (name: string, script: string, extra: Partial<BashCase> = {}) => cases.push({ name, script, ...extra });

// --- quoting and word splitting
b("split unquoted var", 'x="a  b   c"; for w in $x; do echo "[$w]"; done');
b("quoted var keeps spaces", 'x="a  b"; echo "$x"; echo $x');
b("IFS custom split", 'IFS=,; x="a,b,,c"; for w in $x; do echo "<$w>"; done');
b("IFS read split", 'IFS=: read -r a b c <<< "x:y:z"; echo "$b-$c-$a"');
b("single quotes literal", "echo '$HOME \\n \"q\"'");
b("double quotes escapes", 'echo "a\\$b \\"c\\" \\\\ d"');
b("ansi c quoting", "printf '%s\\n' $'tab\\there' $'nl\\\\n'");
b("empty string arg", 'f() { echo "$#"; }; f "" ""; f');
b("glob no match literal", 'echo nomatch*.xyz');
b("glob match sorted", 'touch b.txt a.txt c.log; echo *.txt');
b("brace expansion", 'echo {a,b}{1,2} x{1..3} {3..1} {a..c}');
b("brace expansion in an argument written like an assignment", 'echo amount={5,500} --x={1,2} k=v{1..2}; declare a={1,2}; echo "$a"; printf "%s\\n" n={a,b}');
b("an assignment keeps its braces", 'x={1,2}; echo "$x"; y=a{b,c} env | grep -c "^y=a{b,c}$"; z=~{1,2}; echo "${z#"$HOME"}"');
b("tilde in quotes not expanded", 'echo "~" \'~\'');
b("command substitution strips newlines", 'x=$(printf "a\\n\\n\\n"); echo "[$x]"');
b("nested command substitution", 'echo $(echo $(echo deep))');
b("backticks", 'echo `echo back`');
b("word split of command sub", 'for w in $(echo "1 2  3"); do echo $w; done');
b("quoted command sub", 'echo "$(echo "a  b")"');
b("$* vs $@", 'f() { for a in "$@"; do echo "@$a"; done; for a in "$*"; do echo "*$a"; done; }; f "x y" z');
b("$@ unquoted splits", 'f() { for a in $@; do echo "$a"; done; }; f "x y" z');
b("IFS join with $*", 'f() { local IFS=-; echo "$*"; }; f a b c');

// --- "$@" and $cmd as command words
b("var as command word", 'cmd="echo hi there"; $cmd');
b("var command with args", 'cmd=printf; $cmd "%s-%s\\n" a b');
b("$@ as command", 'retry() { "$@"; }; retry echo a b');
b("$@ preserves args", 'run() { "$@"; }; run printf "[%s]\\n" "x y" z');
b("retry loop with $@", 'n=0; flaky() { n=$((n+1)); [ $n -ge 3 ]; }; retry() { local i; for i in 1 2 3 4; do if "$@"; then echo "ok after $i"; return 0; fi; done; return 1; }; retry flaky');
b("array as command", 'cmd=(echo "a b" c); "${cmd[@]}"');
b("empty var command is noop", 'x=; $x; echo "rc=$?"');
b("var command not found", 'cmd="nosuchcmd arg"; $cmd; echo "rc=$?"');
b("command via variable with function", 'greet() { echo "hello $1"; }; f=greet; $f world');
b("eval builds command", 'cmd="echo evaluated"; eval "$cmd"');
b("builtin via var", 'c=cd; $c . && echo ok');

// --- trap
b("trap EXIT runs at end", 'trap "echo bye" EXIT; echo hi');
b("trap EXIT on exit", 'trap \'echo cleanup $?\' EXIT; echo start; exit 3');
b("trap EXIT with set -e failure", 'set -e; trap "echo trapped" EXIT; false; echo not');
b("trap ERR", 'trap \'echo "err at $LINENO"\' ERR; false; echo after');
b("trap ERR status", 'trap \'echo "failed: $?"\' ERR; (exit 4); echo next');
b("trap reset", 'trap "echo x" EXIT; trap - EXIT; echo done');
b("trap function", 'cleanup() { echo "cleaning"; }; trap cleanup EXIT; echo work');
b("trap in subshell", '(trap "echo sub-exit" EXIT; echo in-sub); echo out');
b("trap -p lists", 'trap "echo z" EXIT; trap -p EXIT');
b("trap ERR not in condition", 'trap "echo ERR" ERR; if false; then :; fi; false || true; echo end');

// --- set -euo pipefail
b("set -e stops", 'set -e; echo a; false; echo b');
b("set -e in if not fatal", 'set -e; if false; then echo t; fi; echo reached');
b("set -e with || ", 'set -e; false || echo recovered; echo end');
b("set -e exit code", 'set -e; (exit 7); echo no');
b("set -u unbound", 'set -u; echo "${nope}"; echo after');
b("set -u default ok", 'set -u; echo "${nope:-dflt}"');
b("set -u $@ empty ok", 'set -u; f() { echo "n=$#" "$@"; }; f');
b("pipefail", 'set -o pipefail; false | true; echo "rc=$?"');
b("no pipefail", 'false | true; echo "rc=$?"');
b("pipefail last failing", 'set -o pipefail; (exit 2) | (exit 3) | true; echo "rc=$?"');
b("PIPESTATUS", 'true | false | true; echo "${PIPESTATUS[@]}"');
b("set -euo pipefail script", 'set -euo pipefail; x=$(echo ok); echo "$x"; grep -q zzz <<< "abc" | cat; echo unreachable');
b("set -e command sub", 'set -e; x=$(false); echo "after $?"');
b("set +e turns off", 'set -e; set +e; false; echo still');
b("errexit in function", 'set -e; f() { false; echo in-f; }; f; echo after-f');
b("negation with set -e", 'set -e; ! false; echo ok');

// --- xargs
b("xargs -I", 'printf "a\\nb\\n" | xargs -I{} echo "x{}y"');
b("xargs -I multiple", 'printf "1\\n2\\n" | xargs -I % sh -c "echo %-%"');
b("xargs -n", 'echo 1 2 3 4 5 | xargs -n 2 echo');
b("xargs -0", 'printf "a b\\0c\\0" | xargs -0 -n 1 echo');
b("xargs default echo", 'printf "x\\ny  z\\n" | xargs');
b("xargs quotes", 'echo "\'a b\' c" | xargs -n 1 echo');
b("xargs -L", 'printf "a b\\nc\\nd e f\\n" | xargs -L 2 echo');
b("xargs empty input", 'printf "" | xargs echo start; echo rc=$?');
b("xargs -r empty", 'printf "" | xargs -r echo never; echo rc=$?');
b("xargs failing command", 'printf "a\\n" | xargs false; echo rc=$?');
b("xargs -d", 'printf "a,b,c" | xargs -d , -n 1 echo');
b("xargs -t", 'echo a b | xargs -t echo 2>&1');
b("xargs with find", 'mkdir d; touch d/x d/y; find d -type f | sort | xargs -I{} echo "file:{}"');
b("xargs -I with spaces", 'printf "one two\\nthree\\n" | xargs -I{} echo "[{}]"');

// --- read -r, printf
b("read -r keeps backslash", 'read -r x <<< "a\\\\b"; echo "$x"');
b("read without -r", 'read x <<< "a\\\\b"; echo "$x"');
b("read multiple vars", 'read a b <<< "one two three"; echo "$a|$b"');
b("while read loop", 'printf "l1\\nl2\\nl3" | while read -r line; do echo "<$line>"; done');
b("read -a array", 'read -ra arr <<< "x y z"; echo "${#arr[@]} ${arr[1]}"');
b("read -d", 'read -r -d , a <<< "p,q"; echo "$a"');
b("read rc at eof", 'read -r x < /dev/null; echo "rc=$? x=[$x]"');
b("read from file", 'printf "first\\nsecond\\n" > f; while IFS= read -r l; do echo "$l"; done < f');
b("read preserves leading space with IFS=", 'IFS= read -r x <<< "  pad"; echo "[$x]"');
b("printf formats", 'printf "%5s|%-5s|%05d|%x|%o|%e|%.2f\\n" ab cd 42 255 8 1234.5 3.14159');
b("printf reuse format", 'printf "%s=%s\\n" a 1 b 2 c');
b("printf %q", 'printf "%q\\n" "a b" "it\'s"');
b("printf %b", 'printf "%b\\n" "x\\ty"');
b("printf -v", 'printf -v v "%03d" 7; echo "$v"');
b("printf %c and %%", 'printf "%c%%\\n" hello');
b("printf missing args", 'printf "%s-%d\\n"');
b("printf invalid number", 'printf "%d\\n" abc; echo rc=$?');
b("echo -e and -n", 'echo -n "a"; echo -e "b\\tc"; echo -E "d\\te"');

// --- here-docs, here-strings
b("heredoc expands", 'x=val; cat <<EOF\nvalue: $x\n$(echo sub)\nEOF');
b("heredoc quoted", "x=val; cat <<'EOF'\nvalue: $x\nEOF");
b("heredoc strip tabs", 'cat <<-EOF\n\tindented\n\t\tmore\n\tEOF');
b("heredoc to while", 'while read -r a b; do echo "$b:$a"; done <<EOF\n1 one\n2 two\nEOF');
b("herestring", 'tr a-z A-Z <<< "shout"');
b("herestring var", 'x="multi word"; wc -w <<< "$x"');
b("heredoc into var", 'v=$(cat <<EOF\nline1\nline2\nEOF\n); echo "$v" | wc -l');
b("two heredocs", 'cat <<A; cat <<B\nfrom a\nA\nfrom b\nB');

// --- arrays
b("indexed array basics", 'a=(x y z); echo "${a[0]} ${a[2]} ${#a[@]} ${a[@]}"');
b("array append", 'a=(1); a+=(2 3); a[5]=6; echo "${a[@]}" "${!a[@]}"');
b("array slice", 'a=(a b c d e); echo "${a[@]:1:3}"');
b("array with spaces", 'a=("x y" z); for i in "${a[@]}"; do echo "[$i]"; done');
b("array unset element", 'a=(1 2 3); unset "a[1]"; echo "${a[@]} ${#a[@]}"');
b("array negative index", 'a=(1 2 3); echo "${a[-1]}"');
b("array in arithmetic", 'a=(5 10); echo $(( a[0] + a[1] ))');
b("assoc array", 'declare -A m=([a]=1 [b]=2); m[c]=3; echo "${m[a]} ${#m[@]}"; for k in $(printf "%s\\n" "${!m[@]}" | sort); do echo "$k=${m[$k]}"; done');
b("assoc array missing key", 'declare -A m; m[x]=1; echo "[${m[y]}]"; [[ -v m[x] ]] && echo has-x');
b("assoc array keys with spaces", 'declare -A m; m["a b"]=1; for k in "${!m[@]}"; do echo "<$k>"; done');
b("array from command", 'a=($(printf "p q r")); echo ${#a[@]}');
b("array join", 'a=(1 2 3); (IFS=,; echo "${a[*]}")');
b("declare -p array", 'a=(1 "b c"); declare -p a');

// --- local, functions
b("local scope", 'x=global; f() { local x=inner; echo "$x"; }; f; echo "$x"');
b("local dynamic scope", 'f() { local v=1; g; }; g() { echo "v=$v"; }; f; echo "outside=[$v]"');
b("function return status", 'f() { return 3; }; f; echo "rc=$?"');
b("function args", 'f() { echo "$# $1 ${2:-none}"; }; f a; f a b');
b("recursive function", 'fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5');
b("function with local -a", 'f() { local -a arr=(1 2); echo "${#arr[@]}"; }; f');
b("shift in function", 'f() { shift 2; echo "$@"; }; f a b c d');
b("FUNCNAME", 'f() { echo "${FUNCNAME[0]}"; }; f');

// --- case
b("case patterns", 'for x in apple banana cherry 42; do case $x in a*) echo "A:$x";; b*|c*) echo "BC:$x";; [0-9]*) echo "num";; esac; done');
b("case default", 'case zzz in a) echo a;; *) echo default;; esac');
b("case fallthrough ;&", 'case a in a) echo one;& b) echo two;; c) echo three;; esac');
b("case char class", 'case "X" in [[:upper:]]) echo upper;; *) echo other;; esac');
b("case quoted pattern", 'p="*"; case x in "$p") echo literal;; *) echo glob;; esac');

// --- arithmetic
b("arith basics", 'echo $(( 7 / 2 )) $(( 7 % 3 )) $(( 2 ** 10 )) $(( -7 / 2 ))');
b("arith increments", 'i=5; ((i++)); ((++i)); echo $i; (( i += 3 )); echo $i');
b("arith comparisons", 'echo $(( 3 > 2 )) $(( 3 == 4 )) $(( 1 && 0 )) $(( 1 || 0 ))');
b("arith ternary", 'x=7; echo $(( x > 5 ? 1 : 0 ))');
b("arith bases", 'echo $(( 16#ff )) $(( 2#101 )) $(( 0x10 )) $(( 010 ))');
b("arith exit status", '(( 0 )); echo $?; (( 5 )); echo $?');
b("arith division by zero", 'echo $(( 1 / 0 )); echo after');
b("let", 'let "x = 3 * 4"; echo $x');
b("arith with vars no $", 'a=3 b=4; echo $(( a * b + 1 ))');
b("bitwise", 'echo $(( 5 & 3 )) $(( 5 | 3 )) $(( 5 ^ 3 )) $(( 1 << 4 )) $(( ~0 ))');

// --- parameter expansion
b("default values", 'unset u; e=; echo "${u:-d1} ${e:-d2} ${e-d3} ${u-d4}"');
b("assign default", 'unset u; echo "${u:=set}"; echo "$u"');
b("alternate value", 'x=1; echo "${x:+alt} [${y:+alt}]"');
b("error if unset", 'echo "${nope:?must be set}"; echo after');
b("length", 'x=hello; echo ${#x}');
b("substring", 'x=abcdef; echo ${x:2} ${x:1:3} ${x: -2}');
b("prefix suffix removal", 'p=/a/b/file.tar.gz; echo ${p##*/} ${p#*/} ${p%.*} ${p%%.*}');
b("replace", 'x=aaa-bbb-aaa; echo ${x/aaa/X} ${x//aaa/X} ${x/#aaa/S} ${x/%aaa/E}');
b("case modification", 'x=hello; echo ${x^} ${x^^} ; y=WORLD; echo ${y,} ${y,,}');
b("indirect expansion", 'name=target; target=value; echo ${!name}');
b("prefix names", 'pre_a=1; pre_b=2; echo ${!pre_*}');
b("array length element", 'a=(abc de); echo ${#a[0]} ${#a[@]}');
b("expansion in default", 'x=; y=fallback; echo ${x:-$y}');
b("dirname basename via expansion", 'f=dir/sub/name.txt; echo "${f%/*}" "${f##*/}"');
b("replace with pattern", 'x="a1b2c3"; echo ${x//[0-9]/}');
b("@Q transformation", 'x="it\'s"; echo ${x@Q}');

// --- mapfile, process substitution
b("mapfile -t", 'mapfile -t lines < <(printf "a\\nb\\nc\\n"); echo "${#lines[@]} ${lines[2]}"');
b("mapfile keeps newline", 'mapfile arr <<< "x"; printf "[%s]" "${arr[0]}"; echo');
b("readarray from file", 'printf "1\\n2\\n" > f; readarray -t r < f; echo "${r[@]}"');
b("process substitution diff", 'diff <(printf "a\\nb\\n") <(printf "a\\nc\\n"); echo rc=$?');
b("process substitution while", 'while read -r x; do echo "got $x"; done < <(echo one; echo two)');
b("process substitution cat", 'cat <(echo inner)');
b("paste with two procsubs", 'paste -d, <(printf "1\\n2\\n") <(printf "a\\nb\\n")');

// --- redirections
b("redirect to missing dir", 'echo hi > missing/dir/f; echo "rc=$?"; [ -e missing ] && echo exists || echo absent');
b("append to missing dir", 'echo hi >> nodir/f; echo "rc=$?"');
b("redirect to directory", 'mkdir d; echo hi > d; echo "rc=$?"');
b("redirect stderr to file", 'ls nonexistent 2> err.txt; echo "rc=$?"; wc -l < err.txt');
b("redirect both", '{ echo out; echo err >&2; } > both.txt 2>&1; sort both.txt');
b("redirect stderr to stdout pipe", '{ echo o; echo e >&2; } 2>&1 | sort');
b("devnull", 'echo gone > /dev/null; echo shown');
b("input from missing file", 'cat < nofile; echo "rc=$?"');
b("input redirect missing in while", 'while read x; do echo $x; done < nofile; echo "rc=$?"');
b("noclobber", 'set -o noclobber; echo a > f; echo b > f; echo "rc=$?"; cat f; echo c >| f; cat f');
b("fd 3", 'exec 3> out.txt; echo via3 >&3; exec 3>&-; cat out.txt');
b("tee", 'echo teed | tee t.txt > /dev/null; cat t.txt');
b("dev full", 'echo x > /dev/full; echo "rc=$?"');
b("redirect in middle", 'echo > f.txt start; cat f.txt');
b("here-string to missing-dir redirect", 'cat <<< "x" > no/such/f; echo "rc=$?"');

// --- conditionals and tests
b("test string ops", '[ "a" = "a" ] && echo eq; [ -n "" ] || echo empty; [ -z "" ] && echo z');
b("test numeric", '[ 3 -lt 10 ] && echo lt; [ 10 -ge 10 ] && echo ge');
b("double bracket pattern", '[[ "hello.txt" == *.txt ]] && echo match; [[ abc =~ ^a(b)c$ ]] && echo "${BASH_REMATCH[1]}"');
b("double bracket and or", '[[ -n x && ( 1 -eq 2 || 2 -eq 2 ) ]] && echo yes');
b("file tests", 'touch f; mkdir d; [ -f f ] && echo file; [ -d d ] && echo dir; [ -e nope ] || echo missing; [ -s f ] || echo emptyfile');
b("string comparison sort", '[[ a < b ]] && echo less');
b("test error", '[ 1 -eq x ]; echo "rc=$?"');

// --- loops and control
b("for c-style", 'for ((i=0; i<3; i++)); do printf "%d" $i; done; echo');
b("while break continue", 'i=0; while true; do i=$((i+1)); [ $i -eq 2 ] && continue; [ $i -gt 4 ] && break; echo $i; done');
b("until loop", 'n=0; until [ $n -ge 3 ]; do n=$((n+1)); done; echo $n');
b("nested break 2", 'for a in 1 2; do for b in x y; do [ $b = y ] && break 2; echo $a$b; done; done');
b("loop over seq", 'for i in $(seq 3); do echo -n "$i "; done; echo');
b("subshell isolation", 'x=1; (x=2; echo in $x); echo out $x');
b("group command", '{ echo a; echo b; } | wc -l');
b("and or chains", 'true && echo t1 || echo f1; false && echo t2 || echo f2');
b("exit status of pipeline", 'echo x | grep -q y; echo "rc=$?"');
b("exit in subshell", '(exit 5); echo "rc=$?"');
b("exit code 127", 'nosuchcommand_xyz; echo "rc=$?"');
b("exit code 126 directory", 'mkdir dd; ./dd; echo "rc=$?"');
b("script exit code", 'echo before; exit 42');
b("return outside function", 'return 2 2>/dev/null; echo "rc=$?"');

// --- common text tools in pipelines
b("sort uniq count", 'printf "b\\na\\nb\\nc\\nb\\n" | sort | uniq -c | sort -rn | head -2');
b("cut fields", 'echo "a:b:c" | cut -d: -f2,3');
b("awk sum", 'printf "1 x\\n2 y\\n3 z\\n" | awk "{s+=\\$1} END {print s}"');
b("sed substitute", 'echo "hello world" | sed "s/o/0/g"');
b("grep -c and -v", 'printf "a\\nb\\na\\n" | grep -c a; printf "a\\nb\\n" | grep -v a');
b("tr delete", 'echo "a-b-c" | tr -d -');
b("head tail", 'seq 10 | head -3 | tail -1');
b("wc", 'printf "one two\\nthree\\n" | wc -lw');
b("find name", 'mkdir -p p/q; touch p/a.md p/q/b.md p/c.txt; find p -name "*.md" | sort');
b("basename dirname", 'basename /x/y/z.txt .txt; dirname /x/y/z.txt');
b("date fixed", 'date -u -d @0 +%Y-%m-%d');
b("env var export to child", 'export FOO=bar; bash -c \'echo "child sees $FOO"\'');
b("prefix assignment", 'X=1 bash -c \'echo "X=$X"\'; echo "after=[$X]"');
b("bash -c with args", 'bash -c \'echo "$0 $1"\' zero one');
b("source file", 'echo "v=sourced" > lib.sh; . ./lib.sh; echo $v');
b("getopts", 'f() { while getopts "ab:" o; do case $o in a) echo A;; b) echo "B=$OPTARG";; esac; done; }; f -a -b val');
b("type builtin", 'type -t echo; type -t cd; f() { :; }; type -t f');
b("command -v", 'command -v echo >/dev/null && echo found; command -v nosuch || echo "rc=$?"');
b("printf to stderr class", 'echo "warn" >&2; echo ok');
b("syntax error", 'if then fi');
b("unterminated quote", 'echo "abc');

// --- namerefs, `=` inside array items, quoted arguments of $( ) inside $(( )): forms agents write
b("nameref to indexed array", 'f() { local -n r=$1; r+=(x); echo "${#r[@]} ${r[1]} ${r[2]}"; }; a=(p q); f a; echo "${a[@]}"');
b("nameref to assoc array keys", "declare -A m=([b]=2 [a]=1); f() { local -n r=$1; for k in $(printf '%s\\n' \"${!r[@]}\" | sort); do echo \"$k=${r[$k]}\"; done; }; f m");
b("nameref assoc assignment", 'declare -A m; f() { local -n r=$1; r[key]=val; r[other]="a b"; }; f m; echo "${m[key]}|${m[other]}|${#m[@]}"');
b("nameref indices of indexed array", 'a=(x y z); declare -n r=a; echo "${!r[@]}"; echo "${r[@]: -1}"');
b("nameref scalar", 'x=1; declare -n r=x; r=2; echo "$x $r"');
b("nameref passed array name in loop", 'sum() { local -n arr=$1; local t=0 v; for v in "${arr[@]}"; do t=$((t + v)); done; echo $t; }; n=(1 2 3 4); sum n');
b("array literal items with =", "a=(k=v \"x=y\" z --opt=1); echo \"${#a[@]}\"; printf '%s\\n' \"${a[@]}\"");
b("array literal item with two =", 'a=(--b=c=d e==f); echo "${a[0]}|${a[1]}"');
b("assoc literal value with =", 'declare -A m=([k]=a=b [q]="x=y"); echo "${m[k]} ${m[q]}"');
b("array append items with =", 'a=(); a+=(key=1 key=2); echo "${a[*]}"');
b("arith command sub with quoted arg", 'echo $(( $(echo "1 + 2") * 2 ))');
b("arith command sub printf quoted", "n=$(( $(printf '%s' \"4\") + 1 )); echo $n");
b("arith command subs of a function", "f() { echo \"$1\"; }; echo $(( $(f \"3\") * $(f '2') ))");
b("arith command sub pipeline with quotes", 'echo $(( $(echo "a b" | wc -w) + 10 ))');
b("arith command sub building an expression", "x=\"2 3\"; echo $(( $(echo \"$x\" | tr ' ' '+') ))");

// --- stdin is one stream that commands use up (stdin arrives through a pipe, as a saved script's input does)
b("stdin used up by $(cat)", 'x=$(cat); echo "x=$x"; echo "rest=[$(cat)]"', { stdin: '{"a":1}\n' });
b("stdin used up by $(cat) in a piped group", "echo '{\"a\":1}' | { x=$(cat); echo \"x=$x\"; echo \"rest=[$(cat)]\"; }");
b("stdin $(cat) then cat", 'x=$(cat); echo "x=$x"; cat; echo end', { stdin: "l1\nl2\n" });
b("stdin backticks then cat", 'x=`cat`; echo "x=$x"; cat; echo end', { stdin: "a\n" });
b("stdin read then $(cat)", 'read a; x=$(cat); echo "a=$a x=$x"; echo "rest=[$(cat)]"', { stdin: "l1\nl2\nl3\n" });
b("stdin group head then cat", '{ head -n1; cat; }; echo end', { stdin: "l1\nl2\nl3\n" });
b("stdin piped group head then cat", 'printf "l1\\nl2\\nl3\\n" | { head -n1; cat; }');
b("stdin piped group read then cat", 'printf "l1\\nl2\\nl3\\n" | { read a; echo "a=$a"; cat; }');
b("stdin $(jq) then cat", 'n=$(jq -r .name); echo "n=$n"; echo "rest=[$(cat)]"', { stdin: '{"name":"x"}\n' });
b("stdin $(jq -n) leaves it", 'x=$(jq -nc "{a:1}"); echo "$x"; jq -r .name', { stdin: '{"name":"x"}\n' });
b("stdin jq of a file leaves it", 'echo "{}" > f.json; jq -c . f.json; cat', { stdin: "a\n" });
b("stdin while read with cat in the body", 'while read l; do echo "<$l>"; cat; done; echo "rest=[$(cat)]"', { stdin: "a\nb\nc\n" });
b("stdin while read with $(cat) in the body", 'while read l; do echo "<$l>"; x=$(cat); echo "x=[$x]"; done', { stdin: "a\nb\nc\n" });
b("stdin piped while read with $(cat)", 'printf "a\\nb\\n" | while read l; do echo "<$l>"; x=$(cat); echo "[$x]"; done; cat', { stdin: "z\n" });
b("stdin function reading it", 'f() { cat; }; x=$(f); echo "x=$x"; cat', { stdin: "a\nb\n" });
b("stdin subshell reads it", '(read l; echo "in=$l"); cat; (cat); echo "rest=[$(cat)]"', { stdin: "a\nb\n" });
b("stdin first of a pipeline reads it", 'cat | tr a b; cat', { stdin: "a\n" });
b("stdin grep reads it", 'grep b; cat', { stdin: "a\nb\nc\n" });
b("stdin mapfile then cat", 'mapfile -t arr; echo "${#arr[@]}"; cat', { stdin: "a\nb\n" });
b("stdin redirected from empty file", ': > empty; cat < empty; { cat; } < /dev/null; echo "rest=[$(cat)]"', { stdin: "a\n" });
b("stdin empty heredoc", 'cat <<EOF\nEOF\ncat', { stdin: "a\n" });
b("stdin done < file with cat in the body", 'printf "1\\n2\\n" > f; while read l; do echo "<$l>"; cat; done < f; cat', { stdin: "a\n" });

// --- an assignment-only command's status: 0, or that of the last command substitution it ran
b("assignment status after false", "false; x=3; echo $?");
b("assignment status of a failing substitution", "x=$(false); echo $?");
b("assignment status of the last substitution", "x=$(exit 3) y=2; echo $?; x=$(exit 3) y=$(true); echo $?");
b("assignment status of an empty value", "false; x=; echo $?; false; x+=1; echo $?; false; a[1]=2; echo $?");
b("assignment reads the previous status", "false; x=$?; echo \"x=$x now=$?\"");
b("assignment under set -e in an else branch", "set -e; if false; then :; else y=1; fi; echo \"y=$y\"");
b("assignment under set -e after a condition", "set -e; false || x=2; echo \"x=$x $?\"");
b("assignment of a failing substitution under set -e", "set -e; x=$(false); echo not reached");
b("assignment status in a function", "f() { false; x=1; }; f; echo $?; g() { x=$(exit 4); }; g; echo $?");
b("assignment status with a redirection", "false; x=1 > out.txt; echo $?; x=$(exit 2) > out.txt; echo $?");
b("assignment status in && lists", "false; x=1 && echo \"and $?\"; x=$(false) || echo \"or $?\"");
b("assignment status of local and export", "f() { local v=$(false); echo \"local $?\"; }; f; export w=$(false); echo \"export $?\"");
b("assignment status of arithmetic substitution", "false; x=$(( 1 + 2 )); echo $?; x=$(( $(exit 3) + 1 )); echo \"$? $x\"");
b("assignment status in a loop condition", "i=0; while x=$((i++ < 2 ? 0 : 1)); [ $x = 0 ]; do echo $i; done; echo $?");
b("assignment status of declare, readonly and typeset", "false; declare a=1; echo \"declare $?\"; declare b=$(false); echo \"declare-sub $?\"; readonly r=$(exit 2); echo \"readonly $?\"; typeset t=$(exit 3); echo \"typeset $?\"; false; declare -a arr=(1 2); echo \"array $?\"");
b("assignment status, substitution last", "x=1 y=$(exit 3); echo $?; x=$(exit 3) y=1; echo $?; x=$(exit 2) y=$?; echo \"$? y=$y\"");
b("assignment status, substitution forms", "x=`exit 6`; echo $?; x=$( (exit 7) ); echo $?; x=\"$(exit 8)\"; echo $?; x=${u:-$(exit 9)}; echo $?; false; a=(1 $(exit 4)); echo $?");
b("assignment before a command takes the command's status", "x=$(exit 5) true; echo $?; x=$(exit 5) false; echo $?");
b("assignment of a failing substitution under set -e in a function", "set -e; f() { v=$(false); echo not; }; f; echo end");
b("assignment of local, export and declare under set -e", "set -e; f() { local v=$(false); echo \"local $?\"; }; f; export e=$(false); echo \"export $?\"; declare d=$(false); echo \"declare $?\"");
b("assignment under set -e in || and && lists", "set -e; x=$(false) || echo \"caught $?\"; x=$(false) && echo yes; echo \"end $?\"; ! y=$(false); echo \"negated $?\"");
b("assignment under set -e, the last substitution decides", "set -e; x=$(exit 3) y=$(true); echo \"after $?\"; x=$(true) y=$(exit 3); echo not reached");
b("assignment under set -e in a loop and a case", "set -e; for i in 1 2; do false || y=$i; done; echo \"y=$y\"; case a in a) false || z=1;; esac; echo \"z=$z\"");
b("assignment and the ERR trap", "trap 'echo \"ERR $?\"' ERR; false; x=1; echo \"after $?\"; x=$(exit 3); echo \"sub $?\"");

// --- set -e is ignored inside a command of an && / || list other than the last, or negated with !
b("set -e ignored in a function before ||", "set -e; f() { false; echo \"in f\"; }; f || echo caught; echo end");
b("set -e ignored in a function before &&", "set -e; f() { false; echo \"in f\"; }; f && echo and; echo end");
b("set -e ignored in a negated function", "set -e; f() { false; echo \"in f\"; }; ! f; echo \"end $?\"");
b("set -e, a failing function before || is caught", "set -e; check() { [ -f missing ]; }; check || echo \"not there\"; echo end");
b("set -e ignored in nested functions before ||", "set -e; g() { false; echo g; }; f() { g; echo f; }; f || true; echo end");
b("set -e ignored in groups and compound commands before || and &&", "set -e; { false; echo group; } || echo or; if true; then false; echo if; fi || echo or; case x in x) false; echo case;; esac || echo or; for i in 1; do false; echo for; done && echo and; echo end");
b("set -e ignored in a subshell before ||", "set -e; ( false; echo sub ) || echo or; echo end");
b("set -e still acts in a function called alone", "set -e; f() { false; echo never; }; f; echo never");
b("set -e still acts after the list", "set -e; f() { false; }; f || echo caught; false; echo never");
b("set -e ignored with an ERR trap before ||", "set -e; trap 'echo ERR' ERR; f() { false; echo in; }; f || true; echo end; false; echo never");

// --- a command substitution clears set -e (bash outside POSIX mode), and its set stays inside it
b("set -e cleared in a command substitution", "set -e; x=$(false; echo hi); echo \"x=$x\"; echo \"$(false; echo there)\"; f() { false; echo f; }; y=$(f); echo \"y=$y\"");
b("set -e kept in a command substitution with inherit_errexit", "set -e; shopt -s inherit_errexit; x=$(false; echo hi); echo \"x=$x\"");
b("set inside a command substitution stays inside it", "x=$(set -e); false; echo \"still $?\"; y=$(set -o pipefail); false | true; echo \"pipefail $?\"");

export const BASH_CASES: BashCase[] = cases;
