package cluster

import (
	"fmt"
	"math"
	mrand "math/rand"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/coder/hnsw"
)

// Config configures an Index. Zero values take the documented defaults.
type Config struct {
	// Threshold is θ_sim: a vector joins its most similar cluster when the
	// cosine similarity exceeds it strictly (seed 002 Appendix A: "exceeds a
	// predefined threshold (0.85)"). Default 0.85; range [-1, 1].
	Threshold float32
	// Dim is the embedding dimension; required (> 0).
	Dim int
	// FirstID is the id of the first cluster created (default 0). Ids grow by
	// one per new cluster and are never reused. Restore starts after
	// max(FirstID-1, the largest restored id); to keep ids of clusters removed
	// before a checkpoint unused, save NextID and pass it here.
	FirstID int64
	// Candidates is how many neighbours the HNSW graph is asked for per query
	// (default 8). The graph holds one representative row per list (see
	// graphLists); the best candidate, re-ranked exactly, is the first bar
	// the list search must beat. A negative value disables the graph:
	// decisions stay exact, only the cost changes.
	Candidates int
	// M and EfSearch are coder/hnsw's parameters (defaults 16 and 20, the
	// library's own). Larger values cost much more build time
	// (../shared/DEPENDENCIES.md) for little recall.
	M, EfSearch int
	// LeafSize is the largest list a bulk build makes (default 32; lists
	// average about 60 % of it); a list split past twice that online. See
	// lists in tree.go.
	LeafSize int
	// Fanout is the number of parts of one k-means split in a bulk build
	// (default 16).
	Fanout int
	// Rng drives the graph's level draws and the lists' k-means seeds. Default
	// a PCG seeded (1, 2). The index owns it afterwards. Decisions do not
	// depend on it (nor on coder/hnsw's own non-determinism); only cost does.
	Rng *rand.Rand
}

func (c Config) withDefaults() (Config, error) {
	if c.Threshold == 0 {
		c.Threshold = 0.85
	}
	if c.Candidates == 0 {
		c.Candidates = 8
	}
	if c.M == 0 {
		c.M = 16
	}
	if c.EfSearch == 0 {
		c.EfSearch = 20
	}
	if c.LeafSize == 0 {
		c.LeafSize = 32
	}
	if c.Fanout == 0 {
		c.Fanout = 16
	}
	if c.Rng == nil {
		c.Rng = rand.New(rand.NewPCG(1, 2))
	}
	switch {
	case c.Dim <= 0:
		return c, fmt.Errorf("%w: Dim %d <= 0", ErrConfig, c.Dim)
	case math.IsNaN(float64(c.Threshold)) || c.Threshold < -1 || c.Threshold > 1:
		return c, fmt.Errorf("%w: Threshold %v not in [-1, 1]", ErrConfig, c.Threshold)
	case c.M < 2 || c.EfSearch < 1:
		return c, fmt.Errorf("%w: M %d, EfSearch %d", ErrConfig, c.M, c.EfSearch)
	case c.LeafSize < 1 || c.Fanout < 2:
		return c, fmt.Errorf("%w: LeafSize %d, Fanout %d", ErrConfig, c.LeafSize, c.Fanout)
	}
	return c, nil
}

// Cluster is one cluster as Clusters returns it and Restore takes it.
type Cluster struct {
	ID      int64
	Text    string    // the first member's text (the representative)
	Members int64     // how many vectors joined, the first included (>= 1)
	Vector  []float32 // the first member's vector, normalised to unit length
}

// chunkRows is the number of rows per storage chunk. Rows never move once
// written because the graph keeps the slices it is given (coder/hnsw does not
// copy), so the store grows by chunks rather than by reallocating.
const chunkRows = 1024

// Index is an online threshold clustering. It is safe for concurrent use:
// Assign and Remove take a write lock, the rest a read lock.
type Index struct {
	mu      sync.RWMutex
	cfg     Config
	chunks  [][]float32
	ids     []int64 // by slot; slots are in id order
	texts   []string
	members []int64
	alive   []bool
	slotOf  map[int64]int32 // live clusters only
	live    int
	nextID  int64
	graph   *hnsw.Graph[int64] // nil when Candidates < 0
	inGraph map[int64]bool     // ids added to the graph (live or not)
	lists   lists
	builtAt int // live rows at the last bulk build of the lists
	scratch sync.Pool
}

