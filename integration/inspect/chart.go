package inspect

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Chart geometry, in the SVG's own units (it scales to the page's width).
const (
	chartW, chartH             = 1000.0, 320.0
	plotL, plotR, plotT, plotB = 64.0, 820.0, 12.0, 290.0
	markerR                    = 6.0
	labelGap                   = 13.0 // least vertical distance between two line labels
)

// chart is the SVG chart of one conversation's model calls.
type chart struct {
	W, H                       float64
	PlotL, PlotR, PlotT, PlotB float64
	LabelX                     float64
	Points                     string // one polyline through every call's size
	Lines                      []hline
	Markers                    []marker
	YTicks                     []tick
	FirstCall, LastCall        int
	Empty                      bool
	OffChart                   int // compactions of calls no longer kept
}

// hline is a threshold drawn across the plot.
type hline struct {
	Y, LabelY float64
	Class     string
	Label     string
}

// marker is one compaction on the chart.
type marker struct {
	Kind   string
	Call   int
	Anchor string
	D      string // SVG path of the marker's shape
	Title  string
}

type tick struct {
	Y     float64
	Label string
}

// newChart lays out the calls and compactions of s.
func newChart(s snapshot) chart {
	c := chart{W: chartW, H: chartH, PlotL: plotL, PlotR: plotR, PlotT: plotT, PlotB: plotB, LabelX: plotR + 8}
	if len(s.Calls) == 0 {
		c.Empty = true
		return c
	}
	l := s.Limits
	w := float64(l.ContextWindow)
	type level struct {
		tokens float64
		class  string
		label  string
	}
	var levels []level
	if w > 0 {
		levels = append(levels, level{w, "l-window", fmt.Sprintf("window %d", l.ContextWindow)})
		if l.Ceiling > 0 {
			levels = append(levels, level{l.Ceiling, "l-ceiling", fmt.Sprintf("ceiling %.0f", l.Ceiling)})
		}
		levels = append(levels, level{w * l.CompactAt, "l-compact-at", fmt.Sprintf("CompactAt %.2f · %.0f", l.CompactAt, w*l.CompactAt)})
		if l.PrepareAt > 0 {
			levels = append(levels, level{w * l.PrepareAt, "l-prepare-at", fmt.Sprintf("PrepareAt %.2f · %.0f", l.PrepareAt, w*l.PrepareAt)})
		}
		levels = append(levels, level{w * l.CompactTo, "l-compact-to", fmt.Sprintf("CompactTo %.2f · %.0f", l.CompactTo, w*l.CompactTo)})
	} else if n := len(s.Compactions); n > 0 {
		// Only reports seen: their trigger is CompactAt's line.
		t := s.Compactions[n-1].Trigger
		levels = append(levels, level{t, "l-compact-at", fmt.Sprintf("trigger %.0f", t)})
	}
	top := 1.0
	for _, lv := range levels {
		top = max(top, lv.tokens)
	}
	for _, cl := range s.Calls {
		top = max(top, float64(cl.Estimated), float64(cl.Sent))
	}
	top *= 1.05
	y := func(tokens float64) float64 { return plotB - tokens/top*(plotB-plotT) }
	first := s.Calls[0].N
	c.FirstCall, c.LastCall = first, s.Calls[len(s.Calls)-1].N
	x := func(n int) float64 {
		if len(s.Calls) == 1 {
			return (plotL + plotR) / 2
		}
		return plotL + float64(n-first)/float64(len(s.Calls)-1)*(plotR-plotL)
	}

	var pts strings.Builder
	pts.Grow(len(s.Calls) * 24)
	point := func(px, py float64) {
		if pts.Len() > 0 {
			pts.WriteByte(' ')
		}
		pts.WriteString(strconv.FormatFloat(px, 'f', 1, 64))
		pts.WriteByte(',')
		pts.WriteString(strconv.FormatFloat(py, 'f', 1, 64))
	}
	for _, cl := range s.Calls {
		point(x(cl.N), y(float64(cl.Estimated)))
		if cl.Sent != cl.Estimated {
			point(x(cl.N), y(float64(cl.Sent)))
		}
	}
	c.Points = pts.String()

	for _, lv := range levels {
		c.Lines = append(c.Lines, hline{Y: y(lv.tokens), LabelY: y(lv.tokens) + 4, Class: lv.class, Label: lv.label})
	}
	spreadLabels(c.Lines)
	for i := 0; i <= 4; i++ {
		v := top / 1.05 * float64(i) / 4
		c.YTicks = append(c.YTicks, tick{Y: y(v), Label: strconv.Itoa(int(v))})
	}
	for _, rec := range s.Compactions {
		if rec.Call < first {
			c.OffChart++
			continue
		}
		px, py := x(rec.Call), y(float64(rec.Estimated))
		kind := rec.Kind
		if rec.Fallback != "" {
			kind += " (" + rec.Fallback + ")"
		}
		if rec.Shared {
			kind += ", shared"
		}
		title := fmt.Sprintf("before step %d (call %d): %s, not compacted, %d tokens estimated", rec.Step, rec.Call, kind, rec.Estimated)
		if rec.N > 0 {
			title = fmt.Sprintf("#%d before step %d (call %d): %s, %d tokens estimated", rec.N, rec.Step, rec.Call, kind, rec.Estimated)
		}
		c.Markers = append(c.Markers, marker{Kind: rec.Kind, Call: rec.Call, Anchor: anchor(rec.Call), D: shape(rec.Kind, px, py), Title: title})
	}
	return c
}

