#!/usr/bin/env bash
# The quick inner loop (make check): gofmt, go vet, staticcheck and the
# -short tests. make test (and CI's .ci/run) stays the full tier.
#
# staticcheck is built from a pinned version with `go run`, so nothing is
# installed by hand; when it cannot be built (no module proxy and not in
# the module cache) it is skipped with a message, and the other steps
# still decide the result. It runs with its default checks; each
# //lint:ignore line in the code says why that place is an exception.
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
STATICCHECK="${STATICCHECK:-honnef.co/go/tools/cmd/staticcheck@v0.8.2}"

step() { echo "== $1 (at ${SECONDS}s)"; }

step gofmt
unformatted="$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -not -path '*/node_modules/*' -print0 | xargs -0 gofmt -l)"
if [ -n "$unformatted" ]; then
  echo "not gofmt-formatted (gofmt -w FILE):"
  echo "$unformatted"
  exit 1
fi

# go vet and staticcheck run beside the tests, their output kept in files
# and printed when the tests end: the tests spend part of their time
# waiting (processes, servers, sleeps), and with everything cached vet and
# staticcheck take seconds. A failure of any of the three fails the check
# with its output.
#
# go test runs with -vet=off: go vet ./... (beside it) runs a superset of
# the analyzers go test would run first. Most of the test step's CPU with a
# warm build cache and no cached results is linking the ~80 test binaries
# (go test already links them with -s -w) and the tests themselves.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

step "go vet and staticcheck $STATICCHECK (beside the tests)"
( rc=0; "$GO" vet ./... > "$out/vet" 2>&1 || rc=$?; echo "$rc" > "$out/vet.rc" ) &
(
  if "$GO" run "$STATICCHECK" -version > /dev/null 2>&1; then
    rc=0
    "$GO" run "$STATICCHECK" ./... > "$out/staticcheck" 2>&1 || rc=$?
    echo "$rc" > "$out/staticcheck.rc"
  else
    echo "staticcheck skipped: $GO run $STATICCHECK could not build it (no module proxy, and not in the module cache)" > "$out/staticcheck"
    echo 0 > "$out/staticcheck.rc"
  fi
) &

step "go test -short"
test_rc=0
"$GO" test -short -vet=off ./... || test_rc=$?
wait

failed=""
for name in vet staticcheck; do
  rc="$(cat "$out/$name.rc" 2>/dev/null || echo 1)"
  if [ -s "$out/$name" ] || [ "$rc" != 0 ]; then
    echo "== $name (exit status $rc)"
    cat "$out/$name"
  fi
  if [ "$rc" != 0 ]; then
    failed="$failed $name"
  fi
done
if [ "$test_rc" != 0 ]; then
  failed="$failed go-test"
fi
if [ -n "$failed" ]; then
  echo "== check failed in ${SECONDS}s:$failed"
  exit 1
fi
echo "== check passed in ${SECONDS}s"
