package main

import (
	"fmt"
	"strings"

	"github.com/einocompact/einocompact/bench"
)

// Plot geometry, in SVG user units.
const (
	plotWidth   = 920
	panelHeight = 250
	marginLeft  = 70
	marginRight = 20
	marginTop   = 34
	marginBelow = 36
)

var strategyColor = map[string]string{bench.StrategyEinocompact: "#1f6fb4", bench.StrategyEino: "#d95f02", bench.StrategyPrepared: "#2ca02c"}

// plotSVG draws, for the first seed of every shape, the prompt size of every
// model call for both strategies. At a compaction the line drops from the
// size the call would have had to the size it was sent with, and a marker
// sits on the drop. Window, trigger and target are drawn as guides.
func plotSVG(all []shapeRuns, window int) string {
	var b strings.Builder
	height := len(all)*panelHeight + 30
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", plotWidth, height, plotWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, sr := range all {
		plotPanel(&b, sr, window, i*panelHeight)
	}
	legendY := len(all)*panelHeight + 14
	x := marginLeft
	for _, r := range all[0].runs[0] {
		s := r.Strategy
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", x, legendY, x+24, legendY, strategyColor[s])
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", x+30, legendY+4, s)
		x += 50 + 7*len(s)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">markers: compactions;</text>`+"\n", x, legendY+4)
	x += 140
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">grey: window; dashed: trigger (0.7); dotted: target (0.4)</text>`+"\n", x, legendY+4)
	b.WriteString("</svg>\n")
	return b.String()
}

func plotPanel(b *strings.Builder, sr shapeRuns, window, top int) {
	runs := sr.runs[0]
	steps := len(runs[0].Steps)
	ymax := float64(window)
	for _, r := range runs {
		for _, s := range r.Steps {
			ymax = max(ymax, float64(s.Before))
		}
	}
	ymax *= 1.05
	x0, x1 := float64(marginLeft), float64(plotWidth-marginRight)
	y0, y1 := float64(top+panelHeight-marginBelow), float64(top+marginTop)
	px := func(step int) float64 { return x0 + (x1-x0)*float64(step)/float64(max(steps-1, 1)) }
	py := func(tokens float64) float64 { return y0 - (y0-y1)*tokens/ymax }

	fmt.Fprintf(b, `<text x="%g" y="%d" font-size="13" font-weight="bold">%s (seed %d)</text>`+"\n", x0, top+20, sr.shape, runs[0].Config.Seed)
	fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", x0, y0, x1, y0)
	fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", x0, y0, x0, y1)
	for t := 0; float64(t) <= ymax; t += tickStep(ymax) {
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="end">%d</text>`+"\n", x0-6, py(float64(t))+4, t)
	}
	for s := 0; s < steps; s += 50 {
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">%d</text>`+"\n", px(s), y0+16, s)
	}
	fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">model call</text>`+"\n", (x0+x1)/2, y0+30)
	fmt.Fprintf(b, `<text x="14" y="%g" transform="rotate(-90 14 %g)" text-anchor="middle">prompt tokens</text>`+"\n", (y0+y1)/2, (y0+y1)/2)
	for _, g := range []struct {
		frac float64
		dash string
	}{{1, ""}, {0.7, "6 4"}, {0.4, "2 3"}} {
		y := py(g.frac * float64(window))
		fmt.Fprintf(b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#999" stroke-dasharray="%s"/>`+"\n", x0, y, x1, y, g.dash)
	}

	for _, r := range runs {
		color := strategyColor[r.Strategy]
		compacted := map[int]bool{}
		for _, c := range r.Compactions {
			compacted[c.Step] = true
		}
		var pts []string
		for _, s := range r.Steps {
			if compacted[s.Step] {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.Step), py(float64(s.Before))))
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.Step), py(float64(s.Prompt))))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", color, strings.Join(pts, " "))
		for _, c := range r.Compactions {
			mid := py(float64(c.Before+c.After) / 2)
			if r.Strategy == bench.StrategyEino {
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"><title>Eino, call %d: %d to %d tokens, summarizer read %d</title></rect>`+"\n",
					px(c.Step)-3.5, mid-3.5, color, c.Step, c.Before, c.After, c.InputTokens)
			} else {
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s, call %d: %d to %d tokens, summarizer read %d, stall %.1f s</title></circle>`+"\n",
					px(c.Step), mid, color, r.Strategy, c.Step, c.Before, c.After, c.InputTokens, c.Stall.Seconds())
			}
		}
	}
}

// tickStep picks a round tick interval giving four to eight ticks.
func tickStep(ymax float64) int {
	for _, s := range []int{1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000} {
		if ymax/float64(s) <= 8 {
			return s
		}
	}
	return 1000000
}
