#!/usr/bin/env bash
# Checks that every C++ source (.h/.cc) is formatted per .clang-format (CTest: format.check).
#
#   ./scripts/check-format.sh          report unformatted files, exit 1 if any
#   ./scripts/check-format.sh --fix    reformat them in place
#
# Files: in a git checkout, the tracked ones plus untracked ones that are not ignored;
# otherwise every .h/.cc outside build folders.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
clang_format="${CLANG_FORMAT:-clang-format}"
command -v "$clang_format" >/dev/null || {
  echo "check-format.sh: $clang_format not found (integration/services/install-deps.sh)" >&2
  exit 1
}

files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' f; do
    [[ -f "$f" ]] && files+=("$f")
  done < <(git ls-files -z --cached --others --exclude-standard -- '*.h' '*.cc')
else
  while IFS= read -r -d '' f; do files+=("$f"); done < <(
    find . \( -path './build*' -o -path './.git' -o -path './out' -o -path './.cache' \) -prune \
      -o -type f \( -name '*.h' -o -name '*.cc' \) -print0
  )
fi

if ((${#files[@]} == 0)); then
  echo "check-format.sh: no .h/.cc files"
  exit 0
fi

if [[ "${1:-}" == --fix ]]; then
  "$clang_format" -i --style=file "${files[@]}"
  echo "check-format.sh: formatted ${#files[@]} files"
  exit 0
fi

if report="$("$clang_format" --dry-run --Werror --style=file "${files[@]}" 2>&1)"; then
  echo "check-format.sh: ${#files[@]} files formatted"
  exit 0
fi
# One line per unformatted file, then the first diagnostics (the full list can be long).
bad="$(grep -oE '^[^: ]+\.(h|cc):[0-9]+:[0-9]+: error' <<<"$report" | cut -d: -f1 | sort -u)"
echo "check-format.sh: $(wc -l <<<"$bad") of ${#files[@]} files are not clang-formatted:" >&2
sed 's/^/  /' <<<"$bad" >&2
echo "first diagnostics:" >&2
head -n 30 <<<"$report" >&2
echo "fix: ./scripts/check-format.sh --fix" >&2
exit 1
