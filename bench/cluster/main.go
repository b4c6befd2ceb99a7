// Command cluster measures the online clustering of package cluster against
// the exact scan in the same run (the clustering targets) and prints one table:
// figure, target, same-run baseline, ratio.
//
//	go run ./bench/cluster            # 100,000 and 10,000 stored vectors
//	go run ./bench/cluster -n 20000   # a quicker look
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/samem/trainer/cluster"
	"github.com/samem/trainer/cluster/synth"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cluster bench:", err)
		os.Exit(1)
	}
}

type options struct {
	n, small, queries, inserts int
	leaf, ef, cand             int
	seed                       uint64
	noGraph                    bool
	cpuprofile                 string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.n, "n", 100000, "stored cluster vectors of the large case")
	fs.IntVar(&o.small, "small", 10000, "stored cluster vectors of the small case")
	fs.IntVar(&o.queries, "queries", 1000, "decisions timed per case")
	fs.IntVar(&o.inserts, "inserts", 200, "new vectors inserted in the large case")
	fs.IntVar(&o.leaf, "leaf", 0, "cluster.Config.LeafSize (0: the default)")
	fs.IntVar(&o.ef, "ef", 0, "cluster.Config.EfSearch (0: the default)")
	fs.IntVar(&o.cand, "cand", 0, "cluster.Config.Candidates (0: the default)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic embedding stream")
	fs.BoolVar(&o.noGraph, "no-graph", false, "disable the HNSW candidate stage (tree only)")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed decisions to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return fmt.Errorf("cpuprofile: %w", err)
		}
		defer f.Close()
	}
	// One core, as the target says.
	runtime.GOMAXPROCS(1)
	fmt.Fprintf(stderr, "seed %d, dim 1024, threshold 0.85, graph %v\n", o.seed, !o.noGraph)
	var rows [][4]string
	big, err := measure(ctx, o, o.n, true, stderr)
	if err != nil {
		return err
	}
	small, err := measure(ctx, o, o.small, false, stderr)
	if err != nil {
		return err
	}
	rows = append(rows,
		[4]string{fmt.Sprintf("decisions equal to exact scan at %d (%%)", o.n), fmtF(big.agree), ">= 99.9", "100 (exact scan)"},
		[4]string{fmt.Sprintf("median decision at %d (ms)", o.n), fmtF(big.median), "<= 2, >= 9x faster", fmtF(big.exactMedian) + fmt.Sprintf(" (%.1fx)", big.exactMedian/big.median)},
		[4]string{fmt.Sprintf("p90 decision at %d (ms)", o.n), fmtF(big.p90), "-", fmtF(big.exactP90)},
		[4]string{fmt.Sprintf("median decision at %d (ms)", o.small), fmtF(small.median), "<= 0.5", fmtF(small.exactMedian) + fmt.Sprintf(" (%.1fx)", small.exactMedian/small.median)},
		[4]string{fmt.Sprintf("decisions equal to exact scan at %d (%%)", o.small), fmtF(small.agree), ">= 99.9", "100 (exact scan)"},
		[4]string{fmt.Sprintf("insertion at %d (ms per vector, decision excluded)", o.n), fmtF(big.insert), "<= 2", fmtF(big.exactInsert) + " (append to exact scan)"},
		[4]string{fmt.Sprintf("Assign of a new vector at %d (ms, decision included)", o.n), fmtF(big.assignNew), "-", fmtF(big.exactMedian)},
		[4]string{fmt.Sprintf("resident memory of the index at %d (MiB)", o.n), fmtF(big.mib), "<= 600", fmtF(big.rawMiB) + " (the raw float32 vectors)"},
		[4]string{fmt.Sprintf("bulk build (Restore) of %d (s)", o.n), fmtF(big.build), "-", "-"},
	)
	tw := tabwriter.NewWriter(stdout, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tvalue\ttarget\tsame-run baseline")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r[:], "\t"))
	}
	return tw.Flush()
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

