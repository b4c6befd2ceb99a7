package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/samem/trainer/runner"
	"github.com/samem/trainer/stats"
)

// Plot sizes: wide enough for a legend of a dozen methods beside the data.
const (
	plotW = 20 * vg.Centimeter
	plotH = 12 * vg.Centimeter
)

// defaultDPI makes a plot about 870 pixels wide.
const defaultDPI = 110

var red = colour(3)

// palette has 20 colours that stay apart on white (Tableau 10, then darker
// shades): a full comparison has a dozen methods or more, and bars have
// nothing but their colour.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff}, {0x39, 0x3b, 0x79, 0xff}, {0x63, 0x79, 0x39, 0xff},
	{0x8c, 0x6d, 0x31, 0xff}, {0x84, 0x3c, 0x39, 0xff}, {0x7b, 0x41, 0x73, 0xff}, {0x00, 0x00, 0x00, 0xff},
	{0xe6, 0x55, 0x0d, 0xff}, {0x31, 0xa3, 0x54, 0xff}, {0x75, 0x6b, 0xb1, 0xff}, {0x9e, 0xca, 0xe1, 0xff},
}

// colour is method i's colour.
func colour(i int) color.RGBA { return palette[i%len(palette)] }

// style gives method i a colour, a dash pattern and a glyph, so that more
// methods than colours stay distinguishable.
func style(i int) (color.Color, []vg.Length, draw.GlyphDrawer) {
	return colour(i), plotutil.Dashes(i / len(palette)), plotutil.Shape(i)
}

// lineWidth narrows the lines of later methods: drawn on top of earlier
// ones, they leave both colours visible where two curves are equal.
func lineWidth(i int) vg.Length { return vg.Points(math.Max(1, 3.2-0.4*float64(i))) }

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	return p
}

// drawing is a figure to draw on a canvas of w x h.
type drawing struct {
	w, h vg.Length
	draw func(draw.Canvas)
}

// figure is a drawing rendered as PNG and as SVG (vector, for a paper).
type figure struct{ png, svg []byte }

// render draws d once onto a PNG canvas at dpi and an SVG canvas.
func (d drawing) render(dpi int) (figure, error) {
	img := vgimg.NewWith(vgimg.UseWH(d.w, d.h), vgimg.UseDPI(dpi))
	sv := vgsvg.New(d.w, d.h)
	d.draw(draw.NewCanvas(vg.MultiCanvas(img, sv), d.w, d.h))
	var png, svg bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&png); err != nil {
		return figure{}, err
	}
	if _, err := sv.WriteTo(&svg); err != nil {
		return figure{}, err
	}
	return figure{png.Bytes(), svg.Bytes()}, nil
}

// render lays p out on w x h. A plot with more than one legend entry
// gets its legend to the right of the data area, where it hides no data.
func render(p *plot.Plot, w, h vg.Length) drawing {
	leg := p.Legend
	outside := leg.Top && !leg.Left // the plots' request for an outside legend
	if outside {
		p.Legend = plot.NewLegend()
		leg.Left, leg.Top = true, true
	}
	return drawing{w: w, h: h, draw: func(c draw.Canvas) {
		// A margin all round: the title is drawn up to the canvas edge.
		dc := draw.Crop(c, 2*vg.Millimeter, -2*vg.Millimeter, 2*vg.Millimeter, -3*vg.Millimeter)
		if !outside {
			p.Draw(dc)
			return
		}
		lw := leg.Rectangle(dc).Size().X + 3*vg.Millimeter
		p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		// Below the title, level with the top of the data area.
		top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		leg.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-lw+2*vg.Millimeter, 0, 0, -top))
	}}
}

// legendOutside asks render to draw the legend right of the data area.
func legendOutside(p *plot.Plot) {
	p.Legend.Top = true
	p.Legend.Left = false
}

// band is a filled polygon between lo and hi over xs, in method i's colour
// made light (a 95 % interval).
func band(xs, lo, hi []float64, i int) (*plotter.Polygon, error) {
	pts := make(plotter.XYs, 0, 2*len(xs))
	for k := range xs {
		pts = append(pts, plotter.XY{X: xs[k], Y: hi[k]})
	}
	for k := len(xs) - 1; k >= 0; k-- {
		pts = append(pts, plotter.XY{X: xs[k], Y: lo[k]})
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil, err
	}
	c, _, _ := style(i)
	r, g, b, _ := c.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x30}
	poly.LineStyle.Width = 0
	return poly, nil
}

// barErrors draws 95 % intervals on bars: a vertical line with caps at
// data x plus a canvas offset (the bar's own offset in its group).
type barErrors struct {
	xs, lo, hi []float64
	offset     vg.Length
	color      color.Color
}

