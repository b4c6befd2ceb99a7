package app

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/samem/trainer/checkpoints"
	"github.com/samem/trainer/internal/testenv"
)

// TestTrainOnHunt: a short offline training run on hunt.z8, one of
// AriGraph's games in ../shared/games, completes end to end through dfrotz
// and writes a checkpoint.
func TestTrainOnHunt(t *testing.T) {
	game := filepath.Join("..", "..", "shared", "games", "arigraph", "hunt.z8")
	_, err := os.Stat(game)
	testenv.Need(t, err == nil, "the shared game "+game)
	_, err = exec.LookPath("dfrotz")
	if err != nil {
		_, err = os.Stat("/usr/games/dfrotz")
	}
	testenv.Need(t, err == nil, "dfrotz (apt-get install frotz)")

	cfg := Defaults()
	cfg.Run = t.TempDir()
	cfg.Env = EnvConfig{Kind: "zmachine", Game: game, MaxSteps: 15}
	cfg.Iterations, cfg.Workers = 2, 1
	res, err := Train(context.Background(), cfg, Streams{Out: io.Discard, Err: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].History) != 2 || res[0].History[1].Steps == 0 {
		t.Fatalf("train results = %+v", res)
	}
	store, err := checkpoints.Open(filepath.Join(cfg.Run, "samem"), 0)
	if err != nil {
		t.Fatal(err)
	}
	dir, meta, err := store.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if meta.Iteration != 1 && filepath.Base(dir) != checkpoints.DirName(1) {
		t.Errorf("latest checkpoint %s (iteration %d), want the second", dir, meta.Iteration)
	}
}
