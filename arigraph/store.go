package arigraph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// FormatVersion is the version of the files SaveGraphs writes; LoadGraphs
// refuses other versions.
const FormatVersion = 1

// File names inside a saved directory.
const (
	fileMeta     = "arigraph_meta.parquet"
	fileTriplets = "arigraph_triplets.parquet"
	fileEpisodes = "arigraph_episodes.parquet"
	fileLinks    = "arigraph_links.parquet"
)

// ErrFormat is returned by LoadGraphs for files of another format version or
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

// writeAtomic writes rows to dir/name through a temporary file and a rename.
func writeAtomic[T any](dir, name string, rows []T) error {
	tmp, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	if err := parquet.Write(tmp, rows); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("rename %s: %w", name, err)
	}
	return nil
}

// SaveGraphs writes named graphs to dir as three Parquet tables (triplets,
// episodes, links between them) plus a metadata row; embedModel records the
// embedder the graphs were searched with. Names keep their map, and each
// graph's order is preserved.
func SaveGraphs(dir, embedModel string, graphs map[string]*Graph) error {
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
	if err := writeAtomic(dir, fileTriplets, ts); err != nil {
		return err
	}
	if err := writeAtomic(dir, fileEpisodes, es); err != nil {
		return err
	}
	if err := writeAtomic(dir, fileLinks, ls); err != nil {
		return err
	}
	return writeAtomic(dir, fileMeta, []metaRow{{FormatVersion, embedModel}})
}

// LoadGraphs reads what SaveGraphs wrote and returns the graphs and the
// embedding model they were saved with.
func LoadGraphs(dir string) (map[string]*Graph, string, error) {
	meta, err := parquet.ReadFile[metaRow](filepath.Join(dir, fileMeta))
	if err != nil {
		return nil, "", fmt.Errorf("load %s: %w", fileMeta, err)
	}
	if len(meta) != 1 || meta[0].FormatVersion != FormatVersion {
		return nil, "", fmt.Errorf("load %s: %w", dir, ErrFormat)
	}
	ts, err := parquet.ReadFile[tripletRow](filepath.Join(dir, fileTriplets))
	if err != nil {
		return nil, "", fmt.Errorf("load %s: %w", fileTriplets, err)
	}
	es, err := parquet.ReadFile[episodeRow](filepath.Join(dir, fileEpisodes))
	if err != nil {
		return nil, "", fmt.Errorf("load %s: %w", fileEpisodes, err)
	}
	ls, err := parquet.ReadFile[linkRow](filepath.Join(dir, fileLinks))
	if err != nil {
		return nil, "", fmt.Errorf("load %s: %w", fileLinks, err)
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
			return nil, "", fmt.Errorf("load %s: graph %q episode %d out of sequence: %w", fileEpisodes, r.Graph, r.ID, ErrFormat)
		}
		g.episodes = append(g.episodes, Episode{Step: r.Step, Text: r.Text})
	}
	slices.SortStableFunc(ls, func(a, b linkRow) int { return a.Position - b.Position })
	for _, r := range ls {
		g := out[r.Graph]
		if g == nil || r.EpisodeID < 0 || r.EpisodeID >= len(g.episodes) {
			return nil, "", fmt.Errorf("load %s: link to missing episode %q/%d: %w", fileLinks, r.Graph, r.EpisodeID, ErrFormat)
		}
		e := &g.episodes[r.EpisodeID]
		e.Triplets = append(e.Triplets, Triplet{r.Subject, r.Relation, r.Object}.Norm())
	}
	return out, meta[0].EmbedModel, nil
}

const filePriors = "arigraph_priors.parquet"

type priorRow struct {
	Object     string `parquet:"object_type,dict"`
	Receptacle string `parquet:"receptacle_type,dict"`
	Count      int    `parquet:"count"`
}

// Save implements agent.Saver: the per-task maps as graphs and the
// persistent store of placements.
func (m *Method) Save(_ context.Context, dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := SaveGraphs(dir, m.emb.Model(), m.maps); err != nil {
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
	return writeAtomic(dir, filePriors, rows)
}

// Load implements agent.Saver. It refuses graphs saved with another embedder.
func (m *Method) Load(_ context.Context, dir string) error {
	maps, model, err := LoadGraphs(dir)
	if err != nil {
		return fmt.Errorf("load arigraph: %w", err)
	}
	if model != m.emb.Model() {
		return fmt.Errorf("load arigraph: saved with embedder %q, running %q: %w", model, m.emb.Model(), ErrFormat)
	}
	rows, err := parquet.ReadFile[priorRow](filepath.Join(dir, filePriors))
	if err != nil {
		return fmt.Errorf("load %s: %w", filePriors, err)
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
