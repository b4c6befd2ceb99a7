// Package stats holds the uncertainty of results: a mean with its 95 %
// interval (Student's t over seeds or tasks, Wilson's score interval for a
// rate over tasks) and the paired comparison of two methods on the same
// tasks and seeds (the mean difference, a paired bootstrap interval with a
// fixed seed, and the exact two-sided sign test, which on 0/1 outcomes is
// McNemar's exact test).
//
// Every function is deterministic: the bootstrap draws from a PCG seeded by
// its caller, so one table always gives the same interval.
package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Level is the coverage of every interval this package computes.
const Level = 0.95

// How an interval was computed, as the report names it.
const (
	MethodT      = "student-t"
	MethodWilson = "wilson"
)

// Interval is a mean with its 95 % interval. Low and High are NaN when the
// interval is undefined (Student's t with fewer than two values), the
// mean too without any value; in JSON a NaN is null.
type Interval struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// N is the number of values (seeds or tasks) the interval is over.
	N int `json:"n"`
	// Over says what the values are: "seeds" or "tasks".
	Over string `json:"over,omitempty"`
	// Method is MethodT or MethodWilson.
	Method string `json:"method,omitempty"`
}

// Defined reports whether the interval has bounds (the zero Interval, of
// no value, has none).
func (iv Interval) Defined() bool { return iv.N > 0 && !math.IsNaN(iv.Low) && !math.IsNaN(iv.High) }

// HalfWidth is the larger distance from the mean to a bound (NaN when
// undefined): "0.62 ± 0.08".
func (iv Interval) HalfWidth() float64 { return math.Max(iv.Mean-iv.Low, iv.High-iv.Mean) }

type intervalJSON struct {
	Mean   *float64 `json:"mean"`
	Low    *float64 `json:"low"`
	High   *float64 `json:"high"`
	N      int      `json:"n"`
	Over   string   `json:"over,omitempty"`
	Method string   `json:"method,omitempty"`
}

// MarshalJSON writes an undefined bound as null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{Mean: num(iv.Mean), Low: num(iv.Low), High: num(iv.High), N: iv.N, Over: iv.Over, Method: iv.Method})
}

// UnmarshalJSON reads a null bound as NaN.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var j intervalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*iv = Interval{Mean: val(j.Mean), Low: val(j.Low), High: val(j.High), N: j.N, Over: j.Over, Method: j.Method}
	return nil
}

// Clip limits the bounds to [lo, hi], the range a mean of values in it
// cannot leave (Student's t on a few rates can reach past 0 or 1); the
// interval says so in its Method ("student-t, clipped to [0, 1]").
func (iv Interval) Clip(lo, hi float64) Interval {
	if !iv.Defined() || (iv.Low >= lo && iv.High <= hi) {
		return iv
	}
	iv.Low, iv.High = math.Max(lo, iv.Low), math.Min(hi, iv.High)
	iv.Method += fmt.Sprintf(", clipped to [%g, %g]", lo, hi)
	return iv
}

// TQuantile is the 0.975 quantile of Student's t with df degrees of
// freedom (NaN for df < 1).
func TQuantile(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-Level)/2)
}

