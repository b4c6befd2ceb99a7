package zvm

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	compiledMu sync.Mutex
	compiled   = map[string][]byte{}
)

// compile compiles testdata/NAME.inf for version v once per test binary.
func compile(t testing.TB, name string, v int) []byte {
	t.Helper()
	compiledMu.Lock()
	defer compiledMu.Unlock()
	key := fmt.Sprintf("%s.z%d", name, v)
	if b, ok := compiled[key]; ok {
		return b
	}
	dir, err := os.MkdirTemp("", "zvm-test")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src, err := filepath.Abs(filepath.Join("testdata", name+".inf"))
	if err != nil {
		t.Fatal(err)
	}
	b := inform6(t, src, v, dir)
	compiled[key] = b
	return b
}

// small is testdata/small.inf (a library game) for version 5.
func small(t testing.TB) []byte { return compile(t, "small", 5) }

func loadSmall(t testing.TB, opt Options) *Machine {
	t.Helper()
	m, err := Load(small(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := m.Run(); err != nil || w != WaitLine {
		t.Fatalf("first Run: %v, %v", w, err)
	}
	m.Output()
	return m
}

// do answers the line wait with line and runs to the next wait.
func do(t testing.TB, m *Machine, line string) (Wait, string) {
	t.Helper()
	if err := m.Input(line); err != nil {
		t.Fatalf("Input(%q): %v", line, err)
	}
	w, err := m.Run()
	if err != nil {
		t.Fatalf("Run after %q: %v", line, err)
	}
	return w, m.Output().Main
}

func TestLoadErrors(t *testing.T) {
	good := small(t)
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	setW := func(b []byte, a int, v int) []byte { b[a], b[a+1] = byte(v>>8), byte(v); return b }
	cases := []struct {
		name  string
		story []byte
		want  string
	}{
		{"empty", nil, "shorter than its 64-byte header"},
		{"truncated header", good[:40], "shorter than its 64-byte header"},
		{"version 0", mut(func(b []byte) []byte { b[0] = 0; return b }), "not a Z-machine version"},
		{"version 6", mut(func(b []byte) []byte { b[0] = 6; return b }), "version 6 is not supported"},
		{"version 2", mut(func(b []byte) []byte { b[0] = 2; return b }), "version 2 is not supported"},
		{"version 9", mut(func(b []byte) []byte { b[0] = 9; return b }), "not a Z-machine version"},
		{"static memory inside the header", mut(func(b []byte) []byte { return setW(b, 0x0e, 0x20) }), "static memory base"},
		{"object table outside dynamic memory", mut(func(b []byte) []byte { return setW(b, 0x0a, 0xfff0) }), "object table address"},
		{"globals outside dynamic memory", mut(func(b []byte) []byte { return setW(b, 0x0c, 0xfff0) }), "globals address"},
		{"dictionary outside memory", mut(func(b []byte) []byte { return setW(b, 0x08, 0xfffe) }), "dictionary"},
		{"truncated file", good[:len(good)/4], ""},
		{"too long for the version", append(append([]byte(nil), good...), make([]byte, 300<<10)...), "exceeds the version 5 limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Load(c.story, Options{})
			if err == nil {
				// A truncated file may still load (the header pads it);
				// then running it must end in an error or a wait, not a panic.
				if c.want != "" {
					t.Fatalf("Load = nil error, want one containing %q", c.want)
				}
				if _, err := m.Run(); err != nil && strings.Contains(err.Error(), "internal error") {
					t.Fatalf("Run on a truncated story: %v", err)
				}
				return
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestRunTimeErrors(t *testing.T) {
	m := loadSmall(t, Options{Budget: 200_000})
	start := m.Snapshot()
	if err := m.Input("bad"); err != nil {
		t.Fatal(err)
	}
	_, err := m.Run()
	if err == nil || !strings.Contains(err.Error(), "illegal opcode EXT:29") || !strings.Contains(err.Error(), "pc 0x") {
		t.Fatalf("Run after bad = %v, want an illegal-opcode error naming the PC", err)
	}
	if _, err2 := m.Run(); err2 != err {
		t.Errorf("second Run = %v, want the same error %v", err2, err)
	}
	if err := m.Input("look"); err == nil {
		t.Error("Input after an error succeeded")
	}
	m.Restore(start)
	if err := m.Input("poke"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(); err == nil || !strings.Contains(err.Error(), "write of word 0xfff0 outside dynamic memory") || !strings.Contains(err.Error(), "pc 0x") {
		t.Fatalf("Run after poke = %v, want an out-of-range write error naming the PC", err)
	}
	m.Restore(start)
	if err := m.Input("loop"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Run(); !errors.Is(err, ErrBudget) {
		t.Fatalf("Run after loop = %v, want ErrBudget", err)
	}
	m.Restore(start)
	if _, out := do(t, m, "take coin"); !strings.Contains(out, "Taken.") {
		t.Errorf("after Restore, take coin printed %q", out)
	}
}

func TestInputErrors(t *testing.T) {
	m := loadSmall(t, Options{})
	if err := m.Key(13); err == nil {
		t.Error("Key during a line wait succeeded")
	}
	w, out := do(t, m, "waitkey")
	if w != WaitKey || !strings.Contains(out, "Press a key.") {
		t.Fatalf("waitkey: %v %q, want WaitKey", w, out)
	}
	if err := m.Input("x"); err == nil {
		t.Error("Input during a key wait succeeded")
	}
	if err := m.Key('a'); err != nil {
		t.Fatal(err)
	}
	w, err := m.Run()
	if out := m.Output().Main; err != nil || w != WaitLine || !strings.Contains(out, "You pressed 97.") {
		t.Errorf("after Key('a'): %v %v %q", w, err, out)
	}
}

// TestTimedInput: a read_char with a timer routine is answered as if no
// time passes: the routine never runs.
func TestTimedInput(t *testing.T) {
	m := loadSmall(t, Options{})
	if w, out := do(t, m, "timed"); w != WaitKey || !strings.Contains(out, "Quick!") {
		t.Fatalf("timed: %v %q, want WaitKey", w, out)
	}
	if err := m.Key('z'); err != nil {
		t.Fatal(err)
	}
	m.Run()
	if out := m.Output().Main; !strings.Contains(out, "Got 122.") || strings.Contains(out, "tick") {
		t.Errorf("after the key: %q, want Got 122. and no tick", out)
	}
}

func TestSnapshotRestoreAndWorldHash(t *testing.T) {
	m := loadSmall(t, Options{})
	h0 := m.WorldHash()
	s := m.Snapshot()
	coin := findObject(t, m, "gold coin")
	if p := m.Object(coin).Parent; m.Object(p).Name != "Hall" {
		t.Errorf("coin's parent at the start is %q, want Hall", m.Object(p).Name)
	}
	_, out1 := do(t, m, "take coin")
	h1 := m.WorldHash()
	if h1 == h0 {
		t.Error("WorldHash did not change when the coin was taken")
	}
	if p := m.Object(coin).Parent; p != int(m.Global(playerGlobal(t, m))) {
		t.Errorf("coin's parent after take is %q, want the player", m.Object(p).Name)
	}
	m.Restore(s)
	if m.WorldHash() != h0 {
		t.Error("Restore did not bring the world back")
	}
	if out := m.Output().Main; out != "" {
		t.Errorf("output after Restore = %q, want empty", out)
	}
	_, out2 := do(t, m, "take coin")
	if out1 != out2 || m.WorldHash() != h1 {
		t.Errorf("replay after Restore differs: %q vs %q", out1, out2)
	}
}

// playerGlobal finds the global holding the player object (Inform's
// "player"): the one whose value is the parent of the held coin is what we
// test, so find it independently as the global naming "(self object)".
func playerGlobal(t *testing.T, m *Machine) int {
	t.Helper()
	self := findObject(t, m, "(self object)")
	for g := 0; g < 240; g++ {
		if int(m.Global(g)) == self {
			return g
		}
	}
	t.Fatal("no global holds the player object")
	return 0
}

func findObject(t *testing.T, m *Machine, name string) int {
	t.Helper()
	for id := 1; id <= m.NumObjects(); id++ {
		if m.Object(id).Name == name {
			return id
		}
	}
	t.Fatalf("no object %q among %d", name, m.NumObjects())
	return 0
}

func TestDictionary(t *testing.T) {
	m := loadSmall(t, Options{})
	d := m.Dictionary()
	var words []string
	for _, w := range d {
		words = append(words, w.Word)
	}
	for _, want := range []string{"coin", "button", "waitkey", "take"} {
		found := false
		for _, w := range d {
			if w.Word == want {
				found = true
				if len(w.Data) != 3 && len(w.Data) != 4 {
					t.Errorf("%s: %d data bytes, want Inform's 3 or 4", want, len(w.Data))
				}
			}
		}
		if !found {
			t.Errorf("dictionary lacks %q: %v", want, words)
		}
	}
}

func TestSeeds(t *testing.T) {
	spins := func(seed int64) string {
		m := loadSmall(t, Options{Seed: seed})
		var sb strings.Builder
		for i := 0; i < 6; i++ {
			_, out := do(t, m, "spin")
			sb.WriteString(out)
		}
		return sb.String()
	}
	a, b, c := spins(0), spins(0), spins(12345)
	if a != b {
		t.Errorf("seed 0 gave two different runs:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 0 and 12345 gave the same numbers: %s", a)
	}
	// predictable mode (§2.4.2): random(-5) then 1, 2, 3, 4, 5, 1
	var r rng
	r.seed(7)
	r.reseed(5)
	var got []int
	for i := 0; i < 6; i++ {
		got = append(got, r.next(100))
	}
	if want := []int{1, 2, 3, 4, 5, 1}; !equalInts(got, want) {
		t.Errorf("after random(-5): %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStatusAndStreams(t *testing.T) {
	m := loadSmall(t, Options{})
	_, out := do(t, m, "take coin")
	st := m.Output().Status
	_ = out
	if len(st) == 0 || !strings.Contains(st[0], "Hall") {
		t.Errorf("v5 status = %q, want the library's status line naming Hall", st)
	}
	w, out := do(t, m, "draw")
	if st := m.Output().Status; w != WaitKey || len(st) != 2 || !strings.HasPrefix(st[0], "UPPER LINE ONE ") || st[1] != "  two" || !strings.Contains(out, "Drawn.") {
		t.Errorf("draw: %v %q, upper window %q; want WaitKey, line 1 over the library's status line, line 2 \"  two\"", w, out, st)
	}
	if err := m.Key(' '); err != nil {
		t.Fatal(err)
	}
	m.Run()
	if out := m.Output().Main; !strings.Contains(out, "Erased.") {
		t.Errorf("after the key: %q", out)
	}
	_, out = do(t, m, "store")
	if !strings.Contains(out, "Stored 5: hello; nested 5: inner") {
		t.Errorf("stream 3: %q", out)
	}
	// v3: zork1's status-line globals
	dir, games := jerichoGames(t)
	g := games["zork1.z5"]
	z, err := Load(readStory(t, filepath.Join(dir, "zork1.z5")), Options{Seed: g.Seed})
	if err != nil {
		t.Fatal(err)
	}
	play(t, z, g.Walkthrough[:3])
	loc, score, moves, timeGame := z.StatusV3()
	if loc == "" || timeGame || moves != 3 || score != 0 {
		t.Errorf("zork1 StatusV3 after 3 moves = %q %d %d %v", loc, score, moves, timeGame)
	}
	if st := z.Output().Status; len(st) != 1 || !strings.Contains(st[0], loc) || !strings.Contains(st[0], "Moves: 3") {
		t.Errorf("zork1 status line = %q", st)
	}
}

func TestGameSaveRestoreRestartVerify(t *testing.T) {
	m := loadSmall(t, Options{})
	if _, out := do(t, m, "save"); !strings.Contains(out, "Ok.") {
		t.Fatalf("save: %q", out)
	}
	do(t, m, "take coin")
	if _, out := do(t, m, "restore"); !strings.Contains(out, "Ok.") {
		t.Fatalf("restore: %q", out)
	}
	if _, out := do(t, m, "inventory"); !strings.Contains(out, "carrying nothing") {
		t.Errorf("after restore, inventory = %q, want carrying nothing", out)
	}
	if _, out := do(t, m, "verify"); !strings.Contains(out, "verified as intact") {
		t.Errorf("verify: %q", out)
	}
	do(t, m, "take coin")
	do(t, m, "restart")
	if _, out := do(t, m, "y"); !strings.Contains(out, "You want the treasure in the vault.") {
		t.Errorf("restart: %q", out)
	}
	if _, out := do(t, m, "inventory"); !strings.Contains(out, "carrying nothing") {
		t.Errorf("after restart, inventory = %q", out)
	}
}

func TestQuetzal(t *testing.T) {
	m := loadSmall(t, Options{})
	do(t, m, "take coin")
	q, err := m.SaveQuetzal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(q, []byte("FORM")) || !bytes.Contains(q, []byte("IFhd")) || !bytes.Contains(q, []byte("CMem")) || !bytes.Contains(q, []byte("Stks")) {
		t.Fatalf("not a Quetzal file: %q", q[:min(len(q), 40)])
	}
	h := m.WorldHash()
	_, want := do(t, m, "n")
	do(t, m, "drop coin")
	if err := m.RestoreQuetzal(q); err != nil {
		t.Fatal(err)
	}
	if m.WorldHash() != h {
		t.Error("RestoreQuetzal did not bring the world back")
	}
	if _, got := do(t, m, "n"); got != want {
		t.Errorf("after RestoreQuetzal, n printed %q, want %q", got, want)
	}
	// a fresh machine restores it too
	m2 := loadSmall(t, Options{})
	if err := m2.RestoreQuetzal(q); err != nil {
		t.Fatal(err)
	}
	if m2.WorldHash() != h {
		t.Error("a fresh machine's RestoreQuetzal differs")
	}
	// bad files: errors, machine unchanged
	h2 := m2.WorldHash()
	for _, bad := range [][]byte{nil, []byte("FORM\x00\x00\x00\x04IFZS"), q[:len(q)/2], bytes.Replace(q, []byte("IFhd"), []byte("IFxx"), 1)} {
		if err := m2.RestoreQuetzal(bad); err == nil {
			t.Errorf("RestoreQuetzal(%d bytes of junk) = nil", len(bad))
		}
	}
	if m2.WorldHash() != h2 {
		t.Error("a failed RestoreQuetzal changed the machine")
	}
	if _, out := do(t, m2, "look"); !strings.Contains(out, "Hall") {
		t.Errorf("after failed restores, look = %q", out)
	}
}

// TestUndo: the game's undo (save_undo/restore_undo) goes back one move,
// and a Snapshot carries the undo slot of its moment.
func TestUndo(t *testing.T) {
	m := loadSmall(t, Options{})
	coin := findObject(t, m, "gold coin")
	hall := m.Object(coin).Parent
	do(t, m, "take coin")
	s := m.Snapshot()
	if _, out := do(t, m, "undo"); !strings.Contains(out, "Previous turn undone") {
		t.Fatalf("undo: %q", out)
	}
	if p := m.Object(coin).Parent; p != hall {
		t.Errorf("after undo the coin is in %q, want the Hall", m.Object(p).Name)
	}
	do(t, m, "take coin")
	do(t, m, "drop coin")
	m.Restore(s)
	do(t, m, "undo")
	if p := m.Object(coin).Parent; p != hall {
		t.Errorf("undo after Restore: the coin is in %q, want the Hall (the snapshot's undo slot)", m.Object(p).Name)
	}
}

// TestUndoAfterRestores: save_undo after a Restore writes into a slot of
// the machine's own, reused turn after turn, never into one a Snapshot
// holds: each snapshot's undo goes back to its own moment.
func TestUndoAfterRestores(t *testing.T) {
	m := loadSmall(t, Options{})
	coin := findObject(t, m, "gold coin")
	hall := m.Object(coin).Parent
	do(t, m, "take coin") // the undo slot: the coin in the Hall
	s := m.Snapshot()
	for range 3 {
		m.Restore(s)
		do(t, m, "drop coin") // the undo slot: the coin carried
	}
	s2 := m.Snapshot()
	do(t, m, "take coin") // the undo slot: the coin in the Hall again
	do(t, m, "drop coin")
	m.Restore(s)
	do(t, m, "undo")
	if p := m.Object(coin).Parent; p != hall {
		t.Errorf("undo after Restore(s): the coin is in %q, want the Hall", m.Object(p).Name)
	}
	m.Restore(s2)
	do(t, m, "undo")
	if p := m.Object(coin).Parent; p == hall {
		t.Error("undo after Restore(s2): the coin is in the Hall, want it carried (a later save_undo wrote into s2's slot)")
	}
}

// TestTables: scan_table, copy_table and print_table (testdata/small.inf
// "tables"); the expected text is what dfrotz 2.54 prints for it.
func TestTables(t *testing.T) {
	m := loadSmall(t, Options{})
	_, out := do(t, m, "tables")
	want := "w4 b2 f4 n0\nababcdgh\n00 abcdgh\nabc\ndgh\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("tables printed %q, want %q", out, want)
	}
}

func TestHeader(t *testing.T) {
	dir, _ := jerichoGames(t)
	z, err := Load(readStory(t, filepath.Join(dir, "zork1.z5")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := z.Header()
	if h.Version != 3 || z.Version() != 3 || h.Release != 88 || h.Serial != "840726" {
		t.Errorf("zork1 header: version %d release %d serial %q, want 3, 88, 840726", h.Version, h.Release, h.Serial)
	}
	if z.NumObjects() != 250 {
		t.Errorf("zork1 has %d objects, want 250", z.NumObjects())
	}
	if got := z.ReadWord(0x0c); int(got) != h.Globals {
		t.Errorf("ReadWord(0x0c) = %#x, header globals %#x", got, h.Globals)
	}
	if z.PeekByte(-1) != 0 || z.PeekByte(1<<20) != 0 || z.Global(240) != 0 {
		t.Error("reads outside memory or the globals are not 0")
	}
}

// TestRestoreOtherStory: a snapshot of another story is ignored.
func TestRestoreOtherStory(t *testing.T) {
	m := loadSmall(t, Options{})
	other, err := Load(compile(t, "mini", 5), Options{})
	if err != nil {
		t.Fatal(err)
	}
	other.Run()
	h := m.WorldHash()
	m.Restore(other.Snapshot())
	m.Restore(nil)
	if m.WorldHash() != h {
		t.Fatal("Restore of another story's snapshot changed the machine")
	}
	if _, out := do(t, m, "look"); !strings.Contains(out, "Hall") {
		t.Errorf("look after the ignored Restore: %q", out)
	}
}

// TestFrotzCompatible: what the Jericho suite's games need where the
// standard calls the program wrong and Frotz plays on: a pull from an empty
// evaluation stack reads the routine's last local (seastalker), attribute
// 48 is ignored by set and clear and false to test (sherlock), and text
// written below the upper window's split stays in the upper window's lines
// (lost pig's menu).
func TestFrotzCompatible(t *testing.T) {
	m := loadSmall(t, Options{})
	if _, out := do(t, m, "underflow"); !strings.Contains(out, "Pulled 7.") {
		t.Errorf("underflow: %q, want the local pulled (Pulled 7.)", out)
	}
	if _, out := do(t, m, "attr"); !strings.Contains(out, "Attribute 48 ignored.") {
		t.Errorf("attr: %q", out)
	}
	for id := 1; id <= m.NumObjects(); id++ {
		if o := m.Object(id); o.Name == "gold coin" && o.Parent == 0 {
			t.Errorf("attribute 48 damaged the coin's parent")
		}
	}
	w, out := do(t, m, "below")
	st := m.Output().Status
	if w != WaitLine || !strings.Contains(out, "Drawn below.") || len(st) < 3 || !strings.Contains(st[2], "BELOW THE SPLIT") {
		t.Errorf("below: %v %q, upper window %q", w, out, st)
	}
	if _, out := do(t, m, "take coin"); !strings.Contains(out, "Taken.") {
		t.Errorf("take coin after the checks: %q", out)
	}
}
