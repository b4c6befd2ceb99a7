package viewer

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/samem/trainer/app"
)

// The memory an online evaluation left is listed after the trained
// checkpoints of its method, and its tables are written like theirs.
func TestOnlineMemoryShown(t *testing.T) {
	ctx := context.Background()
	quiet := app.Streams{Out: io.Discard, Err: io.Discard}
	cfg := app.Defaults()
	cfg.Run = t.TempDir()
	cfg.Methods = []string{"clin"}
	cfg.Workers, cfg.Iterations, cfg.PerType = 1, 1, 1
	cfg.LLM.EmbedDim = 64
	if _, err := app.Train(ctx, cfg, quiet); err != nil {
		t.Fatal(err)
	}
	cfg.EvalPerType, cfg.Online = 1, app.OnlineOn
	res, err := app.Eval(ctx, cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Online == nil || res[0].Online.Memory == "" {
		t.Fatalf("online evaluation: %+v; want its memory saved", res)
	}
	evals, err := os.ReadDir(filepath.Join(cfg.Run, "eval"))
	if err != nil || len(evals) != 1 {
		t.Fatalf("evaluations: %v, %v", evals, err)
	}
	ck := OnlinePrefix + evals[0].Name()

	out := filepath.Join(t.TempDir(), "viewer")
	if _, err := Write(ctx, Options{Run: cfg.Run, Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "data", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	ix := Index{}
	if err := json.Unmarshal([]byte(s[strings.IndexByte(s, '{'):strings.LastIndexByte(s, '}')+1]), &ix); err != nil {
		t.Fatal(err)
	}
	if len(ix.Methods) != 1 || len(ix.Methods[0].Checkpoints) < 2 || ix.Methods[0].Checkpoints[len(ix.Methods[0].Checkpoints)-1] != ck {
		t.Fatalf("methods %+v; want clin's trained checkpoints then %s", ix.Methods, ck)
	}
	mem, err := os.ReadFile(filepath.Join(out, "data", "mem", "clin", ck+".js"))
	if err != nil {
		t.Fatal(err)
	}
	trained, err := os.ReadFile(filepath.Join(out, "data", "mem", "clin", ix.Methods[0].Checkpoints[0]+".js"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mem), `"memories"`) || len(mem) <= len(trained) {
		t.Errorf("%s.js: %d bytes, trained %d; want clin's tables with the trials the evaluation added", ck, len(mem), len(trained))
	}
}
