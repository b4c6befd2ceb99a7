package checkpoints

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Names inside a run directory's checkpoint folder.
const (
	// Folder is the store's folder inside the run directory.
	Folder = "checkpoints"
	// LatestFile holds the name of the latest committed checkpoint
	// directory (e.g. "iter-0003") and a newline. Replacing it is the
	// commit point of a checkpoint.
	LatestFile = "LATEST"
	// OnlineFolder is the folder of an evaluation directory
	// (<run>/eval/<name>) where an evaluation whose memory kept learning
	// saves, as a checkpoint directory per method (OnlineFolder/<method>),
	// the memory it left; never over the trained checkpoint.
	OnlineFolder = "memory"
	// ManifestFile lists a checkpoint's files with sizes and SHA-256 sums.
	ManifestFile = "MANIFEST.json"
	// DefaultKeep is how many committed checkpoints a Store keeps.
	DefaultKeep = 3
	// tmpPrefix starts every temporary name in the store; Open removes
	// leftovers.
	tmpPrefix = ".tmp-"
	// lockName is the file a Store holds locked while it is open.
	lockName = ".lock"
	// maxManifest bounds the bytes read from a manifest.
	maxManifest = 16 << 20
)

var iterName = regexp.MustCompile(`^iter-([0-9]{4,9})$`)

// methodName is what a method's subdirectory may be called: no separators,
// no "." or "..", nothing hidden.
var methodName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Store is the checkpoint store of one run directory: committed
// checkpoints in <run>/checkpoints/iter-NNNN, the latest named by
// <run>/checkpoints/LATEST. A Store is used by one goroutine at a time.
// Any number of stores may read a run directory, but only one process may
// write it: Begin fails with ErrLocked while another process holds the run
// directory (see lock.go).
type Store struct {
	root   string
	keep   int
	lock   string // the lock file's path
	locked bool   // this Store holds a reference to the process's lock
}

// Open returns the store of runDir, creating its folder. When no other
// process holds the run directory, it takes it (for Begin) and removes
// temporary leftovers of a killed process (unfinished checkpoints, half
// written files); otherwise the store can still read (Latest, Committed).
// keep is how many committed checkpoints to keep (at least 1; 0 means
// DefaultKeep). Close releases the run directory.
func Open(runDir string, keep int) (*Store, error) {
	if keep <= 0 {
		keep = DefaultKeep
	}
	root, err := filepath.Abs(filepath.Join(filepath.Clean(runDir), Folder))
	if err != nil {
		return nil, fmt.Errorf("open checkpoint store: %w", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("open checkpoint store: %w", err)
	}
	s := &Store{root: root, keep: keep, lock: filepath.Join(root, lockName)}
	if err := s.takeLock(); err != nil {
		return nil, fmt.Errorf("open checkpoint store: %w", err)
	}
	if !s.locked {
		return s, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open checkpoint store: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) || strings.HasPrefix(e.Name(), "."+LatestFile+".tmp-") {
			if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
				s.Close()
				return nil, fmt.Errorf("open checkpoint store: remove leftover: %w", err)
			}
		}
	}
	return s, nil
}

func (s *Store) takeLock() error {
	if s.locked {
		return nil
	}
	held, err := acquire(s.lock)
	s.locked = held
	return err
}

// Close releases the store's hold on the run directory. The store must not
// be used afterwards. A process that exits (or is killed) releases it too.
func (s *Store) Close() error {
	if !s.locked {
		return nil
	}
	s.locked = false
	return release(s.lock)
}

// Root is the store's folder, <run>/checkpoints.
func (s *Store) Root() string { return s.root }

// DirName is the directory name of the checkpoint of an iteration.
func DirName(iteration int) string { return fmt.Sprintf("iter-%04d", iteration) }

// latestName reads LatestFile: the latest committed directory name and its
// iteration, or ok false when there is none.
func (s *Store) latestName() (name string, iteration int, ok bool, err error) {
	p := filepath.Join(s.root, LatestFile)
	b, err := readLimited(p, 256)
	if errors.Is(err, fs.ErrNotExist) {
		return "", -1, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("read %s: %w", p, err)
	}
	name = strings.TrimSpace(string(b))
	it, ok := parseIter(name)
	if !ok {
		return "", 0, false, fmt.Errorf("%s: %w: %q is not a checkpoint name", p, ErrCorrupt, name)
	}
	return name, it, true, nil
}