// New returns an empty index.
func New(cfg Config) (*Index, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cd := codeDim(cfg.Dim)
	ix := &Index{cfg: cfg, nextID: cfg.FirstID, slotOf: map[int64]int32{}}
	ix.lists = lists{dim: cfg.Dim, cdim: cd, ndim: nibbleDim(cfg.Dim), tdim: twoDim(cfg.Dim), leafMax: cfg.LeafSize, fanout: cfg.Fanout, slack: slackFor(cfg.Dim)}
	ix.scratch.New = func() any {
		// qc2 extends qc with zeros to the 2-bit kernel's block (i2.go).
		qc2 := make([]int8, twoCodeDim(cfg.Dim))
		return &scratch{q: make([]float32, cfg.Dim), qc: qc2[:cd], qc2: qc2}
	}
	ix.newGraph()
	return ix, nil
}

// slackFor bounds the rounding error of a float32 dot product of two unit
// vectors of dimension dim (n·u with u = 2^-24, doubled), plus the norm
// error of stored unit vectors. The bounds of the lists are widened by it.
func slackFor(dim int) float64 {
	return 2*float64(dim)*0x1p-24 + 1e-6
}

func (ix *Index) newGraph() {
	ix.graph, ix.inGraph = nil, map[int64]bool{}
	if ix.cfg.Candidates < 0 {
		return
	}
	g := hnsw.NewGraph[int64]()
	g.M, g.EfSearch = ix.cfg.M, ix.cfg.EfSearch
	g.Rng = mrand.New(mrand.NewSource(int64(ix.cfg.Rng.Uint64())))
	ix.graph = g
}

// Restore returns an index holding clusters (in any order) with their ids,
// texts, member counts and vectors, as Clusters returned them. The next new
// cluster gets an id above all of them (and at least cfg.FirstID).
func Restore(cfg Config, clusters []Cluster) (*Index, error) {
	ix, slots, err := restoreStore(cfg, clusters)
	if err != nil {
		return nil, err
	}
	ix.lists.build(slots, ix.row, ix.cfg.Rng)
	ix.builtAt = len(slots)
	ix.graphLists(0)
	return ix, nil
}

// restoreStore returns a new index whose store holds clusters (checked, in
// id order, one slot each, in no list and not in the graph yet) and their
// slots.
func restoreStore(cfg Config, clusters []Cluster) (*Index, []int32, error) {
	ix, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	cs := slices.Clone(clusters)
	slices.SortFunc(cs, func(a, b Cluster) int { return cmpInt64(a.ID, b.ID) })
	for i, c := range cs {
		switch {
		case i > 0 && c.ID == cs[i-1].ID:
			return nil, nil, fmt.Errorf("%w: duplicate cluster id %d", ErrConfig, c.ID)
		case c.Members < 1:
			return nil, nil, fmt.Errorf("%w: cluster %d has %d members", ErrConfig, c.ID, c.Members)
		case len(c.Vector) != ix.cfg.Dim:
			return nil, nil, fmt.Errorf("restore cluster %d: %w: got %d, want %d", c.ID, ErrDim, len(c.Vector), ix.cfg.Dim)
		}
	}
	slots := make([]int32, 0, len(cs))
	for _, c := range cs {
		slot, err := ix.store(c.ID, c.Vector, c.Text, c.Members)
		if err != nil {
			return nil, nil, fmt.Errorf("restore cluster %d: %w", c.ID, err)
		}
		slots = append(slots, slot)
	}
	if n := len(cs); n > 0 {
		ix.nextID = max(ix.nextID, cs[n-1].ID+1)
	}
	return ix, slots, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// NextID returns the id the next new cluster will get.
func (ix *Index) NextID() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.nextID
}

// Threshold returns the configured threshold.
func (ix *Index) Threshold() float32 { return ix.cfg.Threshold }

// row returns the stored unit vector of a slot.
func (ix *Index) row(slot int32) []float32 {
	d := ix.cfg.Dim
	c, r := int(slot)/chunkRows, int(slot)%chunkRows
	return ix.chunks[c][r*d : (r+1)*d : (r+1)*d]
}