// MeanT is the mean of xs with Student's t interval: mean ± t(n-1) s/√n,
// s the sample standard deviation. With fewer than two values the bounds
// are NaN; with no value the mean is NaN too.
func MeanT(xs []float64) Interval {
	n := len(xs)
	iv := Interval{Mean: math.NaN(), Low: math.NaN(), High: math.NaN(), N: n, Method: MethodT}
	if n == 0 {
		return iv
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	iv.Mean = mean
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	half := TQuantile(n-1) * math.Sqrt(ss/float64(n-1)/float64(n))
	iv.Low, iv.High = mean-half, mean+half
	return iv
}

// Wilson is the success rate k/n with Wilson's score interval, which stays
// inside [0, 1] and is defined for every n >= 1 (at k = 0 or k = n too).
// With n = 0 every field is NaN.
func Wilson(k, n int) Interval {
	iv := Interval{Mean: math.NaN(), Low: math.NaN(), High: math.NaN(), N: n, Method: MethodWilson}
	if n <= 0 {
		return iv
	}
	z := distuv.UnitNormal.Quantile(1 - (1-Level)/2)
	p := float64(k) / float64(n)
	nf := float64(n)
	den := 1 + z*z/nf
	centre := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	iv.Mean = p
	iv.Low, iv.High = math.Max(0, centre-half), math.Min(1, centre+half)
	return iv
}

// Resamples is the number of bootstrap resamples of Compare.
const Resamples = 10000

// BootstrapSeed seeds the bootstrap of every comparison, so that a table
// always gives the same interval.
const BootstrapSeed = 20240528

// Bootstrap is the percentile interval of the mean of xs over resamples
// resamples of len(xs) values drawn with replacement from a PCG seeded with
// seed: the values at ranks ceil(0.025 B) and ceil(0.975 B) of the sorted
// resample means (nearest rank). NaN for an empty xs.
func Bootstrap(xs []float64, resamples int, seed uint64) (low, high float64) {
	n := len(xs)
	if n == 0 || resamples <= 0 {
		return math.NaN(), math.NaN()
	}
	r := rand.New(rand.NewPCG(seed, 0xb007))
	means := make([]float64, resamples)
	for b := range means {
		var s float64
		for range n {
			s += xs[r.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	rank := func(q float64) int { return max(0, int(math.Ceil(q*float64(resamples)))-1) }
	return means[rank((1-Level)/2)], means[rank(1-(1-Level)/2)]
}

// SignTest is the exact two-sided sign test of differences ds against a
// median of 0: the zero differences are dropped, and with m = min(plus,
// minus) of the n others, p = min(1, 2 P(X <= m)) for X ~ Binomial(n, 1/2).
// On 0/1 outcomes the nonzero differences are the discordant pairs, and
// this is McNemar's exact test. p is 1 when every difference is 0.
func SignTest(ds []float64) (p float64, plus, minus int) {
	for _, d := range ds {
		switch {
		case d > 0:
			plus++
		case d < 0:
			minus++
		}
	}
	n := plus + minus
	if n == 0 {
		return 1, 0, 0
	}
	m := min(plus, minus)
	var tail float64
	for k := 0; k <= m; k++ {
		tail += math.Exp(logChoose(n, k) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail), plus, minus
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// PairedMethod names the comparison in reports.
const PairedMethod = "paired differences on the same (seed, task) pairs: mean difference, 95 % percentile bootstrap interval (10,000 resamples of the pairs, fixed seed), exact two-sided sign test (McNemar's exact test on success)"

// Paired is the comparison of a method with another on the same pairs.
type Paired struct {
	// Pairs is the number of (seed, task) pairs both completed.
	Pairs int `json:"pairs"`
	// Difference is the mean of a - b over the pairs; Low and High its
	// bootstrap interval.
	Difference float64 `json:"difference"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	// P is the sign test's two-sided p-value; Better and Worse count the
	// pairs where a was above and below b.
	P      float64 `json:"p_value"`
	Better int     `json:"better"`
	Worse  int     `json:"worse"`
}

// Compare compares a with b pair by pair (a[i] and b[i] are one pair).
// It panics when the lengths differ. With no pair, every number is NaN.
func Compare(a, b []float64) Paired {
	if len(a) != len(b) {
		panic("stats.Compare: unpaired values")
	}
	if len(a) == 0 {
		return Paired{Difference: math.NaN(), Low: math.NaN(), High: math.NaN(), P: math.NaN()}
	}
	ds := make([]float64, len(a))
	var sum float64
	for i := range a {
		ds[i] = a[i] - b[i]
		sum += ds[i]
	}
	out := Paired{Pairs: len(ds), Difference: sum / float64(len(ds))}
	out.Low, out.High = Bootstrap(ds, Resamples, BootstrapSeed)
	out.P, out.Better, out.Worse = SignTest(ds)
	return out
}

type pairedJSON struct {
	Pairs      int      `json:"pairs"`
	Difference *float64 `json:"difference"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	P          *float64 `json:"p_value"`
	Better     int      `json:"better"`
	Worse      int      `json:"worse"`
}

func num(f float64) *float64 {
	if math.IsNaN(f) {
		return nil
	}
	return &f
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes NaN numbers (no pair) as null.
func (p Paired) MarshalJSON() ([]byte, error) {
	return json.Marshal(pairedJSON{Pairs: p.Pairs, Difference: num(p.Difference), Low: num(p.Low), High: num(p.High), P: num(p.P), Better: p.Better, Worse: p.Worse})
}

// UnmarshalJSON reads null numbers as NaN.
func (p *Paired) UnmarshalJSON(b []byte) error {
	var j pairedJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Paired{Pairs: j.Pairs, Difference: val(j.Difference), Low: val(j.Low), High: val(j.High), P: val(j.P), Better: j.Better, Worse: j.Worse}
	return nil
}
