package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/cloudwego/eino/schema"
)

// FactKind says what a planted fact is.
type FactKind string

// The kinds of planted facts.
const (
	FactPath     FactKind = "path"
	FactUUID     FactKind = "uuid"
	FactHash     FactKind = "hash"
	FactError    FactKind = "error"
	FactNumber   FactKind = "number"
	FactDecision FactKind = "decision"
)

// Fact is a string planted in one message of a trajectory.
type Fact struct {
	Kind    FactKind
	Value   string // appears verbatim in Message's text
	Message int    // index into Trajectory.Messages
}

// Trajectory is a conversation in steps: Messages[:Steps[0]] is the opening
// (system prompt and task), and each step ends at the next Steps value.
type Trajectory struct {
	Name     string
	Messages []*schema.Message
	Steps    []int // end index (exclusive) of the opening and of each step
	Facts    []Fact
}

// Corpus returns n trajectories generated from seed; the same arguments give
// the same trajectories. Each has 60 to 110 steps of tool work with results
// of a few hundred to a few thousand characters, a user turn with a new
// decision about every 12 steps, and facts planted in both.
func Corpus(seed uint64, n int) []Trajectory {
	out := make([]Trajectory, n)
	for i := range n {
		out[i] = trajectory(rand.New(rand.NewPCG(seed, uint64(i))), fmt.Sprintf("t%02d", i+1))
	}
	return out
}

// gen accumulates one trajectory.
type gen struct {
	r     *rand.Rand
	t     Trajectory
	calls int
}

func trajectory(r *rand.Rand, name string) Trajectory {
	g := &gen{r: r, t: Trajectory{Name: name}}
	project := pick(r, projects)
	g.add(schema.SystemMessage("You are a coding agent working in the repository " + project + ". Use the tools to inspect and change it."))
	g.user(fmt.Sprintf("Fix the failing %s tests in %s and keep the public API unchanged.", pick(r, areas), project))
	g.endStep()
	steps := 60 + r.IntN(51)
	for s := range steps {
		if s > 0 && r.IntN(12) == 0 {
			g.user(g.decisionTurn())
		}
		g.toolStep()
		if r.IntN(3) == 0 {
			g.add(schema.AssistantMessage(g.note(), nil))
		}
		g.endStep()
	}
	return g.t
}

func (g *gen) add(m *schema.Message) int {
	g.t.Messages = append(g.t.Messages, m)
	return len(g.t.Messages) - 1
}

func (g *gen) endStep() { g.t.Steps = append(g.t.Steps, len(g.t.Messages)) }

func (g *gen) plant(kind FactKind, value string, msg int) {
	g.t.Facts = append(g.t.Facts, Fact{Kind: kind, Value: value, Message: msg})
}

func (g *gen) user(text string) { g.add(schema.UserMessage(text)) }

// decisionTurn is a user turn stating a rule; the rule is a planted fact.
func (g *gen) decisionTurn() string {
	d := fmt.Sprintf(pick(g.r, decisions), pick(g.r, libraries), pick(g.r, libraries), g.path())
	g.plant(FactDecision, d, len(g.t.Messages))
	return "Before you go on: " + d + "\nThen continue with the task."
}

// toolStep adds one tool call and its result, planting facts in the result.
func (g *gen) toolStep() {
	g.calls++
	id := fmt.Sprintf("call_%s_%03d", g.t.Name, g.calls)
	tool, args := g.toolCall()
	g.add(schema.AssistantMessage("", []schema.ToolCall{{
		ID: id, Type: "function", Function: schema.FunctionCall{Name: tool, Arguments: args},
	}}))
	idx := len(g.t.Messages)
	lines := make([]string, 5+g.r.IntN(60))
	for i := range lines {
		lines[i] = pick(g.r, filler)
	}
	facts := 1 + g.r.IntN(3)
	for range facts {
		kind, value, line := g.fact()
		pos := g.r.IntN(len(lines))
		if g.r.IntN(4) == 0 {
			pos = 0
		}
		lines[pos] = line
		g.plant(kind, value, idx)
	}
	g.add(schema.ToolMessage(strings.Join(lines, "\n"), id, schema.WithToolName(tool)))
	g.dropOverwritten(idx, lines)
}

// dropOverwritten forgets facts of message idx whose line a later fact
// replaced, so every fact is really in its message.
func (g *gen) dropOverwritten(idx int, lines []string) {
	text := strings.Join(lines, "\n")
	kept := g.t.Facts[:0]
	for _, f := range g.t.Facts {
		if f.Message != idx || strings.Contains(text, f.Value) {
			kept = append(kept, f)
		}
	}
	g.t.Facts = kept
}