// store appends a normalised copy of vec as a new live slot (not yet in the
// lists or the graph).
func (ix *Index) store(id int64, vec []float32, text string, members int64) (int32, error) {
	slot := len(ix.ids)
	if slot > math.MaxInt32-1 {
		return 0, fmt.Errorf("%w: more than %d clusters", ErrConfig, math.MaxInt32)
	}
	d := ix.cfg.Dim
	c, r := slot/chunkRows, slot%chunkRows
	if c == len(ix.chunks) {
		ix.chunks = append(ix.chunks, make([]float32, chunkRows*d))
	}
	if _, err := Normalize(ix.chunks[c][r*d:(r+1)*d], vec); err != nil {
		return 0, err
	}
	ix.ids = append(ix.ids, id)
	ix.texts = append(ix.texts, text)
	ix.members = append(ix.members, members)
	ix.alive = append(ix.alive, true)
	ix.slotOf[id] = int32(slot)
	ix.live++
	return int32(slot), nil
}

// graphLists adds the representative row of every list from first on (the
// row nearest the list's pivot) to the graph, unless the graph has it.
//
// The graph holds representatives rather than every row because of memory:
// all 100,000 rows in coder/hnsw cost 83 MiB at M 4 (173 MiB at M 16) on top
// of the 549 MiB of rows, codes and lists, over the 600 MiB budget, while
// the bounds make decisions exact whatever the graph returns. A
// representative that stops being one (its list was split) stays in the
// graph: it is still a live row, and coder/hnsw cannot delete safely.
func (ix *Index) graphLists(first int) {
	for g := first; g < ix.lists.len(); g++ {
		ix.graphList(g)
	}
}

// graphList adds the representative of list g (see graphLists).
func (ix *Index) graphList(g int) {
	if ix.graph == nil {
		return
	}
	info, bounds := ix.lists.info[g], ix.lists.bounds[g]
	best := -1
	for i, m := range info {
		if ix.alive[m.slot] && (best < 0 || bounds[i].lo > bounds[best].lo) {
			best = i
		}
	}
	if best < 0 {
		return
	}
	s := info[best].slot
	if id := ix.ids[s]; !ix.inGraph[id] {
		// Each id is added once: coder/hnsw panics when a key is added
		// again.
		ix.graph.Add(hnsw.MakeNode(id, ix.row(s)))
		ix.inGraph[id] = true
	}
}

// prepare checks and normalises vec into the scratch buffer.
func (ix *Index) prepare(sc *scratch, vec []float32) ([]float32, error) {
	if len(vec) != ix.cfg.Dim {
		return nil, fmt.Errorf("%w: got %d, want %d", ErrDim, len(vec), ix.cfg.Dim)
	}
	return Normalize(sc.q, vec)
}

