// Package cluster is SAMem's online threshold clustering of texts by the
// cosine similarity of their embeddings (seed 002 Sec. 3.2 "Online
// clustering" and Appendix A "Clustering Details"): a vector joins the most
// similar existing cluster when that similarity exceeds the threshold (0.85
// in the paper), else it founds a new cluster. The same index type serves
// states and thoughts.
//
// A cluster is represented by its first member's vector, as the paper
// compares new states with the stored state vectors; it keeps its first text
// and a member count.
//
// Decisions are exact: they equal those of an exact scan (type Exact) bit for
// bit. github.com/coder/hnsw, over one representative row per list,
// proposes a first candidate, but at scale it misses most true neighbours
// (../shared/DEPENDENCIES.md), so small groups of rows with provable cosine
// bounds (lists in tree.go) and 4-bit codes of every row with a proven error
// bound (i4.go; the query and the pivots use int8 codes, i8.go) then prove
// that no stored vector beats the best candidate; only rows within about
// 0.12 of the bar get an exact float32 product.
//
// An Image (image.go) is the index's lists and graph as they are, for a
// checkpoint: RestoreImage brings an index back from it and its clusters
// without the k-means and graph inserts of Restore, after checking it
// against the vectors.
package cluster

import "errors"

// Errors returned by this package; test with errors.Is.
var (
	// ErrConfig is returned by New, Restore and NewExact for a configuration
	// value out of range, and by Restore for malformed clusters.
	ErrConfig = errors.New("cluster: bad config")
	// ErrDim is returned when a vector's length is not Config.Dim.
	ErrDim = errors.New("cluster: wrong vector dimension")
	// ErrVector is returned for a vector with a zero norm or a NaN or
	// infinite component, whose cosine similarity is undefined.
	ErrVector = errors.New("cluster: invalid vector")
)
