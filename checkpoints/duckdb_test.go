package checkpoints

import (
	"github.com/samem/trainer/internal/testenv"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// duckdbDir holds the Node script and, once `npm install` has run there, the
// npm package @duckdb/node-api (a DuckDB build with its native library),
// pinned in package.json.
const duckdbDir = "testdata/duckdb"

// duckdbResult is one line of testdata/duckdb/read.mjs.
type duckdbResult struct {
	File    string `json:"file"`
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	Rows []map[string]json.RawMessage `json:"rows"`
}

// TestDuckDBReadsCheckpoint writes a checkpoint and reads it back with
// DuckDB, a Parquet reader that shares no code with this package, through
// Node. It skips when node or the npm package is missing (in CI, where
// TRAINER_REQUIRE_ALL is set, that is a failure: see internal/testenv).
// Install: cd checkpoints/testdata/duckdb && npm install --no-audit --no-fund
func TestDuckDBReadsCheckpoint(t *testing.T) {
	node, err := exec.LookPath("node")
	testenv.Need(t, err == nil, "node (Debian package nodejs), for the DuckDB check")
	_, err = os.Stat(filepath.Join(duckdbDir, "node_modules", "@duckdb", "node-api", "package.json"))
	testenv.Need(t, err == nil, "@duckdb/node-api: run `cd checkpoints/testdata/duckdb && npm install --no-audit --no-fund`")
	ctx := context.Background()
	s, err := Open(t.TempDir(), 0)
	must(t, err)
	st := makeState(rand.New(rand.NewPCG(11, 11)), 30, 20, 4, testDim)
	st.States[0].Text = "it's a \"quoted\", multi-line\ntext with unicode: café ☕"
	st.QTable[0].Q = -0.1 // a value that is not exact in binary
	p, err := s.Begin(0)
	must(t, err)
	md, err := p.MethodDir("samem")
	must(t, err)
	must(t, SaveSAMem(ctx, md, st))
	meta := testMeta(123)
	dir, err := p.Commit(ctx, meta)
	must(t, err)

	files := []string{
		filepath.Join(dir, "samem", QTableFile),
		filepath.Join(dir, "samem", StatesFile),
		filepath.Join(dir, "samem", ThoughtsFile),
		filepath.Join(dir, MetaFile),
	}
	cmd := exec.CommandContext(ctx, node, append([]string{"read.mjs"}, files...)...)
	cmd.Dir = duckdbDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node read.mjs: %v\n%s", err, stderr.String())
	}
	var res []duckdbResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r duckdbResult
		must(t, json.Unmarshal(sc.Bytes(), &r))
		res = append(res, r)
	}
	if len(res) != len(files) {
		t.Fatalf("DuckDB read %d files, want %d", len(res), len(files))
	}

	wantTypes := []map[string]string{
		{"state_id": "BIGINT", "thought_id": "BIGINT", "q": "DOUBLE", "visits": "BIGINT", "last_update_step": "BIGINT"},
		{"id": "BIGINT", "text": "VARCHAR", "members": "BIGINT", "embedding": "FLOAT[]"},
		{"id": "BIGINT", "text": "VARCHAR", "members": "BIGINT", "embedding": "FLOAT[]"},
		{"format_version": "INTEGER", "method": "VARCHAR", "config_json": "VARCHAR", "iteration": "BIGINT", "global_step": "BIGINT",
			"epsilon": "DOUBLE", "embedder_model": "VARCHAR", "embed_dim": "INTEGER", "seed": "BIGINT", "rand_state": "VARCHAR", "created_unix": "BIGINT"},
	}
	for i, r := range res {
		got := map[string]string{}
		for _, c := range r.Columns {
			got[c.Name] = c.Type
		}
		if len(got) != len(wantTypes[i]) {
			t.Errorf("%s: DuckDB columns %v, want %v", files[i], got, wantTypes[i])
		}
		for name, typ := range wantTypes[i] {
			if got[name] != typ {
				t.Errorf("%s: DuckDB column %s is %q, want %q", files[i], name, got[name], typ)
			}
		}
	}

	// Q-table rows, in file order.
	if len(res[0].Rows) != len(st.QTable) {
		t.Fatalf("DuckDB Q-table has %d rows, want %d", len(res[0].Rows), len(st.QTable))
	}
	for i, row := range res[0].Rows {
		got := QRow{StateID: i64(t, row["state_id"]), ThoughtID: i64(t, row["thought_id"]), Q: f64(t, row["q"]),
			Visits: i64(t, row["visits"]), LastUpdateStep: i64(t, row["last_update_step"])}
		if got != st.QTable[i] {
			t.Errorf("DuckDB Q-table row %d = %+v, want %+v", i, got, st.QTable[i])
		}
	}
	for k, want := range [][]ClusterRow{st.States, st.Thoughts} {
		rows := res[1+k].Rows
		if len(rows) != len(want) {
			t.Fatalf("%s: DuckDB read %d rows, want %d", files[1+k], len(rows), len(want))
		}
		for i, row := range rows {
			var text string
			var emb []float64
			must(t, json.Unmarshal(row["text"], &text))
			must(t, json.Unmarshal(row["embedding"], &emb))
			w := want[i]
			if i64(t, row["id"]) != w.ID || text != w.Text || i64(t, row["members"]) != w.Members || len(emb) != len(w.Embedding) {
				t.Errorf("%s row %d: DuckDB id %s text %q members %s embedding len %d; want %+v", files[1+k], i, row["id"], text, row["members"], len(emb), w)
				continue
			}
			for j := range emb {
				if float32(emb[j]) != w.Embedding[j] {
					t.Errorf("%s row %d: embedding[%d] = %v, want %v", files[1+k], i, j, emb[j], w.Embedding[j])
					break
				}
			}
		}
	}
	m := res[3].Rows
	if len(m) != 1 {
		t.Fatalf("DuckDB meta has %d rows, want 1", len(m))
	}
	var method, model, randState, cfg string
	must(t, json.Unmarshal(m[0]["method"], &method))
	must(t, json.Unmarshal(m[0]["embedder_model"], &model))
	must(t, json.Unmarshal(m[0]["rand_state"], &randState))
	must(t, json.Unmarshal(m[0]["config_json"], &cfg))
	if method != meta.Method || model != meta.EmbedderModel || randState != meta.RandState || cfg != meta.ConfigJSON ||
		i64(t, m[0]["format_version"]) != FormatVersion || i64(t, m[0]["embed_dim"]) != int64(meta.EmbedDim) ||
		i64(t, m[0]["global_step"]) != meta.GlobalStep || f64(t, m[0]["epsilon"]) != meta.Epsilon || i64(t, m[0]["seed"]) != meta.Seed {
		t.Errorf("DuckDB meta = %v, want %+v", m[0], meta)
	}
}

// i64 decodes a DuckDB JSON integer: BIGINT arrives as a string, INTEGER
// as a number.
func i64(t *testing.T, raw json.RawMessage) int64 {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		n, err := strconv.ParseInt(s, 10, 64)
		must(t, err)
		return n
	}
	var n int64
	must(t, json.Unmarshal(raw, &n))
	return n
}

func f64(t *testing.T, raw json.RawMessage) float64 {
	t.Helper()
	var f float64
	must(t, json.Unmarshal(raw, &f))
	return f
}
