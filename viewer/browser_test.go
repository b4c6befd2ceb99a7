package viewer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/samem/trainer/inspect"
	"github.com/samem/trainer/internal/testenv"
)

// browserPath is the Chromium (or Chrome) installed on the machine, or "".
func browserPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless browser for the test and returns a context of
// one tab and the page errors seen so far (console errors, uncaught
// exceptions, failed loads), read with errs().
func browser(t testing.TB) (ctx context.Context, errs func() []string) {
	t.Helper()
	path := browserPath()
	testenv.Need(t, path != "", "a Chromium browser (Debian: apt-get install chromium)")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(cancelB)
	var mu sync.Mutex
	var seen []string
	if err := chromedp.Listen(bctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				msg = "console." + string(e.Type) + ": " + strings.Join(parts, " ")
			}
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				msg = "log: " + e.Entry.Text + " " + e.Entry.URL
			}
		}
		if msg != "" {
			mu.Lock()
			seen = append(seen, msg)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	return bctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// open loads the viewer at hash in a fresh page and waits until the view
// has rendered; it returns the page's own measure of the time from the
// start of navigation to the view's rendering.
func open(ctx context.Context, index, hash, view string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate("file://"+index+"#"+hash),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"][data-view="`+view+`"]`))); err != nil {
		return 0, fmt.Errorf("view %s (#%s): %w", view, hash, err)
	}
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.readyMs`))
	if err != nil {
		return 0, err
	}
	n, _ := strconv.Atoi(ms)
	if e, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.error || ""`)); e != "" {
		return 0, fmt.Errorf("view %s (#%s) failed: %s", view, hash, e)
	}
	return time.Duration(n) * time.Millisecond, nil
}

