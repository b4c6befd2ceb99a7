package arigraph

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/samem/trainer/checkpoints"
)

// graphFormat is the version of the files saveGraphs writes; loadGraphs
// refuses other versions.
const graphFormat = 1

// File names inside a saved directory.
const (
	fileMeta     = "arigraph_meta.parquet"
	fileTriplets = "arigraph_triplets.parquet"
	fileEpisodes = "arigraph_episodes.parquet"
	fileLinks    = "arigraph_links.parquet"
)

// ErrFormat is returned by loadGraphs for files of another format version or
// with inconsistent contents (a link to a missing episode).
var ErrFormat = errors.New("arigraph: unsupported or inconsistent saved graph")

type metaRow struct {
	FormatVersion int    `parquet:"format_version"`
	EmbedModel    string `parquet:"embed_model"`
}

type tripletRow struct {
	Graph    string `parquet:"graph,dict"`
	Position int    `parquet:"position"`
	Subject  string `parquet:"subject,dict"`
	Relation string `parquet:"relation,dict"`
	Object   string `parquet:"object,dict"`
}

type episodeRow struct {
	Graph string `parquet:"graph,dict"`
	ID    int    `parquet:"episode_id"` // position in the graph's episode list
	Step  int    `parquet:"step"`
	Text  string `parquet:"text,zstd"`
}

type linkRow struct {
	Graph     string `parquet:"graph,dict"`
	EpisodeID int    `parquet:"episode_id"`
	Position  int    `parquet:"position"`
	Subject   string `parquet:"subject,dict"`
	Relation  string `parquet:"relation,dict"`
	Object    string `parquet:"object,dict"`
}

// saveGraphs writes named graphs to dir as three Parquet tables (triplets,
// episodes, links between them) plus a metadata row; embedModel records the
// embedder the graphs were searched with. Names keep their map, and each
// graph's order is preserved. Each file is written atomically
// (checkpoints.WriteFile); the metadata goes last, so a directory whose
// write failed part way is not loaded as a saved graph unless an older
// save's metadata is there.
func saveGraphs(ctx context.Context, dir, embedModel string, graphs map[string]*Graph) error {
	var ts []tripletRow
	var es []episodeRow
	var ls []linkRow
	names := make([]string, 0, len(graphs))
	for n := range graphs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		g := graphs[n]
		for i, t := range g.edges {
			ts = append(ts, tripletRow{n, i, t.Subject, t.Relation, t.Object})
		}
		for i, e := range g.episodes {
			es = append(es, episodeRow{n, i, e.Step, e.Text})
			for j, t := range e.Triplets {
				ls = append(ls, linkRow{n, i, j, t.Subject, t.Relation, t.Object})
			}
		}
	}
	if err := writeRows(ctx, dir, fileTriplets, ts); err != nil {
		return err
	}
	if err := writeRows(ctx, dir, fileEpisodes, es); err != nil {
		return err
	}
	if err := writeRows(ctx, dir, fileLinks, ls); err != nil {
		return err
	}
	return writeRows(ctx, dir, fileMeta, []metaRow{{graphFormat, embedModel}})
}

// writeRows writes rows to dir/name with checkpoints.WriteFile (atomic,
// zstd); its errors name the file.
func writeRows[T any](ctx context.Context, dir, name string, rows []T) error {
	return checkpoints.WriteFile(ctx, filepath.Join(dir, name), rows, checkpoints.WriteOptions{})
}

// readRows reads dir/name with checkpoints.ReadFile, which checks the
// columns against T and names the file in its errors (wrapping
// checkpoints.ErrMissing, ErrNotParquet, ErrCorrupt or ErrSchema).
func readRows[T any](ctx context.Context, dir, name string) ([]T, error) {
	return checkpoints.ReadFile[T](ctx, filepath.Join(dir, name))
}

