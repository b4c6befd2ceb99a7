package app

import (
	"flag"
	"reflect"
	"slices"
	"sort"
	"testing"
)

// TestSettingsTable: the table binds each flag once per command, gives
// every setting a -h text and a field of Config, and one experiment-file
// key always means one field whichever command reads it.
func TestSettingsTable(t *testing.T) {
	var c Config
	fieldOf := map[string]uintptr{} // file key -> field address
	for _, cmd := range []Command{CmdTrain, CmdEval, CmdSweep, CmdPlay} {
		seen := map[string]bool{}
		for _, s := range SettingsOf(cmd) {
			if seen[s.Flag] {
				t.Errorf("command %d binds -%s twice", cmd, s.Flag)
			}
			seen[s.Flag] = true
		}
	}
	for _, s := range Settings() {
		if s.Usage == "" || s.Cmds == 0 || s.Owner() == "" {
			t.Errorf("-%s: no usage, command or owner", s.Flag)
		}
		p := reflect.ValueOf(s.Field(&c))
		if p.Kind() != reflect.Pointer || p.IsNil() {
			t.Fatalf("-%s: field %T is not a pointer into Config", s.Flag, s.Field(&c))
		}
		addr := p.Pointer()
		base := reflect.ValueOf(&c).Pointer()
		if addr < base || addr >= base+reflect.TypeOf(c).Size() {
			t.Errorf("-%s: field is not in Config", s.Flag)
		}
		if a, ok := fieldOf[s.FileKey()]; ok && a != addr {
			t.Errorf("experiment key %q names two fields", s.FileKey())
		}
		fieldOf[s.FileKey()] = addr
		if s.Method != "" {
			if _, ok := registry[s.Method]; !ok {
				t.Errorf("-%s concerns unknown method %q", s.Flag, s.Method)
			}
		}
		// A flag.Value renders a value it accepts back as itself.
		if v, ok := s.Field(&c).(flag.Value); ok {
			d := Defaults()
			dv := s.Field(&d).(flag.Value)
			if str := dv.String(); str != "" {
				if err := v.Set(str); err != nil || v.String() != str {
					t.Errorf("-%s: Set(%q) = %v, then %q", s.Flag, str, err, v.String())
				}
			}
		}
	}
}

// TestSettingsClassified pins which settings only change how a run
// executes (they may differ on resume and name no evaluation) and which
// select what a command works on; every other setting changes what is
// learned or measured. A new setting is classified when it is added.
func TestSettingsClassified(t *testing.T) {
	got := map[Effect][]string{}
	for _, s := range Settings() {
		if !slices.Contains(got[s.Effect], s.Flag) {
			got[s.Effect] = append(got[s.Effect], s.Flag)
		}
	}
	for e := range got {
		sort.Strings(got[e])
	}
	want := map[Effect][]string{
		ExecutionOnly: {"agentgym", "budget", "cache", "chat-url", "concurrency", "dry-run", "embed-url", "local-dir", "local-threads", "max-errors", "max-requests", "prices", "progress-every", "record-train", "retries", "timeout", "workers"},
		Selects:       {"method", "run", "seeds", "shard", "split"},
	}
	for _, e := range []Effect{ExecutionOnly, Selects} {
		if !slices.Equal(got[e], want[e]) {
			t.Errorf("%s: %v, want %v", e, got[e], want[e])
		}
	}
	for _, f := range []string{"alpha", "threshold", "no-forgetting", "iterations", "per-type", "schedule", "clin-trials", "env", "world-seed", "chat-model", "temperature", "embed-dim"} {
		if !slices.Contains(got[ChangesResult], f) {
			t.Errorf("-%s does not change the result", f)
		}
	}
}
