package redisstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"
	goredis "github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
	"github.com/einocompact/einocompact/internal/redistest"
	"github.com/einocompact/einocompact/openaitest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// conv is an agent conversation on task with n tool steps.
func conv(task string, n int) []*schema.Message {
	msgs := []*schema.Message{schema.SystemMessage("You are a build agent."), schema.UserMessage("Fix the build of " + task)}
	for i := range n {
		id := fmt.Sprintf("%s-call-%d", task, i)
		msgs = append(msgs, schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: "run", Arguments: fmt.Sprintf(`{"step":%d}`, i)}}}),
			schema.ToolMessage(fmt.Sprintf("%s step %d: %s", task, i, strings.Repeat("compiler output line; ", 40)), id))
	}
	return msgs
}

// copies returns the messages as another process would hold them.
func copies(msgs []*schema.Message) []*schema.Message {
	out := make([]*schema.Message, len(msgs))
	for i, m := range msgs {
		c := *m
		c.ToolCalls = append([]schema.ToolCall(nil), m.ToolCalls...)
		out[i] = &c
	}
	return out
}

// replica is one process of the service: a hook summarizing through its
// own OpenAI-compatible endpoint, sharing the Redis store.
type replica struct {
	hook *compaction.CompactionHook
	llm  *openaitest.Server
}

func (r replica) summarizerCalls() int { return len(r.llm.Requests()) }

// newReplica builds a replica on client. respond answers its summarizer
// (nil: a short summary at once); prepare false turns PrepareAt off; opts
// edit the store's Config.
func newReplica(t *testing.T, client goredis.UniversalClient, respond openaitest.Responder, prepare bool, opts ...func(*Config)) replica {
	t.Helper()
	return newReplicaWith(t, client, respond, prepare, nil, opts...)
}

