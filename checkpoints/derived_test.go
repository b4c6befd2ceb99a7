package checkpoints

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDerivedFiles: a derived file (an index) is listed in the manifest and
// checked against it when read; damaged, missing or unlisted, it fails
// ReadDerived naming the file but not Verify (a load rebuilds it), while
// the same damage to any other file still fails Verify.
func TestDerivedFiles(t *testing.T) {
	ctx := context.Background()
	content := bytes.Repeat([]byte("index bytes "), 1000)
	commit := func(t *testing.T) (dir, path string) {
		s, err := Open(t.TempDir(), 0)
		must(t, err)
		t.Cleanup(func() { s.Close() })
		p, err := s.Begin(0)
		must(t, err)
		md, err := p.MethodDir("samem")
		must(t, err)
		path = filepath.Join(md, StatesIndexFile)
		must(t, WriteDerived(ctx, path, func(w io.Writer) error { _, err := w.Write(content); return err }))
		must(t, os.WriteFile(filepath.Join(md, "other.bin"), content, 0o644))
		dir, err = p.Commit(ctx, Meta{Method: "samem"})
		must(t, err)
		return dir, filepath.Join(dir, "samem", StatesIndexFile)
	}
	dir, path := commit(t)
	b, err := ReadDerived(ctx, path)
	if err != nil || !bytes.Equal(b, content) {
		t.Fatalf("ReadDerived of an intact file: %d bytes, %v", len(b), err)
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	must(t, err)
	if !bytes.Contains(mb, []byte(`"samem/`+StatesIndexFile+`"`)) {
		t.Fatalf("manifest does not list the index file:\n%s", mb)
	}
	for _, tc := range []struct {
		name   string
		damage func(path string)
		want   error
		says   string
	}{
		{"bit flip", func(p string) {
			b := bytes.Clone(content)
			b[10] ^= 1
			must(t, os.WriteFile(p, b, 0o644))
		}, ErrCorrupt, "SHA-256"},
		{"truncated", func(p string) { must(t, os.WriteFile(p, content[:100], 0o644)) }, ErrCorrupt, "100 bytes"},
		{"missing", func(p string) { must(t, os.Remove(p)) }, ErrMissing, ""},
		{"unlisted", func(p string) {
			must(t, os.Rename(p, filepath.Join(filepath.Dir(p), ThoughtsIndexFile)))
		}, ErrCorrupt, "not listed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, path := commit(t)
			tc.damage(path)
			if tc.name == "unlisted" {
				path = filepath.Join(filepath.Dir(path), ThoughtsIndexFile)
			}
			if err := Verify(ctx, dir); err != nil {
				t.Fatalf("Verify failed on a damaged derived file: %v", err)
			}
			_, err := ReadDerived(ctx, path)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("ReadDerived error %v, want %v naming %s and saying %q", err, tc.want, path, tc.says)
			}
		})
	}
	// The same damage to a file that is not derived fails Verify.
	dir, path = commit(t)
	other := filepath.Join(filepath.Dir(path), "other.bin")
	must(t, os.WriteFile(other, content[:100], 0o644))
	if err := Verify(ctx, dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), other) {
		t.Fatalf("Verify of a truncated ordinary file: %v", err)
	}
	// Outside a store (no manifest) the file is read as it is.
	plain := filepath.Join(t.TempDir(), ThoughtsIndexFile)
	must(t, WriteDerived(ctx, plain, func(w io.Writer) error { _, err := w.Write(content); return err }))
	if b, err := ReadDerived(ctx, plain); err != nil || !bytes.Equal(b, content) {
		t.Fatalf("ReadDerived without a manifest: %d bytes, %v", len(b), err)
	}
	if err := WriteDerived(ctx, filepath.Join(t.TempDir(), "x.parquet"), nil); !errors.Is(err, ErrBadName) {
		t.Fatalf("WriteDerived of a non-derived name: %v, want ErrBadName", err)
	}
}
