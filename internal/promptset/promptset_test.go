package promptset

import (
	"testing"
	"testing/fstest"
)

func TestRegister(t *testing.T) {
	Register("x", fstest.MapFS{"prompts/a.tmpl": {Data: []byte("abc")}, "prompts/b.txt": {Data: []byte("no")}}, "prompts/*.tmpl")
	h := Hashes()
	// SHA-256("abc")
	if h["x/a.tmpl"] != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("x/a.tmpl: %q", h["x/a.tmpl"])
	}
	if _, ok := h["x/b.txt"]; ok {
		t.Error("a file outside the pattern was registered")
	}
	defer func() {
		if recover() == nil {
			t.Error("an empty pattern did not panic")
		}
	}()
	Register("y", fstest.MapFS{}, "prompts/*.tmpl")
}
