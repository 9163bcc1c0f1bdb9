package bench

// Line and stacked-area charts drawn into PNG files for the benchmark
// reports, with the standard library's image packages, x/image's
// anti-aliasing rasterizer and the Go font.

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// chartSeries is one named line or band of a chart, a value per x.
type chartSeries struct {
	name  string
	color color.RGBA
	ys    []float64
}

// chartPanel is one chart: lines drawn over bands stacked from zero.
type chartPanel struct {
	title, xLabel, yLabel string
	xs                    []float64
	stacked               []chartSeries // bands, bottom first
	lines                 []chartSeries
}

// chartColors are the series' colours, in order.
var chartColors = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0x59, 0xa1, 0x4f, 0xff}, {0xb0, 0x7a, 0xa1, 0xff},
	{0x76, 0xb7, 0xb2, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0x9c, 0x75, 0x5f, 0xff}, {0xe1, 0x57, 0x59, 0xff},
}

// writeChart draws panels one below the other into a PNG of width w, each
// h high.
func writeChart(path string, w, h int, panels []chartPanel) error {
	img := image.NewRGBA(image.Rect(0, 0, w, h*len(panels)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	face, err := chartFace(14)
	if err != nil {
		return err
	}
	for i, p := range panels {
		p.draw(img, image.Rect(0, i*h, w, (i+1)*h), face)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func chartFace(size float64) (font.Face, error) {
	ft, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	return opentype.NewFace(ft, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
}

// draw draws the panel into r of img.
func (p chartPanel) draw(img *image.RGBA, r image.Rectangle, face font.Face) {
	plot := image.Rect(r.Min.X+80, r.Min.Y+72, r.Max.X-30, r.Max.Y-60)
	xmax, ymax := 1.0, 1.0
	for _, x := range p.xs {
		xmax = math.Max(xmax, x)
	}
	top := make([]float64, len(p.xs))
	for _, s := range p.stacked {
		for i, y := range s.ys {
			top[i] += y
			ymax = math.Max(ymax, top[i])
		}
	}
	for _, s := range p.lines {
		for _, y := range s.ys {
			ymax = math.Max(ymax, y)
		}
	}
	ystep := niceStep(ymax, 6)
	ymax = math.Ceil(ymax/ystep) * ystep
	xstep := niceStep(xmax, 10)
	px := func(x float64) float32 { return float32(plot.Min.X) + float32(x/xmax)*float32(plot.Dx()) }
	py := func(y float64) float32 { return float32(plot.Max.Y) - float32(y/ymax)*float32(plot.Dy()) }

	grid := color.RGBA{0xe4, 0xe4, 0xe4, 0xff}
	ink := color.RGBA{0x33, 0x33, 0x33, 0xff}
	for y := 0.0; y <= ymax+ystep/2; y += ystep {
		fillPath(img, strokeLine(float32(plot.Min.X), py(y), float32(plot.Max.X), py(y), 1), grid)
		label := chartNumber(y)
		text(img, face, plot.Min.X-8-textWidth(face, label), int(py(y))+5, label, ink)
	}
	for x := 0.0; x <= xmax+xstep/2; x += xstep {
		fillPath(img, strokeLine(px(x), float32(plot.Min.Y), px(x), float32(plot.Max.Y), 1), grid)
		label := chartNumber(x)
		text(img, face, int(px(x))-textWidth(face, label)/2, plot.Max.Y+20, label, ink)
	}

	base := make([]float64, len(p.xs))
	for _, s := range p.stacked {
		var pts [][2]float32
		for i, x := range p.xs {
			pts = append(pts, [2]float32{px(x), py(base[i] + s.ys[i])})
		}
		for i := len(p.xs) - 1; i >= 0; i-- {
			pts = append(pts, [2]float32{px(p.xs[i]), py(base[i])})
		}
		fillPath(img, [][][2]float32{pts}, s.color)
		for i := range base {
			base[i] += s.ys[i]
		}
	}
	for _, s := range p.lines {
		var quads [][][2]float32
		for i := 1; i < len(p.xs); i++ {
			quads = append(quads, strokeLine(px(p.xs[i-1]), py(s.ys[i-1]), px(p.xs[i]), py(s.ys[i]), 2.5)...)
		}
		fillPath(img, quads, s.color)
	}
	fillPath(img, strokeLine(float32(plot.Min.X), float32(plot.Max.Y), float32(plot.Max.X), float32(plot.Max.Y), 1.5), ink)
	fillPath(img, strokeLine(float32(plot.Min.X), float32(plot.Min.Y), float32(plot.Min.X), float32(plot.Max.Y), 1.5), ink)

	text(img, face, plot.Min.X, r.Min.Y+24, p.title, ink)
	text(img, face, plot.Min.X+plot.Dx()/2-textWidth(face, p.xLabel)/2, r.Max.Y-18, p.xLabel, ink)
	text(img, face, r.Min.X+8, plot.Min.Y-8, p.yLabel, ink)

	p.drawLegend(img, r, plot, face, ink)
}

// drawLegend draws the legend in a row between the title and the plot:
// lines first, then the bands from the top one down, as they are stacked.
func (p chartPanel) drawLegend(img *image.RGBA, r, plot image.Rectangle, face font.Face, ink color.RGBA) {
	var legend []chartSeries
	legend = append(legend, p.lines...)
	for i := len(p.stacked) - 1; i >= 0; i-- {
		legend = append(legend, p.stacked[i])
	}
	lx, ly := plot.Min.X, r.Min.Y+48
	for _, s := range legend {
		w := 20 + textWidth(face, s.name) + 18
		if lx+w > plot.Max.X {
			lx, ly = plot.Min.X, ly+18
		}
		fillPath(img, [][][2]float32{{{float32(lx), float32(ly - 10)}, {float32(lx + 14), float32(ly - 10)}, {float32(lx + 14), float32(ly + 2)}, {float32(lx), float32(ly + 2)}}}, s.color)
		text(img, face, lx+20, ly+1, s.name, ink)
		lx += w
	}
}

// niceStep is a step of 1, 2 or 5 times a power of ten that cuts max into
// at most n parts.
func niceStep(max float64, n int) float64 {
	raw := max / float64(n)
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= raw {
			return m * pow
		}
	}
	return 10 * pow
}

// chartNumber writes a tick's value: 1500 as 1,500, 250000 as 250k, 2e6 as
// 2M.
func chartNumber(v float64) string {
	switch {
	case v >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case v >= 1e4:
		return trimZero(fmt.Sprintf("%.1f", v/1e3)) + "k"
	}
	return groupThousands(int(math.Round(v)))
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupThousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// strokeLine is the quad of a line w pixels wide.
func strokeLine(x0, y0, x1, y1, w float32) [][][2]float32 {
	dx, dy := x1-x0, y1-y0
	l := float32(math.Hypot(float64(dx), float64(dy)))
	if l == 0 {
		return nil
	}
	nx, ny := -dy/l*w/2, dx/l*w/2
	return [][][2]float32{{{x0 + nx, y0 + ny}, {x1 + nx, y1 + ny}, {x1 - nx, y1 - ny}, {x0 - nx, y0 - ny}}}
}

// fillPath fills the closed polygons in c, anti-aliased.
func fillPath(img *image.RGBA, polys [][][2]float32, c color.RGBA) {
	if len(polys) == 0 {
		return
	}
	b := img.Bounds()
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	z.DrawOp = draw.Over
	for _, p := range polys {
		if len(p) < 3 {
			continue
		}
		z.MoveTo(p[0][0]-float32(b.Min.X), p[0][1]-float32(b.Min.Y))
		for _, q := range p[1:] {
			z.LineTo(q[0]-float32(b.Min.X), q[1]-float32(b.Min.Y))
		}
		z.ClosePath()
	}
	z.Draw(img, b, image.NewUniform(c), image.Point{})
}

func text(img *image.RGBA, face font.Face, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func textWidth(face font.Face, s string) int {
	return font.MeasureString(face, s).Ceil()
}
