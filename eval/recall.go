package eval

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/spotlight"
)

// RecallStats are the recall probes of one trajectory (Config.Archive): one
// probe per planted fact whose message compaction replaced, asking for the
// fact's value.
type RecallStats struct {
	Probes int
	// FromSummary counts the probes the final conversation answers alone:
	// the value is in it verbatim or marked (a summary, the ledger, a
	// message kept).
	FromSummary int
	// Read is what the recall tool answers for the other probes read
	// blind: an agent that reads, page by page, the archive references the
	// final conversation names, and those the pages read name in turn (the
	// pointer a folded summary carried), until it finds the value. Search
	// is the same walk with the tool's search argument: at each reference,
	// a search for the fact's message (its tool call id, or for a user
	// message its first line), then, when that misses, a search for the
	// references it names. Read is the most a recall costs, Search about
	// the least.
	Read, Search RecallCost
}

// RecallCost is what the recall probes of one way of reading cost.
type RecallCost struct {
	// Recalled counts the probes answered; Calls and Tokens are the recall
	// calls that took and the tokens of what they returned, summed over
	// the answered probes.
	Recalled, Calls, Tokens int
}

func (c *RecallCost) add(o RecallCost) {
	c.Recalled += o.Recalled
	c.Calls += o.Calls
	c.Tokens += o.Tokens
}

// archiveRef matches a reference as the archive's pointer line writes it.
var archiveRef = regexp.MustCompile(`arc1-cv[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{24}`)

// prober answers probes with the recall tool in its defaults
// (compaction.DefaultRecallMaxChars per page), scoped to the trajectory's
// conversation, caching each page read.
type prober struct {
	ctx     context.Context
	tool    tool.InvokableTool
	counter compaction.TokenCounter
	start   []string // the references the final conversation names, in order
	pages   map[string]page
}

type page struct {
	text   string
	tokens int
}

func newProber(ctx context.Context, cfg Config, final []*schema.Message) (*prober, error) {
	t, err := compaction.NewRecallTool(cfg.Archive)
	if err != nil {
		return nil, err
	}
	if conv, ok := compaction.ArchiveConversation(final); ok {
		ctx = compaction.WithConversation(ctx, conv)
	}
	text := compaction.Render(final, compaction.RenderOptions{ToolCallIDs: true})
	return &prober{ctx: ctx, tool: t, counter: cfg.Counter, start: archiveRef.FindAllString(text, -1), pages: map[string]page{}}, nil
}

// read returns what the tool returns for args (a tool result) and its
// tokens.
func (p *prober) read(args string) (page, error) {
	if pg, ok := p.pages[args]; ok {
		return pg, nil
	}
	out, err := p.tool.InvokableRun(p.ctx, args)
	if err != nil {
		return page{}, err
	}
	tokens, err := p.counter.Count(p.ctx, []*schema.Message{schema.ToolMessage(out, "recall")}, nil)
	if err != nil {
		return page{}, err
	}
	pg := page{text: out, tokens: tokens}
	p.pages[args] = pg
	return pg, nil
}

// morePages is how the recall tool ends a page that has a next one.
const morePages = "[More: call recall with page "

// probe looks for value breadth first from the references the final
// conversation names: at each, every page (needle empty), or a search for
// needle and, when it misses, a search for the references the entry names.
// It returns whether it found the value and the calls and tokens spent.
func (p *prober) probe(value, needle string) (RecallCost, error) {
	var cost RecallCost
	seen := map[string]bool{}
	queue := []string{}
	push := func(refs []string) {
		for _, r := range refs {
			if !seen[r] {
				seen[r] = true
				queue = append(queue, r)
			}
		}
	}
	push(p.start)
	marked := spotlight.Datamark(value)
	// call reads every page of one search (all: "") of ref, returning
	// whether the value was found.
	call := func(ref, search string) (bool, error) {
		for n, more := 1, true; more; n++ {
			pg, err := p.read(fmt.Sprintf(`{"reference": %q, "search": %q, "page": %d}`, ref, search, n))
			if err != nil {
				return false, err
			}
			more = strings.Contains(pg.text, morePages)
			cost.Calls++
			cost.Tokens += pg.tokens
			if strings.Contains(pg.text, value) || strings.Contains(pg.text, marked) {
				return true, nil
			}
			push(archiveRef.FindAllString(pg.text, -1))
		}
		return false, nil
	}
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		found, err := call(ref, needle)
		if err == nil && !found && needle != "" {
			found, err = call(ref, archiveRefPrefix)
		}
		if err != nil {
			return cost, err
		}
		if found {
			cost.Recalled = 1
			return cost, nil
		}
	}
	return RecallCost{}, nil
}

// archiveRefPrefix starts every reference (archiveRef).
const archiveRefPrefix = "arc1-"

// needle is what an agent looking for message m would search the archive
// for, at best: its tool call id (which the call and the result both
// show), else its first line.
func needle(m *schema.Message) string {
	if m.ToolCallID != "" {
		return m.ToolCallID
	}
	first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
	return first
}

// probeRecall fills res.Recall: a probe per fact of t in a replaced
// message, answered from final (its rendering) or through the archive.
// Without Config.Archive it does nothing.
func probeRecall(ctx context.Context, cfg Config, t Trajectory, conv []*schema.Message, isReplaced map[int]bool, final string, res *Result) error {
	if cfg.Archive == nil {
		return nil
	}
	p, err := newProber(ctx, cfg, conv)
	if err != nil {
		return err
	}
	for _, f := range t.Facts {
		if !isReplaced[f.Message] {
			continue
		}
		res.Recall.Probes++
		if strings.Contains(final, f.Value) || strings.Contains(final, spotlight.Datamark(f.Value)) {
			res.Recall.FromSummary++
			continue
		}
		read, err := p.probe(f.Value, "")
		if err != nil {
			return fmt.Errorf("recall probe for %q: %w", f.Value, err)
		}
		search, err := p.probe(f.Value, needle(t.Messages[f.Message]))
		if err != nil {
			return fmt.Errorf("recall probe for %q by search: %w", f.Value, err)
		}
		res.Recall.Read.add(read)
		res.Recall.Search.add(search)
	}
	return nil
}

// RecallTable renders one row of recall probe totals per configuration:
// the facts only replaced messages held, how many the final conversation
// answers alone, how many more the recall tool brings back, and what the
// recalls cost read blind and by search.
func RecallTable(runs []Labeled) string {
	var b strings.Builder
	b.WriteString("| configuration | tokens final | facts replaced | answered from the final conversation alone | with recall | not found | read blind: calls per recalled fact | tokens per recalled fact | by search: calls per recalled fact | tokens per recalled fact |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, run := range runs {
		t := Total(run.Results)
		r := t.Recall
		per := func(n, d int, format string) string {
			if d == 0 {
				return "–"
			}
			return fmt.Sprintf(format, float64(n)/float64(d))
		}
		back := r.FromSummary + r.Read.Recalled
		fmt.Fprintf(&b, "| %s | %d | %d | %d (%s) | %d (%s) | %d | %s | %s | %s | %s |\n", run.Label, t.TokensFinal, r.Probes,
			r.FromSummary, pct(r.FromSummary, r.Probes), back, pct(back, r.Probes), r.Probes-back,
			per(r.Read.Calls, r.Read.Recalled, "%.1f"), per(r.Read.Tokens, r.Read.Recalled, "%.0f"),
			per(r.Search.Calls, r.Search.Recalled, "%.1f"), per(r.Search.Tokens, r.Search.Recalled, "%.0f"))
	}
	return b.String()
}
