// Package synth generates seeded streams of synthetic text-embedding vectors
// shaped like the ones SAMem clusters online (seed 002 Sec. 3.2): unit vectors
// with a shared direction (real embedding models are anisotropic: unrelated
// texts still have a positive cosine), clusters grouped into topics and topics
// grouped into domains (related situations share words), and members of a
// cluster scattered around it so that the cosine to the cluster's first member
// falls on both sides of the 0.85 threshold.
//
// The same seed and configuration always give the same stream, so a failing
// test can be replayed from the seed it prints.
package synth

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Config describes the stream. The zero value of a field means its default.
type Config struct {
	// Dim is the vector dimension (default 1024, the size of text-embedding-v3
	// used by the paper, seed 002 Sec. 4.1).
	Dim int
	// Domains is the number of domains (default 16). Topics in one domain are
	// related: their vectors share a direction.
	Domains int
	// ClustersPerTopic is the mean number of clusters per topic (default 40):
	// a new cluster opens a new topic with probability 1/ClustersPerTopic.
	ClustersPerTopic int
	// NewRate is the probability that the next vector starts a new cluster
	// (default 0.3). With the scatter of revisits (some fall below the
	// threshold) the share of vectors that are truly new for a 0.85 threshold
	// is about 35 %, the share measured in ../shared/DEPENDENCIES.md.
	NewRate float64
	// Shared, Domain, Topic and Own are the squared weights of the shared
	// direction, the domain, the topic and the cluster's own direction in a
	// cluster centre (defaults 0.15, 0.15, 0.35, 0.35; they are normalised to
	// sum to 1). Two clusters of one topic then have cosine about 0.65, of one
	// domain about 0.3, unrelated about 0.15.
	Shared, Domain, Topic, Own float64
	// MinScatter and MaxScatter bound the squared norm of the noise added to a
	// cluster centre for one member, drawn uniformly (defaults 0.02 and 0.16):
	// two members then have cosine between about 0.98 and 0.83.
	MinScatter, MaxScatter float64
}

// ErrConfig is returned by New when a configuration field is out of range.
var ErrConfig = errors.New("synth: bad config")

func (c Config) withDefaults() Config {
	if c.Dim == 0 {
		c.Dim = 1024
	}
	if c.Domains == 0 {
		c.Domains = 16
	}
	if c.ClustersPerTopic == 0 {
		c.ClustersPerTopic = 40
	}
	if c.NewRate == 0 {
		c.NewRate = 0.3
	}
	if c.Shared == 0 && c.Domain == 0 && c.Topic == 0 && c.Own == 0 {
		c.Shared, c.Domain, c.Topic, c.Own = 0.15, 0.15, 0.35, 0.35
	}
	if c.MinScatter == 0 && c.MaxScatter == 0 {
		c.MinScatter, c.MaxScatter = 0.02, 0.16
	}
	return c
}

// Stream yields vectors. It is not safe for concurrent use.
type Stream struct {
	cfg            Config
	rng            *rand.Rand
	shared         []float32
	domains        [][]float32
	topics         [][]float32 // topic directions
	topicDomain    []int       // domain of each topic
	centres        [][]float32 // cluster centres (unit)
	wS, wD, wT, wO float64
}

// New returns a stream drawing from rng.
func New(cfg Config, rng *rand.Rand) (*Stream, error) {
	cfg = cfg.withDefaults()
	switch {
	case cfg.Dim < 2:
		return nil, fmt.Errorf("%w: Dim %d < 2", ErrConfig, cfg.Dim)
	case cfg.Domains < 1, cfg.ClustersPerTopic < 1:
		return nil, fmt.Errorf("%w: Domains %d, ClustersPerTopic %d", ErrConfig, cfg.Domains, cfg.ClustersPerTopic)
	case cfg.NewRate <= 0 || cfg.NewRate > 1:
		return nil, fmt.Errorf("%w: NewRate %v not in (0, 1]", ErrConfig, cfg.NewRate)
	case cfg.Shared < 0 || cfg.Domain < 0 || cfg.Topic < 0 || cfg.Own <= 0:
		return nil, fmt.Errorf("%w: negative weight or Own <= 0", ErrConfig)
	case cfg.MinScatter < 0 || cfg.MaxScatter < cfg.MinScatter:
		return nil, fmt.Errorf("%w: scatter [%v, %v]", ErrConfig, cfg.MinScatter, cfg.MaxScatter)
	}
	sum := cfg.Shared + cfg.Domain + cfg.Topic + cfg.Own
	s := &Stream{
		cfg: cfg, rng: rng,
		wS: math.Sqrt(cfg.Shared / sum), wD: math.Sqrt(cfg.Domain / sum),
		wT: math.Sqrt(cfg.Topic / sum), wO: math.Sqrt(cfg.Own / sum),
	}
	s.shared = s.randomUnit()
	for range cfg.Domains {
		s.domains = append(s.domains, s.randomUnit())
	}
	return s, nil
}

// randomUnit returns a uniformly random unit vector. Random directions in
// high dimension are nearly orthogonal, which is what makes the weights above
// the expected cosines.
func (s *Stream) randomUnit() []float32 {
	v := make([]float32, s.cfg.Dim)
	for i := range v {
		v[i] = float32(s.rng.NormFloat64())
	}
	normalize(v)
	return v
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(n)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
}

// newCluster adds a cluster centre, in a new topic now and then.
func (s *Stream) newCluster() []float32 {
	if len(s.topics) == 0 || s.rng.IntN(s.cfg.ClustersPerTopic) == 0 {
		s.topics = append(s.topics, s.randomUnit())
		s.topicDomain = append(s.topicDomain, s.rng.IntN(len(s.domains)))
	}
	t := s.rng.IntN(len(s.topics))
	own := s.randomUnit()
	d := s.domains[s.topicDomain[t]]
	c := make([]float32, s.cfg.Dim)
	for i := range c {
		c[i] = float32(s.wS*float64(s.shared[i]) + s.wD*float64(d[i]) + s.wT*float64(s.topics[t][i]) + s.wO*float64(own[i]))
	}
	normalize(c)
	s.centres = append(s.centres, c)
	return c
}

// Next returns a fresh vector: a member of a new cluster with probability
// NewRate, else a member of a uniformly chosen earlier cluster.
func (s *Stream) Next() []float32 {
	if len(s.centres) == 0 || s.rng.Float64() < s.cfg.NewRate {
		return s.member(s.newCluster())
	}
	return s.member(s.centres[s.rng.IntN(len(s.centres))])
}

// NextNew returns the first member of a new cluster. It fills a store with
// cluster representatives quickly (benchmarks at 100,000 clusters); later
// calls to Next revisit these clusters too.
func (s *Stream) NextNew() []float32 { return s.member(s.newCluster()) }

// member returns centre c plus noise of a random scatter, normalised.
func (s *Stream) member(c []float32) []float32 {
	scatter := s.cfg.MinScatter + (s.cfg.MaxScatter-s.cfg.MinScatter)*s.rng.Float64()
	noise := s.randomUnit()
	w := math.Sqrt(scatter)
	v := make([]float32, s.cfg.Dim)
	for i := range v {
		v[i] = c[i] + float32(w)*noise[i]
	}
	normalize(v)
	return v
}

// Clusters reports how many cluster centres the stream has drawn so far.
func (s *Stream) Clusters() int { return len(s.centres) }