func (e barErrors) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ls := draw.LineStyle{Color: e.color, Width: vg.Points(1)}
	cap := vg.Points(3)
	for i, x := range e.xs {
		if math.IsNaN(e.lo[i]) || math.IsNaN(e.hi[i]) {
			continue
		}
		cx := trX(x) + e.offset
		lo, hi := trY(e.lo[i]), trY(e.hi[i])
		c.StrokeLine2(ls, cx, lo, cx, hi)
		c.StrokeLine2(ls, cx-cap, lo, cx+cap, lo)
		c.StrokeLine2(ls, cx-cap, hi, cx+cap, hi)
	}
}

// barMarks draws method i's glyph at the top of each of its bars, so that
// bars of methods whose colours are close stay apart.
type barMarks struct {
	xs, ys []float64
	offset vg.Length
	glyph  draw.GlyphStyle
}

func (m barMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, x := range m.xs {
		c.DrawGlyph(m.glyph, vg.Point{X: trX(x) + m.offset, Y: trY(m.ys[i])})
	}
}

// integerTicks labels whole numbers only (iterations, steps), at most about
// ten of them.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Ceil(lo), math.Floor(hi)
	step := math.Max(1, math.Ceil((hi-lo+1)/10))
	var ts []plot.Tick
	for v := lo; v <= hi; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
	}
	return ts
}

// countTicks are the default ticks labelled without needless decimals.
type countTicks struct{}

func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', -1, 64)
		}
	}
	return ts
}

// rateAxis fixes a [0, 1] rate axis with a little room above 1, so that a
// line at 1 is not drawn on the frame.
func rateAxis(a *plot.Axis) {
	a.Min, a.Max = 0, 1.05
	a.Tick.Marker = plot.ConstantTicks{
		{Value: 0, Label: "0"}, {Value: 0.2, Label: "0.2"}, {Value: 0.4, Label: "0.4"},
		{Value: 0.6, Label: "0.6"}, {Value: 0.8, Label: "0.8"}, {Value: 1, Label: "1"},
	}
}

// seriesCI is a method's training series over iterations: with several
// seeds the mean of the seeds' values at each iteration every seed reached
// and its Student's t interval; with one seed the values and, for rates,
// Wilson's interval over the iteration's episodes (ok false: no interval).
func seriesCI(m Method, value func(runner.IterationStats) float64, rate bool) (xs, mean, lo, hi []float64, ok bool) {
	hs := m.Histories
	if len(hs) == 0 && len(m.History) > 0 {
		hs = [][]runner.IterationStats{m.History}
	}
	if len(hs) == 0 {
		return nil, nil, nil, nil, false
	}
	n := len(hs[0])
	for _, h := range hs {
		n = min(n, len(h))
	}
	for k := 0; k < n; k++ {
		xs = append(xs, float64(hs[0][k].Iteration+1))
		if len(hs) >= 2 {
			vals := make([]float64, len(hs))
			for i, h := range hs {
				vals[i] = value(h[k])
			}
			iv := stats.MeanT(vals)
			mean, lo, hi = append(mean, iv.Mean), append(lo, iv.Low), append(hi, iv.High)
			continue
		}
		it := hs[0][k]
		mean = append(mean, value(it))
		if rate {
			iv := stats.Wilson(it.Successes, it.Episodes-it.Errors)
			lo, hi = append(lo, iv.Low), append(hi, iv.High)
		}
	}
	return xs, mean, lo, hi, len(hs) >= 2 || rate
}

// trainingPlot is seed 002 Fig. 3: training success rate per iteration
// per method, with its 95 % interval.
func trainingPlot(d Data) (drawing, error) {
	p := newPlot("Training success per iteration", "training iteration (count)", "success rate on the training tasks (share)")
	rateAxis(&p.Y)
	n, maxIt := 0, 0
	for _, m := range d.Methods {
		xs, mean, lo, hi, ok := seriesCI(m, func(it runner.IterationStats) float64 { return it.SuccessRate }, true)
		if len(xs) == 0 {
			continue
		}
		if ok && len(d.Methods) <= maxBands*2 {
			poly, err := band(xs, clip01(lo), clip01(hi), n)
			if err != nil {
				return drawing{}, err
			}
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(xs))
		for i := range xs {
			pts[i] = plotter.XY{X: xs[i], Y: mean[i]}
			maxIt = max(maxIt, int(xs[i]))
		}
		if err := addLine(p, m.Name, pts, n); err != nil {
			return drawing{}, err
		}
		n++
	}
	if n == 0 {
		return drawing{}, errSkip
	}
	p.X.Min, p.X.Max = 0.8, float64(max(maxIt, 2))+0.2
	p.X.Tick.Marker = integerTicks{}
	legendOutside(p)
	return render(p, plotW, plotH), nil
}

