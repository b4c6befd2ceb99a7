package cluster

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	mrand "math/rand"
	"unsafe"

	"github.com/coder/hnsw"
)

// An Image is what an Index needs, beside its clusters, to come back as it
// was without a rebuild: the lists with their pivots, the
// angular bounds and the 2-bit and 4-bit codes of their rows, and the HNSW
// graph as coder/hnsw's Export writes it. Restore rebuilds all of this with
// k-means and one graph insert per representative (a SAMem Load of 10,000
// states and 10,000 thoughts took 1.42 s with that rebuild, its files alone
// about 0.27 s: bench/results/2026-11-22.md); RestoreImage
// reads it back.
//
// An image is tied to the clusters it was taken with: it records their
// number and a CRC-32C of their ids and stored (unit) vectors, and
// RestoreImage refuses it for any other set. Its file (WriteTo, ReadImage)
// has a magic, a version and a CRC-32C of the whole content. Whatever
// RestoreImage accepts keeps decisions exact: every live cluster is in
// exactly one list, each row's angular bound and each list's minimum cosine
// are recomputed from the vectors and must match, the pivot codes are
// recomputed, and every graph vector of a live cluster must be its stored
// vector bit for bit. The row codes are taken as written (recomputing them
// is most of a rebuild's cost); the file's CRC-32C, and in a checkpoint
// the manifest's SHA-256, guard them.
type Image struct {
	dim, leafSize, fanout, m int
	count                    int    // live clusters
	sum                      uint32 // fingerprint of their ids and vectors
	builtAt                  int
	pivots                   []float32
	minCos                   []float32
	bounds                   [][]rowBound
	ids                      [][]int64 // per list, the cluster id of each row
	info                     [][]rowInfo
	codes, codes2            [][]byte
	graph                    []byte // coder/hnsw Export; empty when none
	graphKeys                []int64
}

// ErrImage is returned by ReadImage and RestoreImage for an image that is
// damaged, of another version, or not of these clusters or this
// configuration. The caller can always fall back to Restore.
var ErrImage = errors.New("cluster: unusable index image")