func parseIter(name string) (int, bool) {
	m := iterName.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// Committed returns the committed checkpoint directories, oldest first: the
// iter-NNNN directories up to the one LatestFile names. Newer ones are
// leftovers of a process killed between renaming and committing.
func (s *Store) Committed() ([]string, error) {
	_, latest, ok, err := s.latestName()
	if err != nil || !ok {
		return nil, err
	}
	entries, err := os.ReadDir(s.root)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	type it struct {
		n    int
		name string
	}
	var its []it
	for _, e := range entries {
		if n, ok := parseIter(e.Name()); ok && e.IsDir() && n <= latest {
			its = append(its, it{n, e.Name()})
		}
	}
	slices.SortFunc(its, func(a, b it) int { return a.n - b.n })
	out := make([]string, len(its))
	for i, x := range its {
		out[i] = filepath.Join(s.root, x.name)
	}
	return out, nil
}

// Latest returns the latest committed checkpoint, verified against its
// manifest, and its metadata. With no checkpoint it returns ErrNoCheckpoint;
// a damaged one gives the error of Verify or LoadMeta, naming the file.
func (s *Store) Latest(ctx context.Context) (dir string, meta Meta, err error) {
	name, it, ok, err := s.latestName()
	if err != nil {
		return "", Meta{}, err
	}
	if !ok {
		return "", Meta{}, fmt.Errorf("%s: %w", s.root, ErrNoCheckpoint)
	}
	dir = filepath.Join(s.root, name)
	if err := Verify(ctx, dir); err != nil {
		return "", Meta{}, err
	}
	meta, err = LoadMeta(ctx, filepath.Join(dir, MetaFile))
	if err != nil {
		return "", Meta{}, err
	}
	if meta.Iteration != int64(it) {
		return "", Meta{}, fmt.Errorf("%s: %w: iteration %d in a checkpoint named %s", filepath.Join(dir, MetaFile), ErrCorrupt, meta.Iteration, name)
	}
	return dir, meta, nil
}

// Pending is a checkpoint being written: a private temporary directory in
// the store. Methods write their files into MethodDir; Commit makes it the
// latest checkpoint, Abort throws it away.
type Pending struct {
	s         *Store
	tmp       string
	iteration int
	done      bool
}

// Begin starts the checkpoint of an iteration (0-based). It fails with
// ErrExists when a checkpoint of this or a later iteration is committed:
// committed checkpoints are never overwritten.
func (s *Store) Begin(iteration int) (*Pending, error) {
	if iteration < 0 || iteration > 999_999_999 {
		return nil, fmt.Errorf("begin checkpoint: iteration %d out of range", iteration)
	}
	if err := s.takeLock(); err != nil {
		return nil, fmt.Errorf("begin checkpoint: %w", err)
	}
	if !s.locked {
		return nil, fmt.Errorf("begin checkpoint: %s: %w", s.lock, ErrLocked)
	}
	name, latest, ok, err := s.latestName()
	if err != nil {
		return nil, fmt.Errorf("begin checkpoint: %w", err)
	}
	if ok && iteration <= latest {
		return nil, fmt.Errorf("begin checkpoint of iteration %d: %w: %s is committed", iteration, ErrExists, filepath.Join(s.root, name))
	}
	tmp, err := os.MkdirTemp(s.root, tmpPrefix+DirName(iteration)+"-*")
	if err != nil {
		return nil, fmt.Errorf("begin checkpoint: %w", err)
	}
	return &Pending{s: s, tmp: tmp, iteration: iteration}, nil
}

// Dir is the pending checkpoint's temporary directory.
func (p *Pending) Dir() string { return p.tmp }

// MethodDir creates and returns the subdirectory where the method called
// name writes its files (agent.Saver.Save). A name with a separator, "." or
// "..", a leading dot or another character outside [A-Za-z0-9_.-] fails
// with ErrBadName, so no name can escape the checkpoint.
func (p *Pending) MethodDir(name string) (string, error) {
	if !methodName.MatchString(name) || name == MetaFile || name == ManifestFile {
		return "", fmt.Errorf("checkpoint method directory %q: %w", name, ErrBadName)
	}
	d := filepath.Join(p.tmp, name)
	if err := os.Mkdir(d, 0o755); err != nil {
		return "", fmt.Errorf("checkpoint method directory: %w", err)
	}
	return d, nil
}

// Abort removes the pending checkpoint. It is safe to call after Commit
// (then it does nothing), so `defer p.Abort()` is the usual pattern.
func (p *Pending) Abort() error {
	if p.done {
		return nil
	}
	p.done = true
	if err := os.RemoveAll(p.tmp); err != nil {
		return fmt.Errorf("abort checkpoint: %w", err)
	}
	return nil
}

// manifest is ManifestFile's content.
type manifest struct {
	FormatVersion int            `json:"format_version"`
	Iteration     int            `json:"iteration"`
	Files         []manifestFile `json:"files"`
}

type manifestFile struct {
	Path   string `json:"path"` // slash-separated, relative to the checkpoint
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Commit finishes the checkpoint: it writes meta (as MetaFile, with the
// iteration and format version set), fsyncs every file, writes the
// manifest, renames the directory to iter-NNNN, points LatestFile at it
// (the commit point), and removes committed checkpoints beyond the store's
// keep count. It returns the committed directory. If only that removal
// fails, dir is set and the checkpoint is committed, with the error.
func (p *Pending) Commit(ctx context.Context, meta Meta) (dir string, err error) {
	if p.done {
		return "", fmt.Errorf("commit checkpoint: already committed or aborted")
	}
	defer func() {
		if err != nil && dir == "" {
			p.Abort()
		}
	}()
	meta.Iteration = int64(p.iteration)
	if err := SaveMeta(ctx, filepath.Join(p.tmp, MetaFile), meta); err != nil {
		return "", fmt.Errorf("commit checkpoint: %w", err)
	}
	m := manifest{FormatVersion: FormatVersion, Iteration: p.iteration}
	var dirs []string
	err = filepath.WalkDir(p.tmp, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, fp)
			return nil
		}
		rel, err := filepath.Rel(p.tmp, fp)
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: %w: not a regular file", fp, ErrBadName)
		}
		size, sum, err := hashFile(fp, true)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, manifestFile{Path: filepath.ToSlash(rel), Size: size, SHA256: sum})
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("commit checkpoint: %w", err)
	}
	b, err := jsonIndent(m)
	if err != nil {
		return "", fmt.Errorf("commit checkpoint: %w", err)
	}
	if err := writeAtomic(filepath.Join(p.tmp, ManifestFile), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}); err != nil {
		return "", fmt.Errorf("commit checkpoint: write manifest: %w", err)
	}
	for _, d := range dirs {
		if err := syncDir(d); err != nil {
			return "", fmt.Errorf("commit checkpoint: %w", err)
		}
	}
	name := DirName(p.iteration)
	final := filepath.Join(p.s.root, name)
	// A directory of this name that LatestFile does not cover was renamed
	// by a process killed before its commit point: it was never committed,
	// so it is removed (Begin has checked that it is newer than LATEST).
	if _, err := os.Lstat(final); err == nil {
		trash := filepath.Join(p.s.root, tmpPrefix+"orphan-"+name)
		if err := os.RemoveAll(trash); err != nil {
			return "", fmt.Errorf("commit checkpoint: %w", err)
		}
		if err := os.Rename(final, trash); err != nil {
			return "", fmt.Errorf("commit checkpoint: %w", err)
		}
		if err := os.RemoveAll(trash); err != nil {
			return "", fmt.Errorf("commit checkpoint: %w", err)
		}
	}
	if err := os.Rename(p.tmp, final); err != nil {
		return "", fmt.Errorf("commit checkpoint: %w", err)
	}
	p.done = true
	if err := syncDir(p.s.root); err != nil {
		return "", fmt.Errorf("commit checkpoint: %w", err)
	}
	if err := writeAtomic(filepath.Join(p.s.root, LatestFile), func(w io.Writer) error {
		_, err := io.WriteString(w, name+"\n")
		return err
	}); err != nil {
		return "", fmt.Errorf("commit checkpoint: update %s: %w", LatestFile, err)
	}
	if err := p.s.prune(); err != nil {
		return final, fmt.Errorf("checkpoint %s committed; removing old checkpoints: %w", final, err)
	}
	return final, nil
}

