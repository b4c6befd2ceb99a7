package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSeedCapsHoldOverSeeds: -budget and -max-requests cap a run over
// seeds as a whole: a seed may spend what the other seeds' sub-runs left,
// and is refused (ErrBudget) once they reached a cap.
func TestSeedCapsHoldOverSeeds(t *testing.T) {
	cfg := Config{Run: t.TempDir(), Seeds: []int64{1, 2, 3}, Budget: 10, MaxRequests: 100}
	spend := func(seed int64, usd float64, req int64) {
		dir := SeedRun(cfg.Run, seed)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b := fmt.Sprintf(`{"command":"train","spent":{"requests":%d,"cost_usd":%g,"episodes":1}}`, req, usd)
		if err := os.WriteFile(filepath.Join(dir, TrainUsageFile), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Nothing spent: every seed has the whole caps.
	c, err := seedCaps(cfg, seedConfig(cfg, 1))
	if err != nil || c.Budget != 10 || c.MaxRequests != 100 {
		t.Fatalf("nothing spent: budget %v, max requests %d, %v; want 10, 100, nil", c.Budget, c.MaxRequests, err)
	}
	// Seeds 1 and 2 spent: seed 3 has the rest, seed 1 what 2 left (its own
	// spending is counted by its own train command).
	spend(1, 2.5, 30)
	spend(2, 4, 20)
	if c, err = seedCaps(cfg, seedConfig(cfg, 3)); err != nil || c.Budget != 3.5 || c.MaxRequests != 50 {
		t.Errorf("seed 3: budget %v, max requests %d, %v; want 3.5, 50, nil", c.Budget, c.MaxRequests, err)
	}
	if c, err = seedCaps(cfg, seedConfig(cfg, 1)); err != nil || c.Budget != 6 || c.MaxRequests != 80 {
		t.Errorf("seed 1: budget %v, max requests %d, %v; want 6, 80, nil", c.Budget, c.MaxRequests, err)
	}
	// The others reached -budget: seed 3 is refused before it starts.
	spend(2, 7.5, 20)
	if _, err = seedCaps(cfg, seedConfig(cfg, 3)); !errors.Is(err, ErrBudget) {
		t.Errorf("others spent $10 of $10: %v, want ErrBudget", err)
	}
	// Only -max-requests set: the budget stays off.
	cfg.Budget = 0
	spend(2, 7.5, 70)
	if _, err = seedCaps(cfg, seedConfig(cfg, 3)); !errors.Is(err, ErrBudget) {
		t.Errorf("others sent 100 of -max-requests 100: %v, want ErrBudget", err)
	}
	if c, err = seedCaps(cfg, seedConfig(cfg, 2)); err != nil || c.Budget != 0 || c.MaxRequests != 70 {
		t.Errorf("seed 2 with -max-requests only: budget %v, max requests %d, %v; want 0, 70, nil", c.Budget, c.MaxRequests, err)
	}
}
