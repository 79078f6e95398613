package hooks

import (
	"context"
	"testing"
)

// samehookWrapper is a comparable struct type whose field may hold an
// uncomparable value, such as a Func: == on two of them panics at run time.
type samehookWrapper struct{ inner Hook }

func (w samehookWrapper) Run(ctx context.Context, s *State) error { return w.inner.Run(ctx, s) }

// TestRegisterWrapperAroundFuncAtTwoPoints: registering a value-type wrapper
// around a Func at two points must neither panic nor fail, and the two
// registrations count as distinct hooks since their identity cannot be told.
func TestRegisterWrapperAroundFuncAtTwoPoints(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	noop := Func(func(context.Context, *State) error { return nil })
	for _, p := range []Point{BeforeLLM, AfterTool} {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("Register at %s panicked: %v", p, v)
				}
			}()
			if err := r.Register(p, samehookWrapper{inner: noop}); err != nil {
				t.Fatalf("Register at %s: %v", p, err)
			}
		}()
	}
	if r.Len(BeforeLLM) != 1 || r.Len(AfterTool) != 1 {
		t.Fatalf("hooks registered: %d at before_llm, %d at after_tool; want 1 and 1", r.Len(BeforeLLM), r.Len(AfterTool))
	}
}
