package offline

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/samem/trainer/envbridge"
	"github.com/samem/trainer/internal/golden"
)

// TestRulesGolden pins the offline extractor on real observation texts
// (TextWorld games and household phrasing) under testdata/obs.
func TestRulesGolden(t *testing.T) {
	files, err := os.ReadDir("testdata/obs")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name, ok := strings.CutSuffix(f.Name(), ".txt")
		if !ok {
			continue
		}
		b, err := os.ReadFile("testdata/obs/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		style := envbridge.StyleFiction
		if strings.HasPrefix(name, "household") {
			style = envbridge.StyleHousehold
		}
		o := Rules{}.Extract(style, string(b), "go north", "corridor")
		var sb strings.Builder
		fmt.Fprintf(&sb, "location: %s\n", o.Location)
		for _, x := range o.Triplets {
			fmt.Fprintln(&sb, x)
		}
		golden.Check(t, "obs/"+name+".golden", []byte(sb.String()))
	}
}

func FuzzRules(f *testing.F) {
	for _, name := range []string{"fiction_kitchen", "fiction_hunt", "household_open"} {
		b, _ := os.ReadFile("testdata/obs/" + name + ".txt")
		f.Add(string(b), "go north", "corridor", name[0] == 'h')
	}
	f.Fuzz(func(t *testing.T, text, action, prev string, hh bool) {
		style := envbridge.StyleFiction
		if hh {
			style = envbridge.StyleHousehold
		}
		o := Rules{}.Extract(style, text, action, prev)
		for _, x := range o.Triplets {
			if !x.Valid() {
				t.Errorf("invalid triplet %v", x)
			}
		}
	})
}