// spreadLabels moves the labels of lines apart so that no two overlap,
// keeping their order.
func spreadLabels(lines []hline) {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(lines[a].LabelY, lines[b].LabelY) })
	for k := 1; k < len(order); k++ {
		prev, cur := &lines[order[k-1]], &lines[order[k]]
		if cur.LabelY-prev.LabelY < labelGap {
			cur.LabelY = prev.LabelY + labelGap
		}
	}
}

// shape is the SVG path of a marker: a disc for a synchronous compaction,
// a square for a prepared one, a triangle for a deferred call, a cross for
// a failure, a crossed box for a failure the model-free fallback made up
// for, a slashed circle for a result not applied because it would not pay,
// a ring for a backed-off call, a smaller one for a call held for room
// (Report.RoomHeld) and a diamond for a declined one, so kinds
// differ by more than color.
func shape(kind string, x, y float64) string {
	r := markerR
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	circle := func(r float64) string {
		return "M" + f(x-r) + " " + f(y) + "a" + f(r) + " " + f(r) + " 0 1 0 " + f(2*r) + " 0a" + f(r) + " " + f(r) + " 0 1 0 " + f(-2*r) + " 0Z"
	}
	box := "M" + f(x-r) + " " + f(y-r) + "h" + f(2*r) + "v" + f(2*r) + "h" + f(-2*r) + "Z"
	cross := "M" + f(x-r) + " " + f(y-r) + "L" + f(x+r) + " " + f(y+r) + "M" + f(x+r) + " " + f(y-r) + "L" + f(x-r) + " " + f(y+r)
	switch kind {
	case KindSynchronous:
		return circle(r)
	case KindPrepared:
		return box
	case KindDeferred:
		return "M" + f(x) + " " + f(y-r) + "L" + f(x+r) + " " + f(y+r) + "L" + f(x-r) + " " + f(y+r) + "Z"
	case KindBackedOff:
		return circle(r - 1)
	case KindHeld:
		return circle(r - 2)
	case KindFailed:
		return cross
	case KindFallback:
		return box + cross
	case KindUnprofitable:
		d := r * 0.7
		return circle(r) + "M" + f(x-d) + " " + f(y+d) + "L" + f(x+d) + " " + f(y-d)
	}
	return "M" + f(x) + " " + f(y-r) + "L" + f(x+r) + " " + f(y) + "L" + f(x) + " " + f(y+r) + "L" + f(x-r) + " " + f(y) + "Z"
}

// anchor is the id of a compaction's row.
func anchor(call int) string { return "c" + strconv.Itoa(call) }
