package hooks

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// recorder is a lifecycle-aware hook that logs every call into a shared log.
type recorder struct {
	name     string
	log      *[]string
	mu       *sync.Mutex
	warmErr  error
	closeErr error
	runErr   error
	allowed  []Point
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.log = append(*r.log, r.name+":"+s)
}

func (r *recorder) Run(_ context.Context, s *State) error {
	r.add("run")
	s.StepCount++
	return r.runErr
}
func (r *recorder) WarmUp(context.Context) error { r.add("warm"); return r.warmErr }
func (r *recorder) Close(context.Context) error  { r.add("close"); return r.closeErr }
func (r *recorder) Name() string                 { return r.name }

type limited struct{ recorder }

func (l *limited) AllowedPoints() []Point { return l.allowed }

func newRecorders(names ...string) ([]*recorder, *[]string) {
	var log []string
	mu := &sync.Mutex{}
	out := make([]*recorder, len(names))
	for i, n := range names {
		out[i] = &recorder{name: n, log: &log, mu: mu}
	}
	return out, &log
}

func TestRegisterValidates(t *testing.T) {
	t.Parallel()
	var nilRec *recorder
	var nilFunc Func
	lim := &limited{recorder{name: "lim", allowed: []Point{BeforeLLM}}}
	tests := []struct {
		name    string
		point   Point
		hook    Hook
		wantErr string
	}{
		{"valid", BeforeLLM, Func(func(context.Context, *State) error { return nil }), ""},
		{"unknown point", Point("before_lunch"), Func(func(context.Context, *State) error { return nil }), `unknown hook point "before_lunch"`},
		{"empty point", Point(""), Func(func(context.Context, *State) error { return nil }), "unknown hook point"},
		{"nil interface", AfterRun, nil, "nil hook"},
		{"typed nil pointer", AfterRun, nilRec, "nil hook"},
		{"nil func", AfterRun, nilFunc, "nil hook"},
		{"allowed point", BeforeLLM, lim, ""},
		{"disallowed point", AfterTool, lim, `lim cannot run at "after_tool"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := NewRegistry().Register(tc.point, tc.hook)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Register: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Register error = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestRunOrderAndFirstErrorStops(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("boom")
	recs, log := newRecorders("a", "b", "c")
	recs[1].runErr = sentinel
	r := NewRegistry()
	for _, rec := range recs {
		if err := r.Register(AfterTool, rec); err != nil {
			t.Fatal(err)
		}
	}
	state := &State{}
	err := r.Run(context.Background(), AfterTool, state)
	if !errors.Is(err, sentinel) {
		t.Fatalf("Run error = %v, want it to wrap the hook's error", err)
	}
	for _, want := range []string{"b", "after_tool"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if got := strings.Join(*log, ","); got != "a:run,b:run" {
		t.Errorf("ran %q, want a then b and not c", got)
	}
	if state.StepCount != 2 {
		t.Errorf("hooks shared state: StepCount = %d, want 2", state.StepCount)
	}
	// Other points are untouched.
	if err := r.Run(context.Background(), BeforeRun, state); err != nil {
		t.Fatalf("empty point: %v", err)
	}
}

func TestRunRecoversPanics(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	if err := r.Register(OnExit, Func(func(context.Context, *State) error { panic("kaboom") })); err != nil {
		t.Fatal(err)
	}
	err := r.Run(context.Background(), OnExit, &State{})
	if !errors.Is(err, ErrHookPanic) || !strings.Contains(err.Error(), "kaboom") {
		t.Fatalf("Run = %v, want ErrHookPanic mentioning the panic value", err)
	}
}

func TestRunHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	called := false
	r := NewRegistry()
	_ = r.Register(BeforeLLM, Func(func(context.Context, *State) error { called = true; return nil }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Run(ctx, BeforeLLM, &State{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if called {
		t.Error("a hook ran under a cancelled context")
	}
}

func TestLifecycleReachesEachHookOnce(t *testing.T) {
	t.Parallel()
	recs, log := newRecorders("a", "b")
	r := NewRegistry()
	fn := Func(func(context.Context, *State) error { return nil })
	// a at three points, b at one, and uncomparable Funcs in between: no panic.
	for _, p := range []Point{BeforeRun, BeforeLLM, AfterRun} {
		if err := r.Register(p, recs[0]); err != nil {
			t.Fatal(err)
		}
		if err := r.Register(p, fn); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Register(AfterTool, recs[1]); err != nil {
		t.Fatal(err)
	}
	if err := r.WarmUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(*log, ","); got != "a:warm,b:warm,b:close,a:close" {
		t.Errorf("lifecycle calls %q, want each hook warmed once in order and closed once in reverse", got)
	}
}

func TestCloseAttemptsAllAndJoins(t *testing.T) {
	t.Parallel()
	e1, e2 := errors.New("first"), errors.New("second")
	recs, log := newRecorders("a", "b", "c")
	recs[0].closeErr, recs[2].closeErr = e1, e2
	r := NewRegistry()
	for _, rec := range recs {
		_ = r.Register(BeforeRun, rec)
	}
	err := r.Close(context.Background())
	if !errors.Is(err, e1) || !errors.Is(err, e2) {
		t.Fatalf("Close = %v, want both errors joined", err)
	}
	if len(*log) != 3 {
		t.Errorf("Close reached %v, want all three hooks", *log)
	}
}

func TestWarmUpStopsAtFirstError(t *testing.T) {
	t.Parallel()
	bad := errors.New("no tokenizer")
	recs, log := newRecorders("a", "b")
	recs[0].warmErr = bad
	r := NewRegistry()
	_ = r.Register(BeforeRun, recs[0])
	_ = r.Register(BeforeRun, recs[1])
	if err := r.WarmUp(context.Background()); !errors.Is(err, bad) {
		t.Fatalf("WarmUp = %v", err)
	}
	if got := strings.Join(*log, ","); got != "a:warm" {
		t.Errorf("warm-up went on after an error: %q", got)
	}
}

func TestNilRegistryIsANoOp(t *testing.T) {
	t.Parallel()
	var r *Registry
	if err := r.Run(context.Background(), BeforeLLM, &State{}); err != nil {
		t.Error(err)
	}
	if err := r.WarmUp(context.Background()); err != nil {
		t.Error(err)
	}
	if err := r.Close(context.Background()); err != nil {
		t.Error(err)
	}
	if r.Len(BeforeLLM) != 0 || r.Hooks(BeforeLLM) != nil {
		t.Error("nil registry reports hooks")
	}
}

func TestConcurrentRuns(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	_ = r.Register(BeforeLLM, Func(func(_ context.Context, s *State) error { s.StepCount++; return nil }))
	_ = r.Register(BeforeLLM, Func(func(_ context.Context, s *State) error { s.StepCount *= 10; return nil }))
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			s := &State{StepCount: i}
			if err := r.Run(context.Background(), BeforeLLM, s); err != nil {
				t.Error(err)
			}
			if s.StepCount != (i+1)*10 {
				t.Errorf("run %d: StepCount %d", i, s.StepCount)
			}
		})
	}
	wg.Wait()
}

func TestPointsValid(t *testing.T) {
	t.Parallel()
	if len(Points()) != 6 {
		t.Fatalf("Points() = %v", Points())
	}
	for _, p := range Points() {
		if !p.Valid() {
			t.Errorf("%q not valid", p)
		}
	}
	if Point("BEFORE_LLM").Valid() {
		t.Error("points are case-sensitive")
	}
}

func TestIsNil(t *testing.T) {
	t.Parallel()
	var nilRec *recorder
	var nilFunc Func
	tests := []struct {
		name string
		h    Hook
		want bool
	}{
		{"nil interface", nil, true},
		{"typed nil pointer", nilRec, true},
		{"nil func", nilFunc, true},
		{"pointer", &recorder{}, false},
		{"func", Func(func(context.Context, *State) error { return nil }), false},
	}
	for _, tc := range tests {
		if got := IsNil(tc.h); got != tc.want {
			t.Errorf("%s: IsNil = %v, want %v", tc.name, got, tc.want)
		}
	}
}
