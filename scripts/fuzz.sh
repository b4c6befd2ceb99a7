#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time each (default 3s):
# the CI smoke run of the fuzzers. Usage: scripts/fuzz.sh [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-3s}"
fail=0
count=0
while IFS= read -r file; do
  dir="./$(dirname "$file")"
  while IFS= read -r name; do
    count=$((count + 1))
    echo "fuzz $dir $name ($fuzztime)"
    if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$dir" > /tmp/fuzz-out.$$ 2>&1; then
      cat /tmp/fuzz-out.$$
      fail=$((fail + 1))
    fi
  done < <(grep -oE '^func (Fuzz[A-Za-z0-9_]+)' "$file" | awk '{print $2}')
done < <(grep -rlE '^func Fuzz' --include='*_test.go' . | sed 's#^\./##' | sort)
rm -f /tmp/fuzz-out.$$
echo "fuzz: $count targets, $fail failed"
[ "$fail" -eq 0 ]