// prune removes committed checkpoints beyond the newest keep, oldest first.
func (s *Store) prune() error {
	dirs, err := s.Committed()
	if err != nil {
		return err
	}
	for len(dirs) > s.keep {
		// Rename first so that a crash midway leaves a temporary name that
		// Open cleans, never a half-deleted checkpoint under its own name.
		trash := filepath.Join(s.root, tmpPrefix+"old-"+filepath.Base(dirs[0]))
		if err := os.Rename(dirs[0], trash); err != nil {
			return err
		}
		if err := os.RemoveAll(trash); err != nil {
			return err
		}
		dirs = dirs[1:]
	}
	return nil
}

// hashFile returns a file's size and hex SHA-256, fsyncing it first when
// sync is set (files written by methods may not have been).
func hashFile(p string, sync bool) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	if sync {
		if err := f.Sync(); err != nil {
			return 0, "", fmt.Errorf("sync %s: %w", p, err)
		}
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("hash %s: %w", p, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Verify checks a checkpoint directory against its manifest: the format
// version, and for every listed file its presence, size and SHA-256; a file
// the manifest does not list is an error too. Derived files (IsDerived: the
// cluster indexes) are the exception: ReadDerived checks them against the
// manifest when they are read, and a load rebuilds a damaged or missing one
// from the files Verify checked, so they never make a checkpoint unusable. Errors name the file and wrap
// ErrMissing, ErrCorrupt, ErrFormatVersion or ErrBadName.
func Verify(ctx context.Context, dir string) error {
	mp := filepath.Join(dir, ManifestFile)
	b, err := readLimited(mp, maxManifest)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("verify checkpoint: %s: %w: %w", mp, ErrMissing, err)
		}
		return fmt.Errorf("verify checkpoint: %w", err)
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		// The version may be readable even when the rest is not ours.
		var v struct {
			FormatVersion int `json:"format_version"`
		}
		if json.Unmarshal(b, &v) == nil && v.FormatVersion != FormatVersion {
			return fmt.Errorf("verify checkpoint: %s: %w: version %d, this program reads %d", mp, ErrFormatVersion, v.FormatVersion, FormatVersion)
		}
		return fmt.Errorf("verify checkpoint: %s: %w: %w", mp, ErrCorrupt, err)
	}
	if m.FormatVersion != FormatVersion {
		return fmt.Errorf("verify checkpoint: %s: %w: version %d, this program reads %d", mp, ErrFormatVersion, m.FormatVersion, FormatVersion)
	}
	listed := map[string]bool{ManifestFile: true}
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) || path.Clean(f.Path) != f.Path || f.Path == ManifestFile || listed[f.Path] {
			return fmt.Errorf("verify checkpoint: %s: %w: path %q", mp, ErrBadName, f.Path)
		}
		listed[f.Path] = true
		if IsDerived(f.Path) {
			continue // checked when read (ReadDerived); a load rebuilds it
		}
		fp := filepath.Join(dir, filepath.FromSlash(f.Path))
		st, err := os.Lstat(fp)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("verify checkpoint: %s: %w (listed in %s)", fp, ErrMissing, ManifestFile)
		}
		if err != nil {
			return fmt.Errorf("verify checkpoint: %w", err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("verify checkpoint: %s: %w: not a regular file", fp, ErrCorrupt)
		}
		if st.Size() != f.Size {
			return fmt.Errorf("verify checkpoint: %s: %w: %d bytes, manifest says %d", fp, ErrCorrupt, st.Size(), f.Size)
		}
		_, sum, err := hashFile(fp, false)
		if err != nil {
			return fmt.Errorf("verify checkpoint: %w", err)
		}
		if sum != f.SHA256 {
			return fmt.Errorf("verify checkpoint: %s: %w: SHA-256 %s, manifest says %s", fp, ErrCorrupt, sum, f.SHA256)
		}
	}
	return filepath.WalkDir(dir, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("verify checkpoint: %w", err)
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, fp)
		if !listed[filepath.ToSlash(rel)] && !IsDerived(rel) {
			return fmt.Errorf("verify checkpoint: %s: %w: file not listed in %s", fp, ErrCorrupt, ManifestFile)
		}
		return nil
	})
}

// readLimited reads a whole small file, failing when it exceeds limit bytes.
func readLimited(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", p, ErrCorrupt, limit)
	}
	return b, nil
}

func jsonIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
