package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

func TestNewRecorderRejectsNegativeBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg   Config
		field string
	}{
		{Config{MaxConversations: -1}, "MaxConversations"},
		{Config{MaxCalls: -2}, "MaxCalls"},
		{Config{MaxCompactions: -3}, "MaxCompactions"},
		{Config{MaxContentBytes: -4}, "MaxContentBytes"},
	}
	for _, tc := range tests {
		_, err := NewRecorder(&tc.cfg)
		if err == nil || !strings.Contains(err.Error(), "Config."+tc.field) || !strings.Contains(err.Error(), "got -") {
			t.Errorf("%+v: error %v, want one naming %s and its value", tc.cfg, err, tc.field)
		}
	}
	rec, err := NewRecorder(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := rec.cfg; c.MaxConversations != DefaultMaxConversations || c.MaxCalls != DefaultMaxCalls ||
		c.MaxCompactions != DefaultMaxCompactions || c.MaxContentBytes != DefaultMaxContentBytes || c.CaptureContent {
		t.Errorf("nil config: %+v, want the documented defaults and no capture", c)
	}
}

// compacted is the report of a one-round compaction of before into after.
func compacted(step int, before, after []*schema.Message, idx []int) compaction.Report {
	return compaction.Report{Step: step, Estimated: 900, Trigger: 700, Triggered: true, Compacted: true, Target: 400,
		MessagesBefore: len(before), MessagesAfter: len(after), TokensBefore: 880, TokensAfter: 300,
		Rounds: []compaction.Round{{Tier: compaction.TierHistoricalTurns, Indices: idx}}}
}

func summaryMessage(text string, n int) *schema.Message {
	return &schema.Message{Role: schema.User, Content: "<conversation_summary>\n" + text + "\n</conversation_summary>",
		Extra: map[string]any{compaction.MetaKey: map[string]any{"strategy": compaction.StrategySummarization, "summarized_messages": n}}}
}

// recordCompaction files one compaction of two messages of size bytes each.
func recordCompaction(rec *Recorder, id string, step, bytes int) {
	before := []*schema.Message{schema.UserMessage(strings.Repeat("u", bytes)), schema.AssistantMessage(strings.Repeat("a", bytes), nil), schema.UserMessage("now")}
	after := []*schema.Message{summaryMessage(fmt.Sprintf("summary %d", step), 2), before[2]}
	rec.record(id, nil, compacted(step, before, after, []int{0, 1}), nil, before, after)
}

func TestBoundsEvictOldestFirst(t *testing.T) {
	t.Parallel()
	t.Run("conversations: the least recently updated goes", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{MaxConversations: 2})
		for _, id := range []string{"a", "b", "a", "c"} {
			rec.record(id, nil, compaction.Report{Estimated: 10}, nil, nil, nil)
		}
		if got := rec.Conversations(); !reflect.DeepEqual(got, []string{"c", "a"}) {
			t.Errorf("kept %v, want [c a] (b was updated least recently)", got)
		}
	})
	t.Run("calls and compactions: the oldest go", func(t *testing.T) {
		t.Parallel()
		rec := newTestRecorder(t, &Config{MaxCalls: 3, MaxCompactions: 2})
		for step := range 5 {
			recordCompaction(rec, "x", step, 10)
		}
		s, _ := rec.snapshot("x")
		var calls, comps []int
		for _, c := range s.Calls {
			calls = append(calls, c.Step)
		}
		for _, c := range s.Compactions {
			comps = append(comps, c.Step)
		}
		// Report.Step 2, 3 and 4 are the calls of steps 3, 4 and 5.
		if !reflect.DeepEqual(calls, []int{3, 4, 5}) || s.DroppedCalls != 2 {
			t.Errorf("calls of steps %v (%d dropped), want [3 4 5] (2 dropped)", calls, s.DroppedCalls)
		}
		if !reflect.DeepEqual(comps, []int{4, 5}) || s.DroppedCompactions != 3 {
			t.Errorf("compactions of steps %v (%d dropped), want [4 5] (3 dropped)", comps, s.DroppedCompactions)
		}
	})
	t.Run("content: the oldest compaction's text goes, its report stays", func(t *testing.T) {
		t.Parallel()
		// Each compaction captures two texts of about 1000 bytes: two fit
		// in 5000, the third pushes the first one's text out.
		rec := newTestRecorder(t, &Config{CaptureContent: true, MaxContentBytes: 5000})
		for step := range 3 {
			recordCompaction(rec, "x", step, 1000)
		}
		s, _ := rec.snapshot("x")
		if len(s.Compactions) != 3 {
			t.Fatalf("%d compactions kept, want 3", len(s.Compactions))
		}
		for i, want := range []bool{true, false, false} {
			c := s.Compactions[i]
			if c.ContentDropped != want || (c.Rounds[0].Content == nil) != want {
				t.Errorf("compaction %d: content dropped %v (content nil %v), want %v", i, c.ContentDropped, c.Rounds[0].Content == nil, want)
			}
		}
		rec.mu.Lock()
		held := rec.convs["x"].Value.(*conversation).content
		rec.mu.Unlock()
		if held > 5000 || held == 0 {
			t.Errorf("%d bytes of text held, want some and at most 5000", held)
		}
	})
}

