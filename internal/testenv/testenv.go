// Package testenv decides what a test does when something it needs is
// missing on the machine (a Debian package, ../shared/games, node): on a
// user's machine it skips with a message naming what is missing; in CI
// (TRAINER_REQUIRE_ALL=1, set by .ci/run) it fails, so that CI never passes
// by skipping.
package testenv

import (
	"os"
	"testing"
)

// RequireAllVar is the environment variable that turns skips into failures.
const RequireAllVar = "TRAINER_REQUIRE_ALL"

// Need skips (or, in CI, fails) the test when ok is false; missing says what
// is missing and how to get it.
func Need(t testing.TB, ok bool, missing string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv(RequireAllVar) != "" {
		t.Fatalf("missing: %s (%s is set, so this test may not skip)", missing, RequireAllVar)
	}
	t.Skipf("skipped: missing %s", missing)
}