// imageMagic starts every image file; imageVersion follows it. Bump the
// version when the layout or the meaning of a field changes.
const (
	imageMagic   = "SAMEMCIX"
	imageVersion = 1
	// graphDistance is the only distance the index's graph uses.
	graphDistance = "cosine"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fingerprint is the CRC-32C of the ids and stored vectors of the live
// clusters in id order, all little-endian.
func (ix *Index) fingerprint() uint32 {
	var h uint32
	var b [8]byte
	var buf []byte
	for s, a := range ix.alive {
		if !a {
			continue
		}
		binary.LittleEndian.PutUint64(b[:], uint64(ix.ids[s]))
		h = crc32.Update(h, castagnoli, b[:])
		row := ix.row(int32(s))
		if littleEndian {
			// The row's own bytes: an encoded copy of every row cost a
			// third of a restore (pprof).
			h = crc32.Update(h, castagnoli, unsafe.Slice((*byte)(unsafe.Pointer(&row[0])), 4*len(row)))
			continue
		}
		buf = appendF32s(buf[:0], row)
		h = crc32.Update(h, castagnoli, buf)
	}
	return h
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func appendF32s(dst []byte, v []float32) []byte {
	for _, x := range v {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return dst
}

// f32bytes returns the little-endian bytes of v.
func f32bytes(v []float32) []byte { return appendF32s(make([]byte, 0, 4*len(v)), v) }

// Image returns a copy of the index's lists and graph, taken under its
// lock, for a checkpoint written with Clusters (see Snapshot). Removed
// clusters are left out of the lists (the lists' bounds stay valid: they
// hold for every row ever placed); the graph keeps them, as it does live.
func (ix *Index) Image() (*Image, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.image()
}

// Snapshot returns the clusters (as Clusters) and the image (as Image) of
// one moment.
func (ix *Index) Snapshot() ([]Cluster, *Image, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	out := make([]Cluster, 0, ix.live)
	for s, a := range ix.alive {
		if a {
			out = append(out, ix.cluster(int32(s)))
		}
	}
	img, err := ix.image()
	return out, img, err
}

func (ix *Index) image() (*Image, error) {
	l := &ix.lists
	img := &Image{dim: ix.cfg.Dim, leafSize: ix.cfg.LeafSize, fanout: ix.cfg.Fanout, m: ix.cfg.M,
		count: ix.live, sum: ix.fingerprint(), builtAt: ix.builtAt}
	g := l.len()
	img.pivots = append([]float32(nil), l.pivots[:g*l.dim]...)
	img.minCos = append([]float32(nil), l.minCos[:g]...)
	for k := range g {
		var bs []rowBound
		var ids []int64
		var info []rowInfo
		var c4, c2 []byte
		for i, m := range l.info[k] {
			if !ix.alive[m.slot] {
				continue
			}
			bs = append(bs, l.bounds[k][i])
			ids = append(ids, ix.ids[m.slot])
			info = append(info, m)
			c4 = append(c4, l.code(k, i)...)
			c2 = append(c2, l.code2(k, i)...)
		}
		img.bounds = append(img.bounds, bs)
		img.ids = append(img.ids, ids)
		img.info = append(img.info, info)
		img.codes = append(img.codes, c4)
		img.codes2 = append(img.codes2, c2)
	}
	if ix.graph != nil && len(ix.inGraph) > 0 {
		var buf bytes.Buffer
		if err := ix.graph.Export(&buf); err != nil {
			return nil, fmt.Errorf("index image: graph: %w", err)
		}
		img.graph = buf.Bytes()
	}
	return img, nil
}

// WriteTo writes the image: magic, version, the fields, then a CRC-32C of
// everything before it. All numbers are little-endian.
func (img *Image) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	h := crc32.New(castagnoli)
	e := &encoder{w: io.MultiWriter(bw, h)}
	e.bytes([]byte(imageMagic))
	e.u32(imageVersion)
	e.u32(uint32(img.dim))
	e.u32(uint32(img.leafSize))
	e.u32(uint32(img.fanout))
	e.u32(uint32(img.m))
	e.u64(uint64(img.count))
	e.u32(img.sum)
	e.u64(uint64(img.builtAt))
	e.u32(uint32(len(img.minCos)))
	for g := range img.minCos {
		e.f32s(img.pivots[g*img.dim : (g+1)*img.dim])
		e.f32s(img.minCos[g : g+1])
		e.u32(uint32(len(img.ids[g])))
		for i, id := range img.ids[g] {
			b, m := img.bounds[g][i], img.info[g][i]
			e.u64(uint64(id))
			e.f32s([]float32{b.lo, b.sin, m.scale2, m.cerr2, m.scale, m.cerr})
		}
		e.bytes(img.codes[g])
		e.bytes(img.codes2[g])
	}
	e.u64(uint64(len(img.graph)))
	e.bytes(img.graph)
	if e.err == nil {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], h.Sum32())
		_, e.err = bw.Write(b[:])
	}
	if e.err == nil {
		e.err = bw.Flush()
	}
	return cw.n, e.err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type encoder struct {
	w   io.Writer
	err error
	buf [8]byte
}

func (e *encoder) bytes(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.bytes(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:], v)
	e.bytes(e.buf[:])
}

func (e *encoder) f32s(v []float32) { e.bytes(f32bytes(v)) }

// maxImageDim bounds the dimension an image may claim, so that a damaged
// header cannot make the reader size anything from it.
const maxImageDim = 1 << 16