func TestRecorderConcurrentUse(t *testing.T) {
	t.Parallel()
	rec := newTestRecorder(t, &Config{CaptureContent: true, MaxConversations: 3, MaxCalls: 50, MaxCompactions: 5})
	srv := httptest.NewServer(rec.Handler())
	t.Cleanup(srv.Close)
	const writers, each = 8, 30
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				recordCompaction(rec, fmt.Sprint("conv-", w%4), i, 50)
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for i := range 10 {
				for _, path := range []string{"/", "/conversation?id=conv-" + fmt.Sprint(i%4)} {
					resp, err := srv.Client().Get(srv.URL + path)
					if err != nil {
						t.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		})
	}
	wg.Wait()
	if n := len(rec.Conversations()); n != 3 {
		t.Errorf("%d conversations kept, want MaxConversations=3", n)
	}
	// Conversations evicted and started again hold fewer calls; none holds
	// more than MaxCalls, and the ones held are the newest, none lost.
	for _, id := range rec.Conversations() {
		s, _ := rec.snapshot(id)
		if len(s.Calls) == 0 || len(s.Calls) > 50 {
			t.Fatalf("%s: %d calls kept, want 1 to MaxCalls=50", id, len(s.Calls))
		}
		for i, c := range s.Calls {
			if c.N != s.DroppedCalls+i+1 {
				t.Errorf("%s: call %d is number %d, want %d", id, i, c.N, s.DroppedCalls+i+1)
			}
		}
	}
}

