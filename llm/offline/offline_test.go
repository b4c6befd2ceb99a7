package offline

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func vec(e *Embedder, s string) []float32 {
	v := make([]float32, e.Dim())
	e.EmbedTo(v, s)
	return v
}

const obs = "You are in the kitchen. A wooden table stands here with a red apple on it. " +
	"There is a closed door to the north and an open window."

func TestSimilarity(t *testing.T) {
	e := New(0)
	tests := []struct {
		a, b     string
		min, max float64
	}{
		{obs, obs, 0.99999, 1.00001},
		{"Open the door!", "open   THE door", 0.99999, 1.00001},
		{obs, strings.Replace(obs, "red", "green", 1), 0.85, 0.99},
		{obs, strings.Replace(obs, "kitchen", "bedroom", 1), 0.85, 0.99},
		{"door", "doors", 0.1, 0.8},
		{"open the door", "eat a red apple", -0.25, 0.25},
		{"grab the lamp", "take the lantern", -0.3, 0.7},
	}
	for _, tc := range tests {
		got := dot(vec(e, tc.a), vec(e, tc.b))
		if got < tc.min || got > tc.max {
			t.Errorf("cos(%.30q, %.30q) = %.3f, want in [%v, %v]", tc.a, tc.b, got, tc.min, tc.max)
		}
	}
}

func TestNormAndDim(t *testing.T) {
	for _, dim := range []int{1, 7, 64, 1024, 3000} {
		e := New(dim)
		if e.Dim() != dim || e.Model() != "offline-hash-v1" {
			t.Fatalf("New(%d): Dim %d Model %q", dim, e.Dim(), e.Model())
		}
		vs, err := e.Embed(context.Background(), []string{"", "a", obs, "Ünïcödé Straße ΣΊΣΥΦΟΣ", strings.Repeat("x", 500), "!!!"})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if len(v) != dim {
				t.Fatalf("dim %d: vector %d has len %d", dim, i, len(v))
			}
			if n := math.Sqrt(dot(v, v)); math.Abs(n-1) > 1e-5 {
				t.Errorf("dim %d: |v[%d]| = %v", dim, i, n)
			}
		}
	}
	if New(-3).Dim() != DefaultDim {
		t.Errorf("New(-3).Dim() = %d, want %d", New(-3).Dim(), DefaultDim)
	}
}

func TestUnicodeLowercase(t *testing.T) {
	e := New(256)
	if got := dot(vec(e, "STRASSE ÄPFEL"), vec(e, "strasse äpfel")); got < 0.99999 {
		t.Errorf("unicode case folding: cos = %v", got)
	}
}

func TestEmbedCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(8).Embed(ctx, []string{"a"}); err == nil {
		t.Error("Embed with a canceled context succeeded")
	}
}

func TestEmbedToWrongLength(t *testing.T) {
	dst := []float32{5, 5}
	New(8).EmbedTo(dst, "a")
	if dst[0] != 5 || dst[1] != 5 {
		t.Errorf("EmbedTo wrote into a slice of the wrong length: %v", dst)
	}
}

func TestEmbedToAllocs(t *testing.T) {
	e := New(1024)
	dst := make([]float32, 1024)
	if n := testing.AllocsPerRun(100, func() { e.EmbedTo(dst, obs) }); n != 0 {
		t.Errorf("EmbedTo(ASCII) allocates %v times, want 0", n)
	}
}

func TestConcurrent(t *testing.T) {
	e := New(128)
	want := vec(e, obs)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				vs, _ := e.Embed(context.Background(), []string{obs})
				for i := range want {
					if vs[0][i] != want[i] {
						t.Errorf("concurrent Embed differs at %d", i)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestGolden pins the vectors: a change of features, weights or hash must
// come with a new Model name, because checkpoints store these vectors.
func TestGolden(t *testing.T) {
	e := New(32)
	texts := []string{"", "open the door", obs, "Ünïcödé"}
	got := map[string][]float32{}
	for _, s := range texts {
		got[s] = vec(e, s)
	}
	path := filepath.Join("testdata", "golden.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	var want map[string][]float32
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, s := range texts {
		if fmt.Sprint(got[s]) != fmt.Sprint(want[s]) {
			t.Errorf("vector of %q changed:\n got %v\nwant %v", s, got[s], want[s])
		}
	}
}

func FuzzEmbedTo(f *testing.F) {
	for _, s := range []string{"", obs, "Ünïcödé", "\xff\xfe", "a-b_c.d", strings.Repeat("ab ", 100)} {
		f.Add(s)
	}
	e := New(64)
	f.Fuzz(func(t *testing.T, s string) {
		v := vec(e, s)
		n := dot(v, v)
		if math.IsNaN(n) || math.Abs(n-1) > 1e-4 {
			t.Fatalf("|v|^2 = %v for %q", n, s)
		}
		w := vec(e, s)
		for i := range v {
			if v[i] != w[i] {
				t.Fatalf("not deterministic for %q", s)
			}
		}
	})
}

func BenchmarkEmbedTo(b *testing.B) {
	words := strings.Fields(obs)
	for _, n := range []int{10, 100, 1000} {
		var parts []string
		for i := range n {
			parts = append(parts, words[i%len(words)])
		}
		text := strings.Join(parts, " ")
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			e := New(DefaultDim)
			dst := make([]float32, DefaultDim)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				e.EmbedTo(dst, text)
			}
		})
	}
}

func BenchmarkEmbedBatch(b *testing.B) {
	for _, n := range []int{1, 32, 256} {
		texts := make([]string, n)
		for i := range texts {
			texts[i] = fmt.Sprintf("%s step %d", obs, i)
		}
		b.Run(fmt.Sprintf("texts=%d", n), func(b *testing.B) {
			e := New(DefaultDim)
			b.ReportAllocs()
			for b.Loop() {
				e.Embed(context.Background(), texts)
			}
		})
	}
}
