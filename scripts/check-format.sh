#!/usr/bin/env bash
# Checks that every C and C++ file git tracks is formatted by the repo's .clang-format
# (clang-format 14, the version scripts/install-deps.sh installs). Prints each file that is not,
# and how to fix it; exits 1 then. Run by CTest (label `format`) and usable alone.
#   scripts/check-format.sh            check
#   scripts/check-format.sh --fix      reformat in place
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CLANG_FORMAT="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
if [[ -z "$CLANG_FORMAT" ]]; then
  echo "check-format: clang-format (14) not found; scripts/install-deps.sh installs it" >&2
  exit 2
fi
if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "check-format: not a git checkout; nothing to check" >&2
  exit 0
fi
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp' '*.cc' '*.cu' | while read -r f; do
  [[ -f "$f" ]] && printf '%s\n' "$f"
done)
if [[ "${1:-}" == "--fix" ]]; then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$CLANG_FORMAT" -i
  exit 0
fi
# One clang-format process per batch of files; the files it would change are those it warns about.
mapfile -t bad < <(printf '%s\0' "${files[@]}" |
  xargs -0 -n 100 "$CLANG_FORMAT" --dry-run 2>&1 |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: \(warning\|error\): .*/\1/p' | sort -u)
if ((${#bad[@]})); then
  printf 'not formatted: %s\n' "${bad[@]}"
  echo "${#bad[@]} of ${#files[@]} files differ from .clang-format; fix with scripts/check-format.sh --fix"
  exit 1
fi
echo "all ${#files[@]} C/C++ files formatted"