// artifacts is where the test leaves its screenshots: $TRAINER_ARTIFACTS/viewer
// when set (CI keeps it), else a folder under the system's temporary one.
func artifacts(t *testing.T) string {
	dir := os.Getenv("TRAINER_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "trainer-artifacts")
	}
	dir = filepath.Join(dir, "viewer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestViewerInBrowser opens every view of a viewer made from a small run
// of every method in headless Chromium: each renders with no console
// error, exception or failed load; the SAMem episode view of a guided
// step names the thought and Q-value of the latest checkpoint for the
// matched state; a screenshot of each view is saved.
func TestViewerInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("trains and evaluates every method and drives a browser (runs without -short)")
	}
	ctx, errs := browser(t)
	run := smallRun(t)
	out := filepath.Join(t.TempDir(), "viewer")
	if _, err := Write(context.Background(), Options{Run: run, Out: out}); err != nil {
		t.Fatal(err)
	}
	ix := readIndex(t, out)
	index := filepath.Join(out, "index.html")
	shots := artifacts(t)

	// A SAMem evaluation episode with a guided step, and a failed episode
	// of another method on a task SAMem also played.
	var guided, failed, other string
	for _, e := range ix.Episodes {
		if e.Method == "samem" && e.Mode == "eval" && e.Guided > 0 && guided == "" {
			guided = e.ID
		}
	}
	for _, e := range ix.Episodes {
		if e.Mode != "eval" || e.Method == "samem" || e.Won || failed != "" {
			continue
		}
		for _, s := range ix.Episodes {
			if s.Method == "samem" && s.Mode == "eval" && s.Task == e.Task {
				failed, other = e.ID, s.ID
			}
		}
	}
	if guided == "" {
		t.Fatal("no SAMem evaluation episode with a guided step in the small run")
	}
	views := []struct{ name, hash, view string }{
		{"compare", "compare", "compare"},
		{"episodes", "episodes", "episodes"},
		{"episode-samem", "episode/" + guided, "episode"},
		{"curves", "curves", "curves"},
		{"qtable", "qtable", "qtable"},
		{"provenance", "provenance", "provenance"},
	}
	if failed != "" {
		views = append(views, struct{ name, hash, view string }{"pair", "pair/" + failed + "/" + other, "pair"})
	}
	for _, m := range ix.Methods {
		views = append(views, struct{ name, hash, view string }{"memory-" + m.Name, "memory?method=" + m.Name, "memory"})
	}
	for _, v := range views {
		if _, err := open(ctx, index, v.hash, v.view); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, v.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		if e := errs(); len(e) > 0 {
			t.Fatalf("view %s: page errors: %v", v.name, e)
		}
	}
	t.Logf("screenshots of %d views in %s", len(views), shots)

	// The guided step's used thought, as the page shows it, against the
	// latest checkpoint.
	if _, err := open(ctx, index, "episode/"+guided, "episode"); err != nil {
		t.Fatal(err)
	}
	type shown struct {
		State, Thought, Q, Text string
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`(() => {
		const st = document.querySelector('.step[data-guided="1"]');
		const tr = st.querySelector('tr[data-used="1"]');
		return {State: st.querySelector('.match').dataset.match, Thought: tr.dataset.id, Q: tr.dataset.q, Text: tr.children[2].textContent};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := inspect.Open(context.Background(), run, "samem")
	if err != nil {
		t.Fatal(err)
	}
	q, err := strconv.ParseFloat(got.Q, 64)
	if err != nil {
		t.Fatalf("the page shows q %q: %v", got.Q, err)
	}
	var found bool
	for _, r := range c.Memory.QTable {
		if strconv.FormatInt(r.StateID, 10) == got.State && strconv.FormatInt(r.ThoughtID, 10) == got.Thought {
			found = true
			if r.Q != q {
				t.Errorf("state %s thought %s: the page shows q %v, the checkpoint %v", got.State, got.Thought, q, r.Q)
			}
		}
	}
	if !found {
		t.Errorf("the page's guided thought (state %s, thought %s) is not in %s", got.State, got.Thought, c.Dir)
	}
	for _, th := range c.Memory.Thoughts {
		if strconv.FormatInt(th.ID, 10) == got.Thought && th.Text != got.Text {
			t.Errorf("thought %s: the page shows %q, the checkpoint %q", got.Thought, got.Text, th.Text)
		}
	}
	if e := errs(); len(e) > 0 {
		t.Fatalf("page errors: %v", e)
	}

	// Results with intervals and paired comparisons (summary.json of
	// repeated runs) show them in the comparison.
	withCI := filepath.Join(t.TempDir(), "run")
	if err := os.CopyFS(withCI, os.DirFS(filepath.Join(run, "eval"))); err != nil {
		t.Fatal(err)
	}
	sumPath := filepath.Join(withCI, ix.Evals[0].Name, "summary.json")
	var results []map[string]any
	b, err := os.ReadFile(sumPath)
	if err == nil {
		err = json.Unmarshal(b, &results)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		r["seeds"] = []int{1, 2, 3}
		r["intervals"] = map[string]any{"success": map[string]any{"mean": 0.5, "low": 0.125, "high": 0.875, "n": 3, "over": "seeds", "method": "t"}}
		r["paired"] = []map[string]any{{"against": "nomemory", "metric": "success", "result": map[string]any{"pairs": 12, "difference": 0.25}}}
	}
	if b, err = json.Marshal(results); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(sumPath, b, 0o644)
	ciRun := filepath.Dir(withCI)
	os.Rename(withCI, filepath.Join(ciRun, "eval"))
	ciOut := filepath.Join(ciRun, "viewer")
	if _, err := Write(context.Background(), Options{Run: ciRun, Out: ciOut}); err != nil {
		t.Fatal(err)
	}
	if _, err := open(ctx, filepath.Join(ciOut, "index.html"), "compare", "compare"); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[0.13, 0.88]", "over 3 seeds", "Paired comparisons", "run seeds 1, 2, 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("the comparison with intervals does not show %q:\n%s", want, text)
		}
	}
	if e := errs(); len(e) > 0 {
		t.Fatalf("page errors: %v", e)
	}
}

// readIndex reads the index a viewer folder holds.
func readIndex(t testing.TB, out string) Index {
	b, err := os.ReadFile(filepath.Join(out, "data", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(strings.TrimPrefix(string(b), "viewerIndex("), ");\n")
	var ix Index
	if err := json.Unmarshal([]byte(s), &ix); err != nil {
		t.Fatal(err)
	}
	return ix
}
