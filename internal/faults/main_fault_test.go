package faults_test

import (
	"os"
	"testing"

	"github.com/samem/trainer/internal/faults"
)

// TestMain doubles as the fake JSON-lines environment (faults.EnvMain).
func TestMain(m *testing.M) {
	faults.EnvMain()
	os.Exit(m.Run())
}
