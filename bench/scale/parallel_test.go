package scale

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/samem/trainer/bench/fakeai"
	"github.com/samem/trainer/checkpoints"
)

// byText is a memory keyed by texts instead of cluster ids (ids depend on
// the order clusters were created in, which parallel episodes change).
type byText struct {
	states, thoughts map[string]int64 // text -> members
	q                map[[2]string]qval
	visits           int64
}

type qval struct {
	q      float64
	visits int64
}

func keyed(t *testing.T, st checkpoints.SAMemState) byText {
	t.Helper()
	b := byText{states: map[string]int64{}, thoughts: map[string]int64{}, q: map[[2]string]qval{}}
	sText, tText := map[int64]string{}, map[int64]string{}
	for _, r := range st.States {
		if _, dup := b.states[r.Text]; dup {
			t.Errorf("two state clusters hold %q", r.Text)
		}
		b.states[r.Text], sText[r.ID] = r.Members, r.Text
	}
	for _, r := range st.Thoughts {
		if _, dup := b.thoughts[r.Text]; dup {
			t.Errorf("two thought clusters hold %q", r.Text)
		}
		b.thoughts[r.Text], tText[r.ID] = r.Members, r.Text
	}
	for _, r := range st.QTable {
		b.q[[2]string{sText[r.StateID], tText[r.ThoughtID]}] = qval{r.Q, r.Visits}
		b.visits += r.Visits
	}
	return b
}

// TestParallelUpdatesMatchSerial trains SAMem on the chain world with one
// worker and with six, through the OpenAI client against a server whose
// latency jitters (so episodes interleave differently each time), and
// checks that parallel episodes update the memory exactly as serial ones.
//
// The criterion is exact equality, keyed by text, of every cluster (its
// member count), every Q-table entry's value and visit count. It holds for
// any correct serialisation of the updates because of how the world is
// built: each task's rooms are its own states, updated in order within its
// own episode, and iterations do not overlap (the runner waits for all
// episodes); the lobby, shared by all tasks, is updated concurrently by
// every episode, but its targets (gamma times the value of the task's first
// room) are equal across tasks by symmetry, so the order of its updates
// does not change its value. A lost or torn update, a cluster created twice
// or a visit counted twice shows as a difference.
func TestParallelUpdatesMatchSerial(t *testing.T) {
	const tasks, length, iterations = 12, 3, 3
	srv := fakeai.New(fakeai.Config{Dim: 64, Reply: ChainReply, Jitter: 3 * time.Millisecond, Rand: rand.New(rand.NewPCG(7, 7))})
	defer srv.Close()
	run := func(workers int) byText {
		m, err := ChainRun{URL: srv.URL, Dim: 64, Workers: workers, Tasks: tasks, Length: length,
			Iterations: iterations, SharedStart: true, Tag: "(test)", Seed: 3}.Train(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return keyed(t, m.Snapshot())
	}
	serial, parallel := run(1), run(6)

	// The serial run itself is what the world says it must be.
	if want := int64(tasks * length * iterations); serial.visits != want {
		t.Fatalf("serial run: %d visits, want %d (one per step)", serial.visits, want)
	}
	lobby := "You are in the lobby (test)."
	if got := serial.states[lobby]; got != tasks*iterations {
		t.Fatalf("serial run: lobby cluster has %d members, want %d", got, tasks*iterations)
	}
	// One entry per room: the shared lobby, then each task's own rooms.
	if want := 1 + tasks*(length-1); len(serial.q) != want {
		t.Fatalf("serial run: %d Q entries, want %d", len(serial.q), want)
	}

	if parallel.visits != serial.visits {
		t.Errorf("visits: parallel %d, serial %d", parallel.visits, serial.visits)
	}
	for name, m := range map[string][2]map[string]int64{"state": {serial.states, parallel.states}, "thought": {serial.thoughts, parallel.thoughts}} {
		if len(m[0]) != len(m[1]) {
			t.Errorf("%s clusters: serial %d, parallel %d", name, len(m[0]), len(m[1]))
		}
		for text, n := range m[0] {
			if m[1][text] != n {
				t.Errorf("%s cluster %q: serial %d members, parallel %d", name, text, n, m[1][text])
			}
		}
	}
	if len(serial.q) != len(parallel.q) {
		t.Errorf("Q entries: serial %d, parallel %d", len(serial.q), len(parallel.q))
	}
	shared := 0
	for k, v := range serial.q {
		p, ok := parallel.q[k]
		switch {
		case !ok:
			t.Errorf("entry %q missing from the parallel run", k)
		case p != v:
			t.Errorf("entry %q: serial q %v visits %d, parallel q %v visits %d", k, v.q, v.visits, p.q, p.visits)
		}
		if k[0] == lobby {
			shared++
			if v.visits != tasks*iterations || v.q <= 0 {
				t.Errorf("lobby entry: q %v, %d visits; want > 0 and %d", v.q, v.visits, tasks*iterations)
			}
		}
	}
	if shared != 1 {
		t.Errorf("%d entries for the lobby, want 1 (one shared thought)", shared)
	}
	if peak := srv.PeakInFlight(); peak < 2 {
		t.Errorf("at most %d model call in flight: the parallel run did not overlap its calls", peak)
	}
}