// loadGraphs reads what saveGraphs wrote and returns the graphs and the
// embedding model they were saved with. A missing, damaged or foreign file
// gives an error naming it (wrapping the checkpoints sentinels); another
// format version or inconsistent rows give ErrFormat.
func loadGraphs(ctx context.Context, dir string) (map[string]*Graph, string, error) {
	meta, err := readRows[metaRow](ctx, dir, fileMeta)
	if err != nil {
		return nil, "", err
	}
	if len(meta) != 1 || meta[0].FormatVersion != graphFormat {
		return nil, "", fmt.Errorf("%s: %d rows, format version %v, want 1 row of version %d: %w",
			filepath.Join(dir, fileMeta), len(meta), versions(meta), graphFormat, ErrFormat)
	}
	ts, err := readRows[tripletRow](ctx, dir, fileTriplets)
	if err != nil {
		return nil, "", err
	}
	es, err := readRows[episodeRow](ctx, dir, fileEpisodes)
	if err != nil {
		return nil, "", err
	}
	ls, err := readRows[linkRow](ctx, dir, fileLinks)
	if err != nil {
		return nil, "", err
	}
	out := map[string]*Graph{}
	get := func(n string) *Graph {
		if out[n] == nil {
			out[n] = NewGraph()
		}
		return out[n]
	}
	slices.SortStableFunc(ts, func(a, b tripletRow) int { return a.Position - b.Position })
	for _, r := range ts {
		get(r.Graph).Add(Triplet{r.Subject, r.Relation, r.Object})
	}
	slices.SortStableFunc(es, func(a, b episodeRow) int { return a.ID - b.ID })
	for _, r := range es {
		g := get(r.Graph)
		if r.ID != len(g.episodes) {
			return nil, "", fmt.Errorf("%s: graph %q episode %d out of sequence: %w", filepath.Join(dir, fileEpisodes), r.Graph, r.ID, ErrFormat)
		}
		g.episodes = append(g.episodes, Episode{Step: r.Step, Text: r.Text})
	}
	slices.SortStableFunc(ls, func(a, b linkRow) int { return a.Position - b.Position })
	for _, r := range ls {
		g := out[r.Graph]
		if g == nil || r.EpisodeID < 0 || r.EpisodeID >= len(g.episodes) {
			return nil, "", fmt.Errorf("%s: link to missing episode %q/%d: %w", filepath.Join(dir, fileLinks), r.Graph, r.EpisodeID, ErrFormat)
		}
		e := &g.episodes[r.EpisodeID]
		e.Triplets = append(e.Triplets, Triplet{r.Subject, r.Relation, r.Object}.Norm())
	}
	return out, meta[0].EmbedModel, nil
}

func versions(meta []metaRow) []int {
	v := make([]int, len(meta))
	for i, m := range meta {
		v[i] = m.FormatVersion
	}
	return v
}

const filePriors = "arigraph_priors.parquet"

type priorRow struct {
	Object     string `parquet:"object_type,dict"`
	Receptacle string `parquet:"receptacle_type,dict"`
	Count      int    `parquet:"count"`
}

// Save implements agent.Saver: the per-task maps as graphs and the
// persistent store of placements.
func (m *Method) Save(ctx context.Context, dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := saveGraphs(ctx, dir, m.emb.Model(), m.maps); err != nil {
		return fmt.Errorf("save arigraph: %w", err)
	}
	var rows []priorRow
	for o, rs := range m.priors {
		for r, n := range rs {
			rows = append(rows, priorRow{o, r, n})
		}
	}
	slices.SortFunc(rows, func(a, b priorRow) int {
		return strings.Compare(a.Object+"\x00"+a.Receptacle, b.Object+"\x00"+b.Receptacle)
	})
	if err := writeRows(ctx, dir, filePriors, rows); err != nil {
		return fmt.Errorf("save arigraph: %w", err)
	}
	return nil
}

// Load implements agent.Saver. It refuses graphs saved with another embedder.
func (m *Method) Load(ctx context.Context, dir string) error {
	maps, model, err := loadGraphs(ctx, dir)
	if err != nil {
		return fmt.Errorf("load arigraph: %w", err)
	}
	if model != m.emb.Model() {
		return fmt.Errorf("load arigraph: saved with embedder %q, running %q: %w", model, m.emb.Model(), ErrFormat)
	}
	rows, err := readRows[priorRow](ctx, dir, filePriors)
	if err != nil {
		return fmt.Errorf("load arigraph: %w", err)
	}
	priors := map[string]map[string]int{}
	for _, r := range rows {
		if priors[r.Object] == nil {
			priors[r.Object] = map[string]int{}
		}
		priors[r.Object][r.Receptacle] = r.Count
	}
	m.mu.Lock()
	m.maps, m.priors = maps, priors
	m.mu.Unlock()
	return nil
}
