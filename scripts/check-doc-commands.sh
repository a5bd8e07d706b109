#!/usr/bin/env bash
# The docs check (ctest docs.commands): every `sluice …` command line in a ```sh block of the
# README and docs/ must name commands that exist and flags those commands take, so that the
# docs cannot drift from the command line. For each line: `sluice <commands…> --help` must
# exit 0, and every --flag or -f the line uses must appear in that help.
#
#   scripts/check-doc-commands.sh BUILD/sluice SOURCE_DIR
set -euo pipefail
sluice="$1"
source_dir="$2"
checked=0
failed=0

check_line() {
  local file="$1" line="$2"
  # Words of the command after "sluice" (a build/ prefix allowed), up to a pipe or redirect.
  local rest="${line#*sluice }"
  rest="${rest%%[|<>]*}"
  read -r -a words <<<"$rest"
  local path=()
  for w in "${words[@]}"; do
    [[ "$w" == -* ]] && break
    # A command word is lower-case letters and dashes; the first other word is an argument.
    [[ "$w" =~ ^[a-z][a-z-]*$ ]] || break
    path+=("$w")
  done
  # Drop trailing words that are arguments, not commands (dead-letters show 42).
  # CLI11 answers --help before it refuses a stray word: the usage line must name the path.
  local help
  while ! help=$("$sluice" "${path[@]}" --help 2>&1) || ! grep -q "^Usage: sluice ${path[*]} " <<<"$help"; do
    if [[ ${#path[@]} -le 1 ]]; then
      echo "$file: \`sluice $rest\`: no command sluice ${path[*]}" >&2
      failed=$((failed + 1))
      return
    fi
    unset 'path[${#path[@]}-1]'
  done
  for w in "${words[@]}"; do
    [[ "$w" == -* ]] || continue
    local flag="${w%%=*}"
    if ! grep -q -- "$flag\\b" <<<"$help"; then
      echo "$file: \`sluice $rest\`: sluice ${path[*]} takes no $flag" >&2
      failed=$((failed + 1))
    fi
  done
  checked=$((checked + 1))
}

for file in "$source_dir"/README.md "$source_dir"/docs/*.md; do
  in_sh=0
  while IFS= read -r line; do
    if [[ "$line" =~ ^\`\`\`sh ]]; then in_sh=1; continue; fi
    if [[ "$line" =~ ^\`\`\` ]]; then in_sh=0; continue; fi
    [[ $in_sh -eq 1 ]] || continue
    if [[ "$line" =~ ^[[:space:]]*(build/)?sluice[[:space:]] ]]; then
      check_line "${file#"$source_dir"/}" "$line"
    fi
  done <"$file"
done

echo "docs.commands: $checked command line(s) checked, $failed problem(s)"
[[ $checked -gt 0 && $failed -eq 0 ]]
