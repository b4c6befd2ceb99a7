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

// render draws p as a PNG of w x h. A plot with more than one legend entry
// gets its legend to the right of the data area, where it hides no data.
func render(p *plot.Plot, dpi int, w, h vg.Length) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	// A margin all round: the title is drawn up to the canvas edge.
	dc := draw.Crop(draw.New(c), 2*vg.Millimeter, -2*vg.Millimeter, 2*vg.Millimeter, -3*vg.Millimeter)
	leg := p.Legend
	if leg.Top && !leg.Left { // the plots' request for an outside legend
		p.Legend = plot.NewLegend()
		leg.Left, leg.Top = true, true
		lw := leg.Rectangle(dc).Size().X + 3*vg.Millimeter
		p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		// Below the title, level with the top of the data area.
		top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		leg.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-lw+2*vg.Millimeter, 0, 0, -top))
		return pngBytes(c)
	}
	p.Draw(dc)
	return pngBytes(c)
}

// legendOutside asks render to draw the legend right of the data area.
func legendOutside(p *plot.Plot) {
	p.Legend.Top = true
	p.Legend.Left = false
}

func pngBytes(c *vgimg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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

// trainingPlot is Fig. 3: training success rate per iteration per method.
func trainingPlot(d Data, dpi int) ([]byte, error) {
	p := newPlot("Training success per iteration (seed 002 Fig. 3)", "training iteration", "success rate on training tasks")
	rateAxis(&p.Y)
	n, maxIt := 0, 0
	for _, m := range d.Methods {
		if len(m.History) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(m.History))
		for i, it := range m.History {
			pts[i] = plotter.XY{X: float64(it.Iteration + 1), Y: it.SuccessRate}
			maxIt = max(maxIt, it.Iteration+1)
		}
		if err := addLine(p, m.Name, pts, n); err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		return nil, errSkip
	}
	p.X.Min, p.X.Max = 0.8, float64(max(maxIt, 2))+0.2
	p.X.Tick.Marker = integerTicks{}
	legendOutside(p)
	return render(p, dpi, plotW, plotH)
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

// memoryPlot is Fig. 6: SAMem's memory size (Q-table entries, solid, and
// state clusters, dashed) per iteration, with forgetting and without.
func memoryPlot(d Data, dpi int) ([]byte, error) {
	p := newPlot("SAMem memory size over training (seed 002 Fig. 6)", "training iteration", "memory size (count)")
	n, maxIt, maxY := 0, 0, 0
	for _, m := range d.Methods {
		if !historyHas(m.History, "entries") || !fig6[m.Name] {
			continue
		}
		c, _, glyph := style(n)
		for _, k := range []struct {
			key  string
			dash []vg.Length
		}{{"entries", nil}, {"states", []vg.Length{vg.Points(5), vg.Points(3)}}} {
			pts := make(plotter.XYs, len(m.History))
			for i, it := range m.History {
				pts[i] = plotter.XY{X: float64(it.Iteration + 1), Y: float64(it.Size[k.key])}
				maxIt = max(maxIt, it.Iteration+1)
				maxY = max(maxY, it.Size[k.key])
			}
			l, s, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes, l.Width = c, k.dash, lineWidth(n)
			s.Color, s.Shape, s.Radius = c, glyph, vg.Points(3)
			p.Add(l, s)
			p.Legend.Add(fmt.Sprintf("%s: %s", m.Name, k.key), l, s)
		}
		n++
	}
	if n == 0 {
		return nil, errSkip
	}
	p.X.Min, p.X.Max = 0.8, float64(max(maxIt, 2))+0.2
	p.X.Tick.Marker = integerTicks{}
	p.Y.Min, p.Y.Max = 0, math.Max(1, float64(maxY)*1.1)
	p.Y.Tick.Marker = countTicks{}
	legendOutside(p)
	return render(p, dpi, plotW, plotH)
}

// sweepPlot is Fig. 7 (param "threshold": states) or Fig. 9
// ("thought-threshold": thoughts): success rate as bars above, the memory
// size as a red line below, against the threshold.
func sweepPlot(d Data, dpi int, param string) ([]byte, error) {
	var pts []SweepPoint
	for _, s := range sortedSweep(d.Sweep) {
		if s.Param == param {
			pts = append(pts, s)
		}
	}
	if len(pts) == 0 {
		return nil, errSkip
	}
	what, fig := "states", "Fig. 7"
	if param == "thought-threshold" {
		what, fig = "thoughts", "Fig. 9"
	}
	labels := make([]string, len(pts))
	rates := make(plotter.Values, len(pts))
	counts := make(plotter.XYs, len(pts))
	maxC := 0
	for i, s := range pts {
		labels[i] = strconv.FormatFloat(s.Value, 'f', 2, 64)
		rates[i] = s.SuccessRate
		c := s.States
		if what == "thoughts" {
			c = s.Thoughts
		}
		counts[i] = plotter.XY{X: float64(i), Y: float64(c)}
		maxC = max(maxC, c)
	}
	top := newPlot(fmt.Sprintf("Similarity threshold sweep (seed 002 %s)", fig), "", "success rate (evaluation)")
	rateAxis(&top.Y)
	bars, err := plotter.NewBarChart(rates, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bars.Color = colour(2)
	bars.LineStyle.Width = 0
	top.Add(bars)
	top.Legend.Add("success rate", bars)
	top.Legend.Top = true
	top.NominalX(labels...)
	top.X.Label.Text = param

	bottom := newPlot("", param, "number of "+what+" (after training)")
	line, marks, err := plotter.NewLinePoints(counts)
	if err != nil {
		return nil, err
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

	c := vgimg.NewWith(vgimg.UseWH(plotW, plotH*1.5), vgimg.UseDPI(dpi))
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4, PadY: vg.Millimeter * 6}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	return pngBytes(c)
}

// tokensPlot is Fig. 8: model tokens of the evaluation per method, with the
// method's success rate in its label.
func tokensPlot(d Data, dpi int) ([]byte, error) {
	if len(d.Methods) == 0 {
		return nil, errSkip
	}
	vals := make(plotter.Values, len(d.Methods))
	labels := make([]string, len(d.Methods))
	maxV := 0.0
	for i, m := range d.Methods {
		vals[i] = float64(m.Tokens) / 1000
		maxV = math.Max(maxV, vals[i])
		labels[i] = fmt.Sprintf("%s\nSR %.2f", m.Name, m.Overall.SuccessRate)
	}
	title := "Tokens consumed per method (seed 002 Fig. 8)"
	if maxV == 0 {
		title += ": none spent (offline backend)"
	}
	p := newPlot(title, "method (evaluation success rate)", "tokens consumed (thousands)")
	bars, err := plotter.NewBarChart(vals, barWidth(len(vals)))
	if err != nil {
		return nil, err
	}
	bars.Color = colour(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.6, float64(len(vals))-0.4
	p.Y.Min, p.Y.Max = 0, math.Max(1, maxV*1.1)
	p.Y.Tick.Marker = countTicks{}
	return render(p, dpi, max(plotW, vg.Length(len(vals))*2.2*vg.Centimeter), plotH)
}

func barWidth(n int) vg.Length {
	return vg.Length(math.Max(6, math.Min(40, 360/float64(max(n, 1)))))
}

// byTypePlot groups the success rate per task type, one bar per method
// (seed 004 Fig. 4).
func byTypePlot(d Data, dpi int) ([]byte, error) {
	types := taskTypes(d.Methods)
	if len(types) == 0 || len(d.Methods) == 0 {
		return nil, errSkip
	}
	p := newPlot("Evaluation success rate per task type", "task type", "success rate")
	rateAxis(&p.Y)
	n := len(d.Methods)
	// The group of n bars fills 80% of one nominal slot.
	slot := vg.Length(math.Max(70, float64(n)*10))
	w := slot * 0.8 / vg.Length(n)
	for i, m := range d.Methods {
		vals := make(plotter.Values, len(types))
		for j, t := range types {
			vals[j] = m.ByType[t].SuccessRate
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		c, _, _ := style(i)
		bars.Color = c
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(i)-float64(n-1)/2) * w
		p.Add(bars)
		p.Legend.Add(m.Name, bars)
	}
	p.NominalX(shortTypes(types)...)
	p.X.Min, p.X.Max = -0.6, float64(len(types))-0.4
	legendOutside(p)
	width := max(plotW, vg.Length(len(types))*slot+8*vg.Centimeter)
	return render(p, dpi, width, plotH)
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

// maxBands is the most methods whose standard deviation bands are drawn.
const maxBands = 3

// scoreStepPlot is seed 000 Fig. 4: mean normalised score against the
// number of actions, with a band of one standard deviation.
func scoreStepPlot(d Data, dpi int) ([]byte, error) {
	p := newPlot("Normalised score against actions taken (seed 000 Fig. 4)", "actions taken", "mean normalised score")
	rateAxis(&p.Y)
	n, maxX := 0, 0
	// Bands of one standard deviation hide each other beyond a few methods.
	curves := 0
	for _, m := range d.Methods {
		if len(m.ScoreByStep) > 0 {
			curves++
		}
	}
	bands := curves <= maxBands
	for _, m := range d.Methods {
		maxX = max(maxX, len(m.ScoreByStep))
	}
	for _, m := range d.Methods {
		if len(m.ScoreByStep) == 0 {
			continue
		}
		// Every episode of a method that stops early has ended: its score
		// holds to the right edge.
		mean := make(plotter.XYs, maxX)
		std := make([]float64, maxX)
		for i := range mean {
			j := min(i, len(m.ScoreByStep)-1)
			mean[i] = plotter.XY{X: float64(i + 1), Y: m.ScoreByStep[j]}
			if j < len(m.ScoreStd) {
				std[i] = m.ScoreStd[j]
			}
		}
		c, dash, _ := style(n)
		if bands && len(m.ScoreStd) == len(m.ScoreByStep) {
			band := make(plotter.XYs, 0, 2*len(mean))
			for i, pt := range mean {
				band = append(band, plotter.XY{X: pt.X, Y: math.Min(1, pt.Y+std[i])})
			}
			for i := len(mean) - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: mean[i].X, Y: math.Max(0, mean[i].Y-std[i])})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			r, g, b, _ := c.RGBA()
			poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x28}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		l, err := plotter.NewLine(mean)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes, l.Width = c, dash, lineWidth(n)
		p.Add(l)
		p.Legend.Add(m.Name, l)
		n++
	}
	if n == 0 {
		return nil, errSkip
	}
	p.X.Min, p.X.Max = 0, float64(maxX)
	p.X.Tick.Marker = integerTicks{}
	if !bands {
		p.Title.Text = "Mean normalised score against actions taken (seed 000 Fig. 4)"
	}
	legendOutside(p)
	return render(p, dpi, plotW, plotH)
}