// ReadImage parses an image file's bytes. It checks the magic, the version,
// the CRC-32C, and that every count fits in the bytes that follow it (so no
// damaged count makes it allocate more than the file's size), and walks the
// graph section to check what coder/hnsw's Import would otherwise trust.
// Errors wrap ErrImage. The image keeps sub-slices of b: b must not change
// afterwards.
func ReadImage(b []byte) (*Image, error) {
	const head = len(imageMagic) + 4
	if len(b) < head+4 {
		return nil, fmt.Errorf("%w: %d bytes, too short", ErrImage, len(b))
	}
	if string(b[:len(imageMagic)]) != imageMagic {
		return nil, fmt.Errorf("%w: not an index image (magic %q)", ErrImage, b[:len(imageMagic)])
	}
	if v := binary.LittleEndian.Uint32(b[len(imageMagic):]); v != imageVersion {
		return nil, fmt.Errorf("%w: version %d, this program reads %d", ErrImage, v, imageVersion)
	}
	body := b[:len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return nil, fmt.Errorf("%w: CRC-32C %08x, file says %08x (damaged)", ErrImage, got, want)
	}
	d := &decoder{b: body, off: head}
	img := &Image{}
	img.dim = d.int32n("dimension", maxImageDim)
	img.leafSize = d.int32n("leaf size", math.MaxInt32)
	img.fanout = d.int32n("fanout", math.MaxInt32)
	img.m = d.int32n("M", math.MaxInt32)
	img.count = d.int64n("cluster count", math.MaxInt32)
	img.sum = d.u32()
	img.builtAt = d.int64n("build size", math.MaxInt32)
	if d.err == nil && img.dim < 1 {
		d.fail("dimension %d", img.dim)
	}
	ndim, tdim := nibbleDim(img.dim), twoDim(img.dim)
	rowBytes := 8 + 6*4 + ndim + tdim
	listBytes := 4*img.dim + 4 + 4
	nl := d.count("lists", listBytes)
	img.pivots = make([]float32, 0, nl*img.dim)
	rows := 0
	for g := 0; g < nl && d.err == nil; g++ {
		img.pivots = append(img.pivots, d.f32s(img.dim)...)
		img.minCos = append(img.minCos, d.f32())
		n := d.count("rows", rowBytes)
		bs := make([]rowBound, n)
		ids := make([]int64, n)
		info := make([]rowInfo, n)
		for i := 0; i < n && d.err == nil; i++ {
			ids[i] = int64(d.u64())
			bs[i] = rowBound{lo: d.f32(), sin: d.f32()}
			info[i] = rowInfo{scale2: d.f32(), cerr2: d.f32(), scale: d.f32(), cerr: d.f32()}
		}
		img.bounds = append(img.bounds, bs)
		img.ids = append(img.ids, ids)
		img.info = append(img.info, info)
		img.codes = append(img.codes, d.take(n*ndim))
		img.codes2 = append(img.codes2, d.take(n*tdim))
		rows += n
	}
	gl := d.int64n("graph length", int64(len(d.b)))
	img.graph = d.take(gl)
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d bytes after the graph", len(d.b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	if rows != img.count {
		return nil, fmt.Errorf("%w: lists hold %d rows for %d clusters", ErrImage, rows, img.count)
	}
	if len(img.graph) > 0 {
		keys, err := checkGraph(img.graph, img.dim)
		if err != nil {
			return nil, err
		}
		img.graphKeys = keys
	}
	return img, nil
}

// decoder reads little-endian fields from b, recording the first error.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrImage, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail("%d bytes wanted, %d left (truncated)", n, len(d.b)-d.off)
		return nil
	}
	out := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return out
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) f32() float32 { return math.Float32frombits(d.u32()) }