func clip01(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Max(0, math.Min(1, x))
	}
	return out
}

func addLine(p *plot.Plot, name string, pts plotter.XYs, i int) error {
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	c, dash, glyph := style(i)
	l.Color, l.Dashes, l.Width = c, dash, lineWidth(i)
	s.Color, s.Shape, s.Radius = c, glyph, vg.Points(3)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// fig6 are the methods of Fig. 6: SAMem with forgetting and without.
var fig6 = map[string]bool{"samem": true, "samem-no-forgetting": true}

// memoryPlot is seed 002 Fig. 6: SAMem's memory size (Q-table entries,
// solid, and state clusters, dashed) per iteration, with forgetting and
// without; with several seeds the means with their 95 % interval.
func memoryPlot(d Data) (drawing, error) {
	p := newPlot("SAMem memory size over training", "training iteration (count)", "memory size (entries, states)")
	n, maxIt, maxY := 0, 0, 0.0
	for _, m := range d.Methods {
		if !historyHas(m.History, "entries") || !fig6[m.Name] {
			continue
		}
		c, _, glyph := style(n)
		for _, k := range []struct {
			key  string
			dash []vg.Length
		}{{"entries", nil}, {"states", []vg.Length{vg.Points(5), vg.Points(3)}}} {
			xs, mean, lo, hi, ok := seriesCI(m, func(it runner.IterationStats) float64 { return float64(it.Size[k.key]) }, false)
			if ok {
				poly, err := band(xs, lo, hi, n)
				if err != nil {
					return drawing{}, err
				}
				p.Add(poly)
				for _, v := range hi {
					maxY = math.Max(maxY, v)
				}
			}
			pts := make(plotter.XYs, len(xs))
			for i := range xs {
				pts[i] = plotter.XY{X: xs[i], Y: mean[i]}
				maxIt = max(maxIt, int(xs[i]))
				maxY = math.Max(maxY, mean[i])
			}
			l, s, err := plotter.NewLinePoints(pts)
			if err != nil {
				return drawing{}, err
			}
			l.Color, l.Dashes, l.Width = c, k.dash, lineWidth(n)
			s.Color, s.Shape, s.Radius = c, glyph, vg.Points(3)
			p.Add(l, s)
			p.Legend.Add(fmt.Sprintf("%s: %s", m.Name, k.key), l, s)
		}
		n++
	}
	if n == 0 {
		return drawing{}, errSkip
	}
	p.X.Min, p.X.Max = 0.8, float64(max(maxIt, 2))+0.2
	p.X.Tick.Marker = integerTicks{}
	p.Y.Min, p.Y.Max = 0, math.Max(1, maxY*1.1)
	p.Y.Tick.Marker = countTicks{}
	legendOutside(p)
	return render(p, plotW, plotH), nil
}

// sweepPlot is seed 002 Fig. 7 (param "threshold": states) or Fig. 9
// ("thought-threshold": thoughts): success rate as bars with Wilson's 95 %
// interval over the evaluated tasks above, the memory size as a red line
// below, against the threshold.
func sweepPlot(d Data, param string) (drawing, error) {
	var pts []SweepPoint
	for _, s := range sortedSweep(d.Sweep) {
		if s.Param == param {
			pts = append(pts, s)
		}
	}
	if len(pts) == 0 {
		return drawing{}, errSkip
	}
	what, kind := "states", "state"
	if param == "thought-threshold" {
		what, kind = "thoughts", "thought"
	}
	labels := make([]string, len(pts))
	rates := make(plotter.Values, len(pts))
	counts := make(plotter.XYs, len(pts))
	xs, lo, hi := make([]float64, len(pts)), make([]float64, len(pts)), make([]float64, len(pts))
	maxC := 0
	for i, s := range pts {
		labels[i] = strconv.FormatFloat(s.Value, 'f', 2, 64)
		rates[i] = s.SuccessRate
		iv := stats.Wilson(int(math.Round(s.SuccessRate*float64(s.Tasks))), s.Tasks)
		xs[i], lo[i], hi[i] = float64(i), iv.Low, iv.High
		c := s.States
		if what == "thoughts" {
			c = s.Thoughts
		}
		counts[i] = plotter.XY{X: float64(i), Y: float64(c)}
		maxC = max(maxC, c)
	}
	top := newPlot(fmt.Sprintf("Similarity threshold sweep: %s clustering", kind), "", "success rate, evaluation (share)")
	rateAxis(&top.Y)
	bars, err := plotter.NewBarChart(rates, vg.Points(28))
	if err != nil {
		return drawing{}, err
	}
	bars.Color = colour(2)
	bars.LineStyle.Width = 0
	top.Add(bars, barErrors{xs: xs, lo: lo, hi: hi, color: color.Black})
	top.Legend.Add("success rate (95 % interval)", bars)
	top.Legend.Top = true
	top.NominalX(labels...)
	top.X.Label.Text = param + " (cosine similarity)"

	bottom := newPlot("", param+" (cosine similarity)", "number of "+what+" after training (count)")
	line, marks, err := plotter.NewLinePoints(counts)
	if err != nil {
		return drawing{}, err
	}
	line.Color, line.Width = red, vg.Points(2)
	marks.Color, marks.Shape, marks.Radius = red, draw.CircleGlyph{}, vg.Points(3)
	bottom.Add(line, marks)
	bottom.Legend.Add(what, line, marks)
	bottom.Legend.Top = true
	bottom.NominalX(labels...)
	bottom.Y.Min, bottom.Y.Max = 0, math.Max(1, float64(maxC)*1.15)
	bottom.Y.Tick.Marker = countTicks{}
	// Both panels share the nominal x positions.
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = -0.6, float64(len(pts))-0.4
	}
	return drawing{w: plotW, h: plotH * 1.5, draw: func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4, PadY: vg.Millimeter * 6}
		canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
		top.Draw(canvases[0][0])
		bottom.Draw(canvases[1][0])
	}}, nil
}

