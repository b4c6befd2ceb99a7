package faults

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Scan is what ScanTexts read of a run directory.
type Scan struct {
	Files, Values int      // files read, text values of Parquet files read
	Hits          []string // "file: text" of every text that matched
}

// ScanTexts reads every file under dir, except those named in skip, and
// reports the texts match accepts: each text value (BYTE_ARRAY) of every
// Parquet file (its columns are compressed, so its bytes would hide them)
// and the raw bytes of every other file.
func ScanTexts(dir string, skip []string, match func(string) bool) (Scan, error) {
	var s Scan
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, name := range skip {
			if d.Name() == name {
				return nil
			}
		}
		s.Files++
		rel, _ := filepath.Rel(dir, path)
		if !strings.HasSuffix(path, ".parquet") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if match(string(b)) {
				s.Hits = append(s.Hits, rel+": (raw bytes)")
			}
			return nil
		}
		return scanParquet(path, rel, match, &s)
	})
	return s, err
}

func scanParquet(path, rel string, match func(string) bool, s *Scan) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	buf := make([]parquet.Row, 64)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				for _, v := range row {
					if v.Kind() != parquet.ByteArray {
						continue
					}
					s.Values++
					if t := string(v.ByteArray()); match(t) {
						s.Hits = append(s.Hits, rel+": "+t)
					}
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
		rows.Close()
	}
	return nil
}