// newReplicaWith is newReplica with edit applied to the hook's config last
// (it may wrap the Store).
func newReplicaWith(t *testing.T, client goredis.UniversalClient, respond openaitest.Responder, prepare bool,
	edit func(*compaction.HookConfig), opts ...func(*Config)) replica {
	t.Helper()
	ctx := context.Background()
	if respond == nil {
		respond = func(*openaitest.Request) (*openaitest.Reply, error) {
			return openaitest.Text("The agent ran the build steps; the compiler output repeated one line."), nil
		}
	}
	llm := openaitest.Start(t, respond)
	chat, err := llm.ChatModel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := compaction.NewSummarizationCompactor(ctx, &compaction.SummarizationConfig{ChatModel: chat, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	scfg := Config{Client: client, KeyPrefix: "test:", PollInterval: 5 * time.Millisecond, Logger: quiet()}
	for _, o := range opts {
		o(&scfg)
	}
	store, err := New(scfg)
	if err != nil {
		t.Fatal(err)
	}
	counter := compaction.DefaultCounter()
	size := func(n int) float64 {
		c, err := counter.Count(ctx, conv("size", n), nil)
		if err != nil {
			t.Fatal(err)
		}
		return float64(c)
	}
	window := 2 * size(6)
	cfg := &compaction.HookConfig{Compactor: sc, ContextWindow: int(window), Logger: quiet(),
		CompactAt: (size(5) + size(6)) / 2 / window, CompactTo: size(2) / window,
		Store: store, StoreCooldown: time.Millisecond, StoreTimeout: ioTimeout}
	if prepare {
		cfg.PrepareAt = (size(3) + size(4)) / 2 / window
	}
	if edit != nil {
		edit(cfg)
	}
	h, err := compaction.NewCompactionHook(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return replica{hook: h, llm: llm}
}

// checkKept fails unless after is a valid compaction of before: smaller,
// pairing intact, system prompt and request first, the newest step kept.
func checkKept(t *testing.T, before, after []*schema.Message) {
	t.Helper()
	if len(after) >= len(before) {
		t.Fatalf("%d messages after compaction, %d before", len(after), len(before))
	}
	if after[0].Content != before[0].Content || after[1].Content != before[1].Content {
		t.Fatalf("system prompt or request not kept: %q, %q", after[0].Content, after[1].Content)
	}
	if last := after[len(after)-1]; last.Content != before[len(before)-1].Content || last.ToolCallID != before[len(before)-1].ToolCallID {
		t.Fatal("the newest tool result was not kept")
	}
	calls := map[string]bool{}
	for _, m := range after {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
		if m.Role == schema.Tool && !calls[m.ToolCallID] {
			t.Fatalf("tool result %s without its call", m.ToolCallID)
		}
	}
}

// TestRedisPreparedOnOneReplicaAppliedOnAnother: a compaction prepared in
// the background by replica A is applied by replica B, whose next turn of
// the conversation lands there, without B calling its summarizer.
func TestRedisPreparedOnOneReplicaAppliedOnAnother(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newReplica(t, client(t, srv), nil, true), newReplica(t, client(t, srv), nil, true)
	ctx := context.Background()
	msgs := conv("billing", 4)
	if r, err := a.hook.Decide(ctx, &hooks.State{Messages: msgs}); err != nil || !r.Preparing {
		t.Fatalf("A at PrepareAt: preparing=%v err=%v", r.Preparing, err)
	}
	if err := a.hook.WaitPrepared(ctx); err != nil {
		t.Fatal(err)
	}
	now := copies(conv("billing", 6))
	st := &hooks.State{Messages: now}
	r, err := b.hook.Decide(ctx, st)
	if err != nil || !r.Compacted || !r.Shared {
		t.Fatalf("B: err=%v compacted=%v shared=%v, want A's compaction", err, r.Compacted, r.Shared)
	}
	if a.summarizerCalls() == 0 || b.summarizerCalls() != 0 {
		t.Fatalf("summarizer calls: A %d, B %d; want A's only", a.summarizerCalls(), b.summarizerCalls())
	}
	checkKept(t, now, st.Messages)
}

// TestRedisConcurrentRunsSummarizeOnce: eight runs of one conversation
// reaching the trigger at once, spread over four replicas, make one
// summarizer call between them, and every run is compacted.
func TestRedisConcurrentRunsSummarizeOnce(t *testing.T) {
	srv := redistest.Start(t)
	reps := make([]replica, 4)
	for i := range reps {
		reps[i] = newReplica(t, client(t, srv), nil, false)
	}
	msgs := conv("search", 6)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := copies(msgs)
			st := &hooks.State{Messages: mine}
			r, err := reps[i%4].hook.Decide(context.Background(), st)
			if err != nil || !r.Compacted {
				errs <- fmt.Errorf("run %d: err=%v compacted=%v", i, err, r.Compacted)
				return
			}
			if len(st.Messages) >= len(mine) {
				errs <- fmt.Errorf("run %d: not smaller", i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	for _, r := range reps {
		total += r.summarizerCalls()
	}
	if total != 1 {
		t.Fatalf("%d summarizer calls over 4 replicas, want 1", total)
	}
}

// TestRedisPoisonedEntryNeverApplied: an entry under a conversation's key
// that is not what the hook wrote for it (another envelope version, another
// encoding version inside, truncated, or another conversation's entry
// copied to this key) is never applied: the replica summarizes itself.
func TestRedisPoisonedEntryNeverApplied(t *testing.T) {
	srv := redistest.Start(t)
	admin := client(t, srv)
	ctx := context.Background()
	// Replica A publishes the genuine entries of two conversations.
	a := newReplica(t, client(t, srv), nil, false)
	entries := map[string][]byte{}
	for _, task := range []string{"alpha", "beta"} {
		if r, err := a.hook.Decide(ctx, &hooks.State{Messages: conv(task, 6)}); err != nil || !r.Compacted {
			t.Fatalf("A on %s: err=%v compacted=%v", task, err, r.Compacted)
		}
		if err := a.hook.Close(ctx); err != nil { // waits for the publication
			t.Fatal(err)
		}
		keys, err := admin.Keys(ctx, "test:{*}:entry").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if _, seen := entries[k]; !seen {
				v, err := admin.Get(ctx, k).Bytes()
				if err != nil {
					t.Fatal(err)
				}
				entries[k] = v
				entries[task] = []byte(k)
			}
		}
		a = newReplica(t, client(t, srv), nil, false)
	}
	alphaKey, genuine, beta := string(entries["alpha"]), entries[string(entries["alpha"])], entries[string(entries["beta"])]
	if alphaKey == "" || genuine == nil || beta == nil {
		t.Fatalf("entries published: %d, want one per conversation", len(entries)/2)
	}
	tests := []struct {
		name  string
		value []byte
		apply bool
	}{
		{"genuine (control)", genuine, true},
		{"another envelope version", append([]byte("einocompact-redis/2\n"), bytes.TrimPrefix(genuine, envelope)...), false},
		{"another encoding version", bytes.Replace(genuine, []byte(`"v":1`), []byte(`"v":2`), 1), false},
		{"truncated", genuine[:len(genuine)/2], false},
		{"another conversation's entry", beta, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := admin.Set(ctx, alphaKey, tc.value, time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
			b := newReplica(t, client(t, srv), nil, false)
			now := copies(conv("alpha", 6))
			st := &hooks.State{Messages: now}
			r, err := b.hook.Decide(ctx, st)
			if err != nil || !r.Compacted || r.Shared != tc.apply {
				t.Fatalf("err=%v compacted=%v shared=%v, want shared=%v", err, r.Compacted, r.Shared, tc.apply)
			}
			if calls, want := b.summarizerCalls(), map[bool]int{true: 0, false: 1}[tc.apply]; calls != want {
				t.Fatalf("B's summarizer calls %d, want %d", calls, want)
			}
			checkKept(t, now, st.Messages)
		})
	}
}

// TestRedisKilledMidRun: Redis dies while replica A summarizes a
// conversation that replica B waits for. Both runs finish compacted with
// nothing lost, each on its own; after Redis returns, sharing resumes.
func TestRedisKilledMidRun(t *testing.T) {
	srv := redistest.Start(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := func(*openaitest.Request) (*openaitest.Reply, error) {
		once.Do(func() { close(entered) })
		<-release
		return openaitest.Text("The agent ran the build steps; the compiler output repeated one line."), nil
	}
	a, b := newReplica(t, client(t, srv), slow, false), newReplica(t, client(t, srv), nil, false)
	ctx := context.Background()
	type outcome struct {
		r      compaction.Report
		err    error
		before []*schema.Message
		after  []*schema.Message
	}
	run := func(rep replica, msgs []*schema.Message) <-chan outcome {
		ch := make(chan outcome, 1)
		go func() {
			st := &hooks.State{Messages: msgs}
			r, err := rep.hook.Decide(ctx, st)
			ch <- outcome{r, err, msgs, st.Messages}
		}()
		return ch
	}
	doneA := run(a, conv("deploy", 6))
	<-entered // A holds the lease and is summarizing
	doneB := run(b, copies(conv("deploy", 6)))
	srv.Stop()
	close(release)
	for name, ch := range map[string]<-chan outcome{"A": doneA, "B": doneB} {
		o := <-ch
		if o.err != nil || !o.r.Compacted || o.r.Shared {
			t.Fatalf("%s: err=%v compacted=%v shared=%v, want its own compaction", name, o.err, o.r.Compacted, o.r.Shared)
		}
		checkKept(t, o.before, o.after)
	}
	if b.summarizerCalls() != 1 {
		t.Fatalf("B's summarizer calls %d, want 1 (its own fallback)", b.summarizerCalls())
	}

	srv.Restart()
	if r, err := a.hook.Decide(ctx, &hooks.State{Messages: conv("release", 6)}); err != nil || !r.Compacted {
		t.Fatalf("A after Redis returned: err=%v compacted=%v", err, r.Compacted)
	}
	if err := a.hook.Close(ctx); err != nil { // waits for the publication
		t.Fatal(err)
	}
	before := b.summarizerCalls()
	r, err := b.hook.Decide(ctx, &hooks.State{Messages: copies(conv("release", 6))})
	if err != nil || !r.Compacted || !r.Shared || b.summarizerCalls() != before {
		t.Fatalf("B after Redis returned: err=%v compacted=%v shared=%v summarizer calls +%d; want A's compaction",
			err, r.Compacted, r.Shared, b.summarizerCalls()-before)
	}
}

// TestRedisStoreRejectsBadConfig: every setting is validated, naming it.
func TestRedisStoreRejectsBadConfig(t *testing.T) {
	t.Parallel()
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	seal := func(b []byte) ([]byte, error) { return b, nil }
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no client", Config{}, "Client"},
		{"hash tag in prefix", Config{Client: c, KeyPrefix: "a{b}"}, "KeyPrefix"},
		{"negative cap", Config{Client: c, MaxEntryBytes: -1}, "MaxEntryBytes"},
		{"negative poll", Config{Client: c, PollInterval: -1}, "PollInterval"},
		{"negative index TTL", Config{Client: c, IndexTTL: -1}, "IndexTTL"},
		{"seal without open", Config{Client: c, Seal: seal}, "Seal"},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err=%v, want one naming %s", tc.name, err, tc.want)
		}
	}
}

// TestRedisSealedEntries: with Seal and Open, what Redis holds is the
// sealed form (no summary text readable there), replicas sharing the
// key still apply each other's compactions, and one whose Open refuses
// an entry (another key) compacts itself.
func TestRedisSealedEntries(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	sealer := func(key byte) (func([]byte) ([]byte, error), func([]byte) ([]byte, error)) {
		xor := func(b []byte) []byte {
			out := make([]byte, len(b))
			for i, c := range b {
				out[i] = c ^ key
			}
			return out
		}
		seal := func(plain []byte) ([]byte, error) { return append([]byte{key}, xor(plain)...), nil }
		open := func(sealed []byte) ([]byte, error) {
			if len(sealed) == 0 || sealed[0] != key {
				return nil, errors.New("sealed with another key")
			}
			return xor(sealed[1:]), nil
		}
		return seal, open
	}
	withSeal := func(key byte) func(*Config) {
		return func(c *Config) { c.Seal, c.Open = sealer(key) }
	}
	a := newReplica(t, client(t, srv), nil, false, withSeal(7))
	if r, err := a.hook.Decide(ctx, &hooks.State{Messages: conv("ledger", 6)}); err != nil || !r.Compacted {
		t.Fatalf("A: err=%v compacted=%v", err, r.Compacted)
	}
	if err := a.hook.Close(ctx); err != nil {
		t.Fatal(err)
	}
	admin := client(t, srv)
	keys, err := admin.Keys(ctx, "test:{*}:entry").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("entries %v, err %v; want one", keys, err)
	}
	raw, err := admin.Get(ctx, keys[0]).Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("compiler output")) || bytes.Contains(raw, []byte("Fix the build")) {
		t.Fatal("the stored entry holds conversation text in the clear")
	}
	for _, tc := range []struct {
		name  string
		key   byte
		apply bool
	}{{"same key", 7, true}, {"another key", 9, false}} {
		b := newReplica(t, client(t, srv), nil, false, withSeal(tc.key))
		r, err := b.hook.Decide(ctx, &hooks.State{Messages: copies(conv("ledger", 6))})
		if err != nil || !r.Compacted || r.Shared != tc.apply {
			t.Fatalf("%s: err=%v compacted=%v shared=%v, want shared=%v", tc.name, err, r.Compacted, r.Shared, tc.apply)
		}
	}
}