// strings reachable from v, unexported fields included.
func reachableStrings(v reflect.Value, seen map[uintptr]bool, out *[]string) {
	switch v.Kind() {
	case reflect.String:
		*out = append(*out, v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Pointer {
			if seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
		}
		reachableStrings(v.Elem(), seen, out)
	case reflect.Struct:
		for i := range v.NumField() {
			reachableStrings(v.Field(i), seen, out)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			reachableStrings(v.Index(i), seen, out)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			reachableStrings(it.Key(), seen, out)
			reachableStrings(it.Value(), seen, out)
		}
	}
}

func TestCaptureContent(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-0123456789abcdef"
	tool := "TOOLTEXT-7f3c reads https://admin:hunter2@db.internal/x?token=abc with " + secret + " " + longText(500)
	summary := "SUMMARYTEXT-91b2"
	tests := []struct {
		capture bool
		kept    []string // found in memory and on the page
		never   []string // found in neither
	}{
		{false, nil, []string{"TOOLTEXT-7f3c", "SUMMARYTEXT-91b2", "Fix the failing build", "hunter2", secret}},
		{true, []string{"TOOLTEXT-7f3c", "SUMMARYTEXT-91b2", "https://xxxxx@db.internal/x?xxxxx"}, []string{"hunter2", "token=abc", secret}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint("capture=", tc.capture), func(t *testing.T) {
			t.Parallel()
			rec := newTestRecorder(t, &Config{CaptureContent: tc.capture})
			res := run{steps: 30, toolText: tool, summary: summary}.drive(t, rec, "c")
			if len(res.reports) == 0 {
				t.Fatal("the run never compacted")
			}
			var mem []string
			reachableStrings(reflect.ValueOf(rec), map[uintptr]bool{}, &mem)
			memory := strings.Join(mem, "\n")
			var page strings.Builder
			if err := rec.WriteHTML(&page, "c"); err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.kept {
				if !strings.Contains(memory, s) || !strings.Contains(page.String(), s) {
					t.Errorf("%q: in memory %v, on the page %v; want both", s, strings.Contains(memory, s), strings.Contains(page.String(), s))
				}
			}
			for _, s := range tc.never {
				if strings.Contains(memory, s) || strings.Contains(page.String(), s) {
					t.Errorf("%q: in memory %v, on the page %v; want neither", s, strings.Contains(memory, s), strings.Contains(page.String(), s))
				}
			}
		})
	}
}

func TestCaptureFollowsChainedRounds(t *testing.T) {
	t.Parallel()
	// Round 1 replaces u1 a1 with S1; round 2 replaces S1 u2 with S2. Only
	// S2 reaches the model call.
	sys, u1, a1, u2, u3 := schema.SystemMessage("sys"), schema.UserMessage("first question"), schema.AssistantMessage("first answer", nil),
		schema.UserMessage("second question"), schema.UserMessage("current request")
	before := []*schema.Message{sys, u1, a1, u2, u3}
	after := []*schema.Message{sys, summaryMessage("both questions\n## Identifiers (verbatim)\n- ID-42", 3), u3}
	rep := compacted(1, before, after, nil)
	rep.Rounds = []compaction.Round{{Tier: compaction.TierHistoricalTurns, Indices: []int{1, 2}}, {Tier: compaction.TierHistoricalTurns, Indices: []int{1, 2}}}
	rec := newTestRecorder(t, &Config{CaptureContent: true})
	rec.record("c", nil, rep, nil, before, after)
	s, _ := rec.snapshot("c")
	r1, r2 := s.Compactions[0].Rounds[0].Content, s.Compactions[0].Rounds[1].Content
	if got := r1.Replaced; !reflect.DeepEqual(got, []string{"[user] first question", "[assistant] first answer"}) {
		t.Errorf("round 1 replaced %q", got)
	}
	if r1.SummaryNote == "" || r1.SummaryBefore != "" {
		t.Errorf("round 1's summary, replaced by round 2, has note %q and text %q; want a note and no text", r1.SummaryNote, r1.SummaryBefore)
	}
	if got := r2.Replaced; !reflect.DeepEqual(got, []string{"(the summary written by round 1)", "[user] second question"}) {
		t.Errorf("round 2 replaced %q", got)
	}
	if r2.SummaryLedger != "## Identifiers (verbatim)\n- ID-42" || !strings.Contains(r2.SummaryBefore, "both questions") {
		t.Errorf("round 2's summary split as %q | %q | %q", r2.SummaryBefore, r2.SummaryLedger, r2.SummaryAfter)
	}
}

func TestWrappedHookAlsoObservedRecordsOnce(t *testing.T) {
	t.Parallel()
	rec := newTestRecorder(t, nil)
	var wrapped *Hook
	comp := compaction.CompactorFunc(func(ctx context.Context, msgs []*schema.Message, target int, c compaction.TokenCounter) ([]*schema.Message, error) {
		return []*schema.Message{summaryMessage("short", len(msgs)-1), msgs[len(msgs)-1]}, nil
	})
	hook, err := compaction.NewCompactionHook(context.Background(), &compaction.HookConfig{Compactor: comp, ContextWindow: 100, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	if wrapped, err = rec.Wrap(hook); err != nil {
		t.Fatal(err)
	}
	state := &hooks.State{Messages: []*schema.Message{schema.UserMessage(longText(400)), schema.UserMessage("go on")}, Values: map[string]any{}}
	rep, err := wrapped.Decide(context.Background(), state)
	if err != nil || !rep.Compacted {
		t.Fatalf("Decide: compacted %v, %v", rep.Compacted, err)
	}
	id, _ := state.Values[ValuesKey].(string)
	s, ok := rec.snapshot(id)
	if !ok || len(s.Compactions) != 1 || len(s.Calls) != 1 {
		t.Fatalf("conversation %q (kept %v): %d compactions and %d calls, want 1 and 1", id, ok, len(s.Compactions), len(s.Calls))
	}
	if _, err := rec.Wrap(nil); err == nil {
		t.Error("Wrap(nil) gave no error")
	}
}

func TestOutcomeKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rep  compaction.Report
		err  error
		want string
	}{
		{compaction.Report{Triggered: true, Compacted: true}, nil, "synchronous"},
		{compaction.Report{Triggered: true, Compacted: true, Prepared: true}, nil, "prepared"},
		{compaction.Report{Triggered: true, Deferred: true}, nil, "deferred"},
		{compaction.Report{Triggered: true, Err: errors.New("down")}, nil, "failed"},
		{compaction.Report{Triggered: true}, errors.New("refused"), "failed"},
		{compaction.Report{Triggered: true, BackedOff: true}, nil, "backed-off"},
		{compaction.Report{Triggered: true}, nil, "declined"},
	}
	for _, tc := range tests {
		if got := newRecord(tc.rep, tc.err).Kind; got != tc.want {
			t.Errorf("%+v, err %v: kind %q, want %q", tc.rep, tc.err, got, tc.want)
		}
	}
}

func TestHandlerRoutesAndHeaders(t *testing.T) {
	t.Parallel()
	rec := newTestRecorder(t, nil)
	recordCompaction(rec, "a b/c", 1, 10)
	mux := http.NewServeMux()
	rec.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", "/debug/compaction/", 200},
		{"GET", "/debug/compaction", 200}, // redirected
		{"GET", "/debug/compaction/conversation?id=a+b%2Fc", 200},
		{"HEAD", "/debug/compaction/", 200},
		{"GET", "/debug/compaction/conversation?id=gone", 404},
		{"GET", "/debug/compaction/elsewhere", 404},
		{"POST", "/debug/compaction/", 405},
	}
	for _, tc := range tests {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
			continue
		}
		if tc.status != 200 {
			continue
		}
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'none'", "frame-ancestors 'none'", "style-src 'sha256-"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", tc.path, csp, want)
			}
		}
		if tc.method == "GET" && strings.Contains(tc.path, "conversation") && !strings.Contains(string(body), "a b/c") {
			t.Errorf("%s: the page does not name its conversation", tc.path)
		}
	}
}