func (g *gen) toolCall() (name, args string) {
	switch g.r.IntN(4) {
	case 0:
		return "read_file", fmt.Sprintf(`{"path": %q}`, g.path())
	case 1:
		return "bash", fmt.Sprintf(`{"command": "go test ./%s/..."}`, pick(g.r, dirs))
	case 2:
		return "search", fmt.Sprintf(`{"query": "%s %s"}`, pick(g.r, areas), pick(g.r, words))
	default:
		return "http_get", fmt.Sprintf(`{"url": "https://ci.%s.dev/runs/%d"}`, pick(g.r, words), g.r.IntN(100000))
	}
}

// fact makes a fact of a random kind and the result line that carries it.
func (g *gen) fact() (FactKind, string, string) {
	switch g.r.IntN(5) {
	case 0:
		p := g.path()
		return FactPath, p, "modified: " + p
	case 1:
		u := g.uuid()
		return FactUUID, u, "request_id=" + u + " status=503 retry=true"
	case 2:
		h := g.hex(7 + g.r.IntN(34))
		return FactHash, h, "HEAD is now at " + h + " " + pick(g.r, words)
	case 3:
		e := fmt.Sprintf("%s: %s %s", pick(g.r, errorHeads), pick(g.r, errorBodies), g.path())
		return FactError, e, e
	default:
		n := fmt.Sprintf("%d rows", 100+g.r.IntN(99900))
		return FactNumber, n, fmt.Sprintf("inserted %s into %s_%d", n, pick(g.r, words), g.r.IntN(100))
	}
}

func (g *gen) note() string {
	return fmt.Sprintf("The %s %s looks %s; next I will check %s.", pick(g.r, areas), pick(g.r, words), pick(g.r, states), g.path())
}

func (g *gen) path() string {
	return fmt.Sprintf("%s/%s/%s_%d.%s", pick(g.r, dirs), pick(g.r, words), pick(g.r, words), g.r.IntN(1000), pick(g.r, exts))
}

func (g *gen) uuid() string {
	h := g.hex(32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// hex returns n hex digits holding at least one digit and one letter, as a
// real hash almost always does.
func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	b[0], b[n-1] = digits[g.r.IntN(10)], digits[10+g.r.IntN(6)]
	return string(b)
}

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

var (
	projects  = []string{"github.com/acme/ledger", "github.com/acme/shipit", "gitlab.example.org/ops/router", "github.com/acme/billing"}
	areas     = []string{"storage", "auth", "billing", "routing", "cache", "scheduler", "export"}
	dirs      = []string{"internal/store", "cmd/server", "pkg/auth", "internal/billing", "api/v2", "deploy/k8s", "testdata"}
	words     = []string{"orders", "invoice", "token", "session", "ledger", "queue", "worker", "report", "tenant", "shard"}
	exts      = []string{"go", "yaml", "sql", "json", "md", "proto"}
	libraries = []string{"pgx", "zerolog", "sqlc", "chi", "testify", "slog", "gorm", "logrus"}
	states    = []string{"correct", "suspicious", "broken", "flaky", "slow"}
	decisions = []string{
		"you must use %s instead of %s in %s",
		"never edit %s or %s code under %s",
		"we prefer %s over %s, and keep %s as it is",
		"don't add %s; drop %s from %s",
	}
	errorHeads  = []string{"Error", "panic", "FAIL", "error"}
	errorBodies = []string{"connection refused while opening", "permission denied writing", "unexpected EOF reading", "checksum mismatch in", "deadline exceeded calling"}
	filler      = []string{
		"func (s *Store) Get(ctx context.Context, id string) (*Record, error) {",
		"\treturn s.db.QueryRowContext(ctx, query, id).Scan(&r.ID, &r.Name)",
		"}",
		"ok  \tgithub.com/acme/ledger/internal/cache\t0.412s",
		"=== RUN   TestRoundTrip",
		"--- PASS: TestRoundTrip (0.01s)",
		"2026-11-30T10:15:02Z INFO worker started pool=8",
		"2026-11-30T10:15:03Z DEBUG polling queue depth=0",
		"    // keep the old behaviour for callers that pass a nil context",
		"SELECT id, name, created_at FROM orders WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 50;",
		"  replicas: 3",
		"  image: registry.local/acme/server:v1.8.2",
		"Found 12 matches in 4 files.",
		"",
	}
)