type result struct {
	agree, median, p90, exactMedian, exactP90 float64
	insert, exactInsert, assignNew            float64
	mib, rawMiB, build                        float64
}

func rss() float64 {
	runtime.GC()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

// measure stores n cluster representatives, then times decisions for a
// stream of queries (about a third new) against the exact scan.
func measure(ctx context.Context, o options, n int, full bool, log io.Writer) (result, error) {
	var res result
	st, err := synth.New(synth.Config{}, rand.New(rand.NewPCG(o.seed, uint64(n))))
	if err != nil {
		return res, err
	}
	cs := make([]cluster.Cluster, n)
	for i := range cs {
		cs[i] = cluster.Cluster{ID: int64(i), Members: 1, Vector: st.NextNew()}
	}
	before := rss()
	cfg := cluster.Config{Dim: 1024, LeafSize: o.leaf, EfSearch: o.ef, Candidates: o.cand, Rng: rand.New(rand.NewPCG(o.seed, 7))}
	if o.noGraph {
		cfg.Candidates = -1
	}
	t0 := time.Now()
	ix, err := cluster.Restore(cfg, cs)
	if err != nil {
		return res, err
	}
	res.build = time.Since(t0).Seconds()
	res.mib = rss() - before
	res.rawMiB = float64(n) * 1024 * 4 / (1 << 20)
	fmt.Fprintf(log, "n %d: built in %.1f s, index %.0f MiB\n", n, res.build, res.mib)
	ex, err := cluster.NewExact(1024)
	if err != nil {
		return res, err
	}
	for _, c := range cs {
		if err := ex.Add(c.ID, c.Vector); err != nil {
			return res, err
		}
	}
	cs = nil
	qs := make([][]float32, o.queries)
	for i := range qs {
		qs[i] = st.Next()
	}
	var times, exTimes []float64
	agree := 0
	if full && o.cpuprofile != "" {
		f, _ := os.OpenFile(o.cpuprofile, os.O_WRONLY|os.O_TRUNC, 0)
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, err
		}
		defer pprof.StopCPUProfile()
	}
	for _, q := range qs {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		t := time.Now()
		wantID, _, join, err := ex.Decide(q, 0.85)
		exTimes = append(exTimes, ms(time.Since(t)))
		if err != nil {
			return res, err
		}
		t = time.Now()
		id, _, ok, err := ix.Nearest(q)
		times = append(times, ms(time.Since(t)))
		if err != nil {
			return res, err
		}
		if ok == join && (!ok || id == wantID) {
			agree++
		}
	}
	res.agree = 100 * float64(agree) / float64(len(qs))
	res.median, res.p90 = quantile(times, 0.5), quantile(times, 0.9)
	res.exactMedian, res.exactP90 = quantile(exTimes, 0.5), quantile(exTimes, 0.9)
	if !full {
		return res, nil
	}
	// Insertion: fresh clusters, each decided (Nearest) then assigned; the
	// difference is the insertion proper.
	var ins, assign, exIns []float64
	for range o.inserts {
		v := st.NextNew()
		t := time.Now()
		_, _, ok, err := ix.Nearest(v)
		dec := ms(time.Since(t))
		if err != nil {
			return res, err
		}
		t = time.Now()
		id, created, _, err := ix.Assign(v, "")
		a := ms(time.Since(t))
		if err != nil {
			return res, err
		}
		if created == ok {
			//lint:ignore ST1005 the error names the two methods it compares
			return res, fmt.Errorf("Assign and Nearest disagree")
		}
		if created {
			assign = append(assign, a)
			ins = append(ins, max(0, a-dec))
			t = time.Now()
			if err := ex.Add(id, v); err != nil {
				return res, err
			}
			exIns = append(exIns, ms(time.Since(t)))
		}
	}
	if len(ins) > 0 {
		res.insert, res.assignNew, res.exactInsert = quantile(ins, 0.5), quantile(assign, 0.5), quantile(exIns, 0.5)
	}
	return res, nil
}
