package stats

import (
	"encoding/json"
	"math"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", what, got, want, tol)
	}
}

// The reference values below were computed by hand from the formulas (and
// agree with published tables: t(2, 0.975) = 4.3027, Wilson 8/10 =
// [0.4902, 0.9433], 0/10 = [0, 0.2775]).
func TestMeanTByHand(t *testing.T) {
	// mean 0.7, s = 0.2, se = 0.2/√3 = 0.115470, half = 4.302653 × 0.115470 = 0.496828
	iv := MeanT([]float64{0.5, 0.7, 0.9})
	near(t, "mean", iv.Mean, 0.7, 1e-12)
	near(t, "low", iv.Low, 0.7-0.496828, 1e-5)
	near(t, "high", iv.High, 0.7+0.496828, 1e-5)
	if iv.N != 3 || iv.Method != MethodT {
		t.Errorf("n %d method %q", iv.N, iv.Method)
	}
	near(t, "t(9)", TQuantile(9), 2.262157, 1e-5)
	one := MeanT([]float64{0.4})
	if one.Mean != 0.4 || one.Defined() {
		t.Errorf("one value: %+v, want mean 0.4 and no bounds", one)
	}
	if !math.IsNaN(MeanT(nil).Mean) {
		t.Error("no value: mean is not NaN")
	}
}

func TestWilsonByHand(t *testing.T) {
	iv := Wilson(8, 10)
	near(t, "rate", iv.Mean, 0.8, 1e-12)
	near(t, "low", iv.Low, 0.490164, 1e-5)
	near(t, "high", iv.High, 0.943318, 1e-5)
	zero := Wilson(0, 10)
	near(t, "0/10 low", zero.Low, 0, 1e-12)
	near(t, "0/10 high", zero.High, 0.277533, 1e-5)
	all := Wilson(10, 10)
	near(t, "10/10 low", all.Low, 1-0.277533, 1e-5)
	near(t, "10/10 high", all.High, 1, 1e-12)
	if Wilson(0, 0).Defined() {
		t.Error("0/0 has bounds")
	}
}

func TestSignTestByHand(t *testing.T) {
	for _, c := range []struct {
		ds          []float64
		p           float64
		plus, minus int
	}{
		{[]float64{1, 1, 1}, 0.25, 3, 0},                               // 2 × (1/2)^3
		{[]float64{1, 1, 1, 1, 1, 1, 1, -1, -1}, 2 * 46.0 / 512, 7, 2}, // 2 × (1+9+36)/512
		{[]float64{0, 0, 0}, 1, 0, 0},
		{[]float64{1, -1, 0.5, -0.5}, 1, 2, 2}, // 2 × 11/16 capped at 1
	} {
		p, plus, minus := SignTest(c.ds)
		near(t, "p", p, c.p, 1e-12)
		if plus != c.plus || minus != c.minus {
			t.Errorf("%v: %d+ %d-, want %d+ %d-", c.ds, plus, minus, c.plus, c.minus)
		}
	}
}

