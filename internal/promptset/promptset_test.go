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

func TestRegisterPatterns(t *testing.T) {
	Register("z", fstest.MapFS{"prompts/a.tmpl": {Data: []byte("abc")}, "prompts/a.schema.json": {Data: []byte("{}")}}, "prompts/*.tmpl", "prompts/*.schema.json")
	h := Hashes()
	// SHA-256("{}")
	if h["z/a.tmpl"] == "" || h["z/a.schema.json"] != "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" {
		t.Errorf("z: %q, %q", h["z/a.tmpl"], h["z/a.schema.json"])
	}
	defer func() {
		if recover() == nil {
			t.Error("a second pattern that matches nothing did not panic")
		}
	}()
	Register("w", fstest.MapFS{"prompts/a.tmpl": {Data: []byte("abc")}}, "prompts/*.tmpl", "prompts/*.schema.json")
}