// Assign clusters one vector with its text: it joins the most similar cluster
// when their cosine similarity exceeds the threshold (created false, id and
// similarity of that cluster, whose member count grows by one), else it
// founds a new cluster represented by a copy of vec and text (created true;
// sim is then the highest similarity the search computed, at most the
// threshold, or -1 when the index was empty).
func (ix *Index) Assign(vec []float32, text string) (id int64, created bool, sim float32, err error) {
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	q, err := ix.prepare(sc, vec)
	if err != nil {
		return 0, false, 0, fmt.Errorf("assign: %w", err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	slot, s, ok, near := ix.search(sc, q)
	if ok && s > ix.cfg.Threshold {
		ix.members[slot]++
		return ix.ids[slot], false, s, nil
	}
	if !ok {
		s = -1
	}
	id = ix.nextID
	ns, err := ix.store(id, q, text, 1)
	if err != nil {
		return 0, false, 0, fmt.Errorf("assign: %w", err)
	}
	ix.nextID++
	ix.insertLists(ns, near)
	return id, true, s, nil
}

// insertLists adds a new slot to list near (the one with the most similar
// pivot), rebuilding all lists in bulk when the store has doubled since the
// last build: online inserts keep the bounds valid, but pivots chosen early
// fit later data less well.
func (ix *Index) insertLists(slot int32, near int) {
	if ix.live >= 2*ix.builtAt && ix.live >= 4*ix.cfg.LeafSize {
		ix.rebuildLists()
		ix.graphLists(0)
		return
	}
	n := ix.lists.len()
	ix.lists.insert(near, slot, ix.row(slot), ix.row, ix.cfg.Rng)
	switch {
	case near < 0:
		ix.graphLists(n)
	case ix.lists.len() > n: // list near was split
		ix.graphLists(n)
		ix.graphList(near)
	}
}

func (ix *Index) rebuildLists() {
	slots := make([]int32, 0, ix.live)
	for s, a := range ix.alive {
		if a {
			slots = append(slots, int32(s))
		}
	}
	ix.lists.build(slots, ix.row, ix.cfg.Rng)
	ix.builtAt = len(slots)
}

// Nearest returns the cluster vec would join, without changing anything (for
// evaluation with frozen memory, seed 002 Sec. 3.3): ok is true and id, sim
// are that cluster and the similarity when the best similarity exceeds the
// threshold; ok is false when vec would found a new cluster.
func (ix *Index) Nearest(vec []float32) (id int64, sim float32, ok bool, err error) {
	sc := ix.scratch.Get().(*scratch)
	defer ix.scratch.Put(sc)
	q, err := ix.prepare(sc, vec)
	if err != nil {
		return 0, 0, false, fmt.Errorf("nearest: %w", err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, s, found, _ := ix.search(sc, q)
	if !found || s <= ix.cfg.Threshold {
		return 0, s, false, nil
	}
	return ix.ids[slot], s, true, nil
}

// Remove deletes clusters (forgetting, seed 002 Sec. 3.2); unknown ids are
// ignored. coder/hnsw's Delete is unsafe (searches after it panic), so a
// removed row stays in the graph and the lists as a tombstone that searches
// skip; when tombstones outnumber live rows the store is compacted and the
// graph and lists rebuilt.
func (ix *Index) Remove(ids ...int64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		s, ok := ix.slotOf[id]
		if !ok {
			continue
		}
		delete(ix.slotOf, id)
		ix.alive[s] = false
		ix.texts[s] = ""
		ix.live--
	}
	if dead := len(ix.ids) - ix.live; dead > ix.live && dead >= 64 {
		ix.compact()
	}
}

// compact rewrites the store without tombstones and rebuilds the graph and
// the lists. Cost: one graph insert per live row (about 0.3 ms each at
// 10,000 rows).
func (ix *Index) compact() {
	d := ix.cfg.Dim
	chunks, ids, texts, members, alive := ix.chunks, ix.ids, ix.texts, ix.members, ix.alive
	ix.chunks, ix.ids, ix.texts, ix.members, ix.alive = nil, nil, nil, nil, nil
	ix.slotOf, ix.live = map[int64]int32{}, 0
	var slots []int32
	for s, a := range alive {
		if !a {
			continue
		}
		c, r := s/chunkRows, s%chunkRows
		// The stored row is already unit: store keeps its bits.
		ns, _ := ix.store(ids[s], chunks[c][r*d:(r+1)*d], texts[s], members[s])
		slots = append(slots, ns)
	}
	ix.lists.build(slots, ix.row, ix.cfg.Rng)
	ix.builtAt = len(slots)
	ix.newGraph()
	ix.graphLists(0)
}

// Len returns the number of clusters.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Get returns a copy of one cluster; ok is false for an unknown or removed id.
func (ix *Index) Get(id int64) (c Cluster, ok bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	s, ok := ix.slotOf[id]
	if !ok {
		return Cluster{}, false
	}
	return ix.cluster(s), true
}

func (ix *Index) cluster(s int32) Cluster {
	return Cluster{ID: ix.ids[s], Text: ix.texts[s], Members: ix.members[s], Vector: slices.Clone(ix.row(s))}
}

// Clusters returns copies of all clusters sorted by id, for checkpoints.
func (ix *Index) Clusters() []Cluster {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]Cluster, 0, ix.live)
	for s, a := range ix.alive {
		if a {
			out = append(out, ix.cluster(int32(s)))
		}
	}
	return out
}
