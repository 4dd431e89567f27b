# The toolshell demo: one script chains calls across three real MCP servers and our own tools.
# filesystem (reads the notes) → triage + word-stats (our tools, Zod and JSON Schema)
# → memory (remembers each note) → everything (loaded on demand: sums the counts).
set -euo pipefail

root=$(tools filesystem list-allowed-directories | jq -r '.content' | tail -n 1)
notes=$(tools filesystem search-files path="$root/notes" pattern='*.md' | jq -r '.content')

total=0
high=()
for file in $notes; do
  text=$(tools filesystem read-text-file path="$file" | jq -r '.content')
  title=$(head -n 1 <<<"$text" | sed 's/^# //')
  rating=$(tools triage title="$title" text="$text")
  words=$(tools word-stats text="$text" top=2 | jq '.words')
  jq -n --arg name "$title" --arg p "$(jq -r .priority <<<"$rating")" --argjson w "$words" \
    '{entities: [{name: $name, entityType: "note", observations: ["priority: \($p)", "words: \($w)"]}]}' \
    | tools memory create-entities >/dev/null
  total=$(tools everything get-sum a="$total" b="$words" | grep -oE '[0-9]+' | tail -n 1)
  if [ "$(jq -r .priority <<<"$rating")" = high ]; then high+=("$title ($(jq -r '.because | join(", ")' <<<"$rating"))"); fi
done

remembered=$(tools memory search-nodes query=note | jq '.entities | length')
echo "Read $(wc -w <<<"$notes") notes, $total words; remembered $remembered in memory."
echo "High priority:"
printf '  - %s\n' "${high[@]}"