func (d *decoder) f32s(n int) []float32 {
	b := d.take(4 * n)
	if b == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// int32n reads a uint32 that must be at most limit.
func (d *decoder) int32n(what string, limit int64) int {
	v := int64(d.u32())
	if d.err == nil && v > limit {
		d.fail("%s %d exceeds %d", what, v, limit)
	}
	if d.err != nil {
		return 0 // nothing is sized from a bad count
	}
	return int(v)
}

// int64n reads a uint64 that must be at most limit.
func (d *decoder) int64n(what string, limit int64) int {
	v := d.u64()
	if d.err == nil && (v > uint64(limit)) {
		d.fail("%s %d exceeds %d", what, v, limit)
	}
	if d.err != nil {
		return 0
	}
	return int(v)
}

// count reads a uint32 count of items of at least each bytes that must fit
// in what is left.
func (d *decoder) count(what string, each int) int {
	return d.int32n(what, int64((len(d.b)-d.off)/max(1, each)))
}

// checkGraph walks a coder/hnsw v0.6.1 export (encode.go: varint version, M,
// float64 Ml, varint EfSearch, the distance's name, then per layer its
// nodes: int64 key, varint-length float32 vector, varint-length int64
// neighbours) and checks what its Import trusts: lengths within the bytes
// left (Import allocates whatever a length says), vectors of dimension dim
// and finite, keys unique in a layer, every neighbour in its layer, every
// non-empty layer's node also in the layer below (Search descends through
// them and dereferences a missing one), and no layer empty (Search starts
// at any node of the top layer). It returns the keys of layer 0.
func checkGraph(b []byte, dim int) ([]int64, error) {
	d := &decoder{b: b}
	varint := func(what string, lo, hi int64) int {
		if d.err != nil {
			return 0
		}
		v, n := binary.Varint(d.b[d.off:])
		if n <= 0 {
			d.fail("graph: %s: bad varint", what)
			return 0
		}
		d.off += n
		if v < lo || v > hi {
			d.fail("graph: %s %d not in [%d, %d]", what, v, lo, hi)
			return 0
		}
		return int(v)
	}
	if v := varint("encoding version", 0, math.MaxInt32); d.err == nil && v != 1 {
		d.fail("graph: encoding version %d, this program reads 1", v)
	}
	varint("M", 2, math.MaxInt32)
	if ml := math.Float64frombits(d.u64()); d.err == nil && !(ml > 0 && ml <= 1) {
		d.fail("graph: Ml %v not in (0, 1]", ml)
	}
	varint("EfSearch", 1, math.MaxInt32)
	name := d.take(varint("distance name length", 0, 64))
	if d.err == nil && string(name) != graphDistance {
		d.fail("graph: distance %q, want %q", name, graphDistance)
	}
	layers := varint("layers", 0, 64)
	var below map[int64]bool
	var keys0 []int64
	for l := 0; l < layers && d.err == nil; l++ {
		// A node takes at least 8 + 1 + 4·dim + 1 bytes.
		n := varint("nodes", 1, int64((len(d.b)-d.off)/(10+4*dim)))
		nodes := make(map[int64]bool, n)
		var nbrs []int64
		for j := 0; j < n && d.err == nil; j++ {
			key := int64(d.u64())
			if d.err == nil && nodes[key] {
				d.fail("graph: layer %d: key %d twice", l, key)
			}
			if d.err == nil && below != nil && !below[key] {
				d.fail("graph: layer %d: key %d not in the layer below", l, key)
			}
			nodes[key] = true
			if l == 0 {
				keys0 = append(keys0, key)
			}
			varint("vector length", int64(dim), int64(dim))
			vb := d.take(4 * dim)
			for i := 0; i+4 <= len(vb); i += 4 {
				// NaN or an infinity: all exponent bits set.
				if binary.LittleEndian.Uint32(vb[i:])&0x7f800000 == 0x7f800000 {
					d.fail("graph: layer %d: key %d: vector component %d not finite", l, key, i/4)
					break
				}
			}
			k := varint("neighbours", 0, int64((len(d.b)-d.off)/8))
			for range k {
				nbrs = append(nbrs, int64(d.u64()))
			}
		}
		for _, k := range nbrs {
			if d.err == nil && !nodes[k] {
				d.fail("graph: layer %d: neighbour %d is no node of the layer", l, k)
			}
		}
		below = nodes
	}
	if d.err == nil && d.off != len(d.b) {
		d.fail("graph: %d bytes after the last layer", len(d.b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	return keys0, nil
}

// RestoreImage returns an index holding clusters, as Restore does, with
// the lists and graph of img instead of rebuilt ones. It fails with ErrImage
// (and the caller should use Restore) when img was taken with other
// clusters, another dimension, leaf size, fanout or M, or when a check of
// the lists or the graph against the vectors fails; with ErrConfig or
// ErrDim as Restore does for bad clusters. With cfg.Candidates < 0 the
// image's graph is ignored; an image without a graph gets one built. The
// index takes over img's arrays (no copy): img must not be used again once
// RestoreImage has succeeded.
func RestoreImage(cfg Config, clusters []Cluster, img *Image) (*Index, error) {
	ix, slots, err := restoreStore(cfg, clusters)
	if err != nil {
		return nil, err
	}
	c := ix.cfg
	switch {
	case img.dim != c.Dim || img.leafSize != c.LeafSize || img.fanout != c.Fanout || img.m != c.M:
		return nil, fmt.Errorf("%w: taken with dimension %d, leaf size %d, fanout %d, M %d; this index has %d, %d, %d, %d",
			ErrImage, img.dim, img.leafSize, img.fanout, img.m, c.Dim, c.LeafSize, c.Fanout, c.M)
	case img.count != len(slots):
		return nil, fmt.Errorf("%w: taken with %d clusters, given %d", ErrImage, img.count, len(slots))
	case img.sum != ix.fingerprint():
		return nil, fmt.Errorf("%w: taken with other clusters (ids or vectors differ)", ErrImage)
	}
	l := &ix.lists
	nl := len(img.minCos)
	seen := make([]bool, len(slots))
	l.pivots = img.pivots
	l.minCos = img.minCos
	l.pcodes = make([]int8, nl*l.cdim)
	l.pscale = make([]float32, nl)
	l.perr = make([]float32, nl)
	l.bounds, l.info, l.codes, l.codes2 = img.bounds, img.info, img.codes, img.codes2
	for g := range nl {
		p := l.pivot(g)
		if n := norm64(p); math.IsNaN(n) || math.Abs(n-1) > 1e-3 {
			return nil, fmt.Errorf("%w: list %d: pivot norm %v", ErrImage, g, n)
		}
		// Pivot codes are recomputed rather than stored: a few
		// microseconds per list.
		l.setCode(g)
		for i, id := range img.ids[g] {
			s, ok := ix.slotOf[id]
			switch {
			case !ok:
				return nil, fmt.Errorf("%w: list %d holds cluster %d, which is not given", ErrImage, g, id)
			case seen[s]:
				return nil, fmt.Errorf("%w: cluster %d is in two lists", ErrImage, id)
			}
			seen[s] = true
			l.info[g][i].slot = s
			// The angular bound must be what addRow computes from the
			// vectors, and the list's minimum cosine at most the row's.
			cs := dot(ix.row(s), p)
			if want := l.boundOf(cs); img.bounds[g][i] != want || !(l.minCos[g] <= cs) {
				return nil, fmt.Errorf("%w: list %d, cluster %d: bound (%v, %v) min %v, vectors give (%v, %v) cos %v",
					ErrImage, g, id, img.bounds[g][i].lo, img.bounds[g][i].sin, l.minCos[g], want.lo, want.sin, cs)
			}
			if !finite(l.info[g][i].scale, l.info[g][i].cerr, l.info[g][i].scale2, l.info[g][i].cerr2) {
				return nil, fmt.Errorf("%w: list %d, cluster %d: code scale or error not finite", ErrImage, g, id)
			}
		}
	}
	for s, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%w: cluster %d is in no list", ErrImage, ix.ids[s])
		}
	}
	ix.builtAt = img.builtAt
	if ix.graph == nil {
		return ix, nil
	}
	if len(img.graph) == 0 {
		ix.graphLists(0)
		return ix, nil
	}
	g := hnsw.NewGraph[int64]()
	g.Rng = mrand.New(mrand.NewSource(int64(c.Rng.Uint64())))
	if err := g.Import(bufio.NewReader(bytes.NewReader(img.graph))); err != nil {
		return nil, fmt.Errorf("%w: graph: %w", ErrImage, err)
	}
	g.M, g.EfSearch = c.M, c.EfSearch
	for _, k := range img.graphKeys {
		ix.inGraph[k] = true
		s, ok := ix.slotOf[k]
		if !ok {
			continue // removed before the save: searches skip it
		}
		// Searches offer a candidate's similarity from the graph's copy of
		// its vector: it must be the stored one.
		v, _ := g.Lookup(k)
		row := ix.row(s)
		for i := range row {
			if math.Float32bits(v[i]) != math.Float32bits(row[i]) {
				return nil, fmt.Errorf("%w: graph: vector of cluster %d differs from the stored one", ErrImage, k)
			}
		}
	}
	ix.graph = g
	return ix, nil
}

func finite(xs ...float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || x < 0 {
			return false
		}
	}
	return true
}
