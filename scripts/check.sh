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

step "go vet"
"$GO" vet ./...

step "staticcheck $STATICCHECK"
if "$GO" run "$STATICCHECK" -version > /dev/null 2>&1; then
  "$GO" run "$STATICCHECK" ./...
else
  echo "staticcheck skipped: $GO run $STATICCHECK could not build it (no module proxy, and not in the module cache)"
fi

step "go test -short"
"$GO" test -short ./...
echo "== check passed in ${SECONDS}s"