// tokensPlot is seed 002 Fig. 8: model tokens of the evaluation per
// method, with the method's success rate in its label. With several seeds
// a bar is the mean of the seeds' tokens with its 95 % interval; with one
// a bar is a count, which has no interval.
func tokensPlot(d Data) (drawing, error) {
	if len(d.Methods) == 0 {
		return drawing{}, errSkip
	}
	vals := make(plotter.Values, len(d.Methods))
	labels := make([]string, len(d.Methods))
	xs, lo, hi := make([]float64, len(d.Methods)), make([]float64, len(d.Methods)), make([]float64, len(d.Methods))
	maxV, intervals := 0.0, false
	ordered, _ := paperOrdered(d.Methods) // seed 002 Fig. 8's order
	for i, m := range ordered {
		xs[i] = float64(i)
		vals[i] = float64(m.Tokens) / 1000
		lo[i], hi[i] = math.NaN(), math.NaN()
		if len(m.TokensBySeed) >= 2 {
			iv := stats.MeanT(m.TokensBySeed)
			vals[i], lo[i], hi[i] = iv.Mean/1000, iv.Low/1000, iv.High/1000
			maxV = math.Max(maxV, hi[i])
			intervals = true
		}
		maxV = math.Max(maxV, vals[i])
		labels[i] = fmt.Sprintf("%s\nSR %.2f", m.Name, m.Overall.SuccessRate)
	}
	title := "Tokens consumed per method (seed 002 Fig. 8)"
	if intervals {
		title = "Tokens consumed per method, mean over seeds (seed 002 Fig. 8)"
	}
	if maxV == 0 {
		title += ": none spent (offline backend)"
	}
	p := newPlot(title, "method (evaluation success rate)", "tokens consumed (thousands)")
	bars, err := plotter.NewBarChart(vals, barWidth(len(vals)))
	if err != nil {
		return drawing{}, err
	}
	bars.Color = colour(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	if intervals {
		p.Add(barErrors{xs: xs, lo: lo, hi: hi, color: color.Black})
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.6, float64(len(vals))-0.4
	p.Y.Min, p.Y.Max = 0, math.Max(1, maxV*1.1)
	p.Y.Tick.Marker = countTicks{}
	return render(p, max(plotW, vg.Length(len(vals))*2.2*vg.Centimeter), plotH), nil
}

func barWidth(n int) vg.Length {
	return vg.Length(math.Max(6, math.Min(40, 360/float64(max(n, 1)))))
}

// byTypePlot groups the success rate per task type, one bar per method
// with its 95 % interval and its glyph on top (seed 004 Fig. 4).
func byTypePlot(d Data) (drawing, error) {
	types := taskTypes(d.Methods)
	if len(types) == 0 || len(d.Methods) == 0 {
		return drawing{}, errSkip
	}
	p := newPlot("Evaluation success rate per task type", "task type", "success rate (share of the type's tasks)")
	rateAxis(&p.Y)
	n := len(d.Methods)
	// The group of n bars fills 80% of one nominal slot.
	slot := vg.Length(math.Max(70, float64(n)*10))
	w := slot * 0.8 / vg.Length(n)
	for i, m := range d.Methods {
		vals := make(plotter.Values, len(types))
		xs, lo, hi := make([]float64, len(types)), make([]float64, len(types)), make([]float64, len(types))
		for j, t := range types {
			vals[j] = m.ByType[t].SuccessRate
			xs[j] = float64(j)
			lo[j], hi[j] = math.NaN(), math.NaN()
			if c, ok := m.TypeCI[t]; ok {
				lo[j], hi[j] = c.Success.Low, c.Success.High
			}
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return drawing{}, err
		}
		c, _, glyph := style(i)
		bars.Color = c
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(i)-float64(n-1)/2) * w
		p.Add(bars,
			barErrors{xs: xs, lo: lo, hi: hi, offset: bars.Offset, color: color.Black},
			barMarks{xs: xs, ys: vals, offset: bars.Offset, glyph: draw.GlyphStyle{Color: color.Black, Shape: glyph, Radius: vg.Points(2)}})
		p.Legend.Add(m.Name, bars)
	}
	p.NominalX(shortTypes(types)...)
	p.X.Min, p.X.Max = -0.6, float64(len(types))-0.4
	legendOutside(p)
	width := max(plotW, vg.Length(len(types))*slot+8*vg.Centimeter)
	return render(p, width, plotH), nil
}

// shortTypes breaks long task type names over lines at underscores so that
// the nominal labels do not overlap.
func shortTypes(types []string) []string {
	out := make([]string, len(types))
	for i, t := range types {
		var b []byte
		line := 0
		for j := 0; j < len(t); j++ {
			if t[j] == '_' && line >= 8 {
				b = append(b, '\n')
				line = 0
				continue
			}
			b = append(b, t[j])
			line++
		}
		out[i] = string(b)
	}
	return out
}

// maxBands is the most methods whose interval bands are drawn: more hide
// each other.
const maxBands = 3

// scoreStepPlot is seed 000 Fig. 4: mean normalised score against the
// number of actions, with the 95 % interval of the mean.
func scoreStepPlot(d Data) (drawing, error) {
	p := newPlot("Normalised score against actions taken", "actions taken (steps)", "mean normalised score (share of the maximum)")
	rateAxis(&p.Y)
	n, maxX := 0, 0
	curves := 0
	for _, m := range d.Methods {
		if len(m.ScoreByStep) > 0 {
			curves++
		}
		maxX = max(maxX, len(m.ScoreByStep))
	}
	bands := curves <= maxBands
	for _, m := range d.Methods {
		if len(m.ScoreByStep) == 0 {
			continue
		}
		// Every episode of a method that stops early has ended: its score
		// holds to the right edge.
		xs, mean, lo, hi := make([]float64, maxX), make([]float64, maxX), make([]float64, maxX), make([]float64, maxX)
		withCI := len(m.ScoreLow) == len(m.ScoreByStep) && len(m.ScoreHigh) == len(m.ScoreByStep)
		for i := range xs {
			j := min(i, len(m.ScoreByStep)-1)
			xs[i], mean[i] = float64(i+1), m.ScoreByStep[j]
			if withCI {
				lo[i], hi[i] = m.ScoreLow[j], m.ScoreHigh[j]
				withCI = !math.IsNaN(lo[i]) && !math.IsNaN(hi[i])
			}
		}
		if bands && withCI {
			poly, err := band(xs, clip01(lo), clip01(hi), n)
			if err != nil {
				return drawing{}, err
			}
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(xs))
		for i := range xs {
			pts[i] = plotter.XY{X: xs[i], Y: mean[i]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return drawing{}, err
		}
		// Its glyph every few steps (at other steps for each method): the
		// curves stay apart where they overlap, in grey too.
		c, dash, glyph := style(n)
		l.Color, l.Dashes, l.Width = c, dash, lineWidth(n)
		marks := make(plotter.XYs, 0, len(pts)/5+1)
		for i := n % 5; i < len(pts); i += 5 {
			marks = append(marks, pts[i])
		}
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			return drawing{}, err
		}
		sc.Color, sc.Shape, sc.Radius = c, glyph, vg.Points(3)
		p.Add(l, sc)
		p.Legend.Add(m.Name, l, sc)
		n++
	}
	if n == 0 {
		return drawing{}, errSkip
	}
	p.X.Min, p.X.Max = 0, float64(maxX)
	p.X.Tick.Marker = integerTicks{}
	legendOutside(p)
	return render(p, plotW, plotH), nil
}