// The bootstrap of {1, 0, 0}: a resample's mean is k/3 with k ~ Bin(3, 1/3):
// P(0) = 8/27, P(1/3) = 12/27, P(2/3) = 6/27, P(1) = 1/27. The 2.5 %
// quantile is 0 (8/27 > 0.025) and the 97.5 % one is 1 (P(<= 2/3) = 26/27 =
// 0.963 < 0.975).
func TestBootstrapByHand(t *testing.T) {
	lo, hi := Bootstrap([]float64{1, 0, 0}, Resamples, BootstrapSeed)
	if lo != 0 || hi != 1 {
		t.Errorf("bootstrap of {1, 0, 0} = [%v, %v], want [0, 1]", lo, hi)
	}
	// {1, 1, 0, 0, 0, 0, 0, 0, 0, 0}: k ~ Bin(10, 0.2); P(k = 0) = 0.107 >
	// 0.025, so the low end is 0; P(k <= 4) = 0.967, P(k <= 5) = 0.994: the
	// high end is 0.5.
	ds := []float64{1, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	lo, hi = Bootstrap(ds, Resamples, BootstrapSeed)
	if lo != 0 || hi != 0.5 {
		t.Errorf("bootstrap of 2 in 10 = [%v, %v], want [0, 0.5]", lo, hi)
	}
	lo, hi = Bootstrap([]float64{0.5, 0.5}, Resamples, 7)
	if lo != 0.5 || hi != 0.5 {
		t.Errorf("constant values: [%v, %v]", lo, hi)
	}
	// The same seed gives the same interval.
	a1, b1 := Bootstrap([]float64{0.1, 0.9, 0.4, 0.3}, Resamples, 1)
	a2, b2 := Bootstrap([]float64{0.1, 0.9, 0.4, 0.3}, Resamples, 1)
	if a1 != a2 || b1 != b2 {
		t.Error("the bootstrap is not deterministic")
	}
}

// A small table by hand: method A and B on five tasks (1 = won).
// Differences 1, 1, 0, 0, 0: mean 0.4; two discordant pairs both for A:
// p = 2 × (1/2)^2 = 0.5; bootstrap: k ~ Bin(5, 0.4): P(0) = 0.078 > 0.025 so
// the low end is 0; P(k <= 3) = 0.913, P(k <= 4) = 0.990: the high end 0.8.
func TestCompareSmallTable(t *testing.T) {
	a := []float64{1, 1, 1, 0, 1}
	b := []float64{0, 0, 1, 0, 1}
	c := Compare(a, b)
	if c.Pairs != 5 || c.Better != 2 || c.Worse != 0 {
		t.Errorf("pairs %d better %d worse %d", c.Pairs, c.Better, c.Worse)
	}
	near(t, "difference", c.Difference, 0.4, 1e-12)
	near(t, "p", c.P, 0.5, 1e-12)
	if c.Low != 0 || c.High != 0.8 {
		t.Errorf("interval [%v, %v], want [0, 0.8]", c.Low, c.High)
	}
	none := Compare(nil, nil)
	b2, err := json.Marshal(none)
	if err != nil || string(b2) != `{"pairs":0,"difference":null,"low":null,"high":null,"p_value":null,"better":0,"worse":0}` {
		t.Errorf("no pair: %s %v", b2, err)
	}
}

func TestIntervalJSON(t *testing.T) {
	iv := MeanT([]float64{1})
	b, err := json.Marshal(iv)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"mean":1,"low":null,"high":null,"n":1,"method":"student-t"}` {
		t.Errorf("undefined interval: %s", b)
	}
	var back Interval
	if err := json.Unmarshal(b, &back); err != nil || back.Defined() || back.Mean != 1 {
		t.Errorf("read back %+v %v", back, err)
	}
	w := Wilson(3, 4)
	b, _ = json.Marshal(w)
	var w2 Interval
	if err := json.Unmarshal(b, &w2); err != nil || w2 != w {
		t.Errorf("round trip %+v, want %+v", w2, w)
	}
}

func TestClip(t *testing.T) {
	// Per-seed rates 0.375, 1, 1: mean 0.7917, s = 0.3608, t(2) = 4.3027:
	// [-0.1047, 1.6881], past both ends.
	raw := MeanT([]float64{0.375, 1, 1})
	near(t, "low", raw.Low, 0.791667-4.302653*0.360844/math.Sqrt(3), 1e-4)
	iv := raw.Clip(0, 1)
	if iv.Low != 0 || iv.High != 1 || iv.Method != "student-t, clipped to [0, 1]" {
		t.Errorf("clipped %+v", iv)
	}
	in := MeanT([]float64{0.4, 0.5, 0.6})
	if in.Clip(0, 1) != in {
		t.Error("an interval inside [0, 1] changed")
	}
}
