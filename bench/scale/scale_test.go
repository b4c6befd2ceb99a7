package scale

import (
	"context"
	"testing"
)

var small = MemorySize{States: 300, Thoughts: 200, PerState: 20, Dim: 64}

func TestNewMemory(t *testing.T) {
	m, err := NewMemory(context.Background(), small, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := m.State
	if len(st.States) != 300 || len(st.Thoughts) != 200 || len(st.QTable) != small.Entries() || small.Entries() != 6000 {
		t.Fatalf("sizes %d, %d, %d; want 300, 200, 6000", len(st.States), len(st.Thoughts), len(st.QTable))
	}
	for i := 1; i < len(st.QTable); i++ {
		a, b := st.QTable[i-1], st.QTable[i]
		if a.StateID > b.StateID || (a.StateID == b.StateID && a.ThoughtID >= b.ThoughtID) {
			t.Fatalf("rows %d, %d not sorted and unique: %+v %+v", i-1, i, a, b)
		}
	}
}

// TestStepOverheadSmall runs the step measurement on a small memory: every
// step must apply (one Q update each) and the memory must have loaded.
func TestStepOverheadSmall(t *testing.T) {
	res, err := StepOverhead(context.Background(), StepConfig{Size: small, Steps: 120, BaselineSteps: 10, Seed: 2, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if res.States < small.States || res.Thoughts < small.Thoughts || res.Entries <= small.Entries() {
		t.Errorf("memory after the run: %d states, %d thoughts, %d entries; want more than loaded (%+v)", res.States, res.Thoughts, res.Entries, small)
	}
	if res.Median <= 0 || res.P90 < res.Median || res.Exact <= 0 || res.Load <= 0 || res.Rebuild <= 0 || res.LoadRuns != 3 {
		t.Errorf("times: %+v", res)
	}
	// StepOverhead checks each Load's path (restored or rebuilt) by the
	// method's notes; here the sizes: index files were written and counted
	// apart from the tables.
	if res.IndexBytes <= 0 || res.Bytes <= res.IndexBytes {
		t.Errorf("checkpoint %d bytes, index files %d", res.Bytes, res.IndexBytes)
	}
}

func TestCheckpointSmall(t *testing.T) {
	res, err := Checkpoint(context.Background(), small, 3, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if res.Entries != small.Entries() || res.Bytes <= 0 || res.RawBytes <= 0 || res.Save <= 0 || res.Load <= 0 {
		t.Errorf("Checkpoint = %+v", res)
	}
}
