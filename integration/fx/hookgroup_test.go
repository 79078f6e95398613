package compactfx

import (
	"context"
	"testing"

	"github.com/einocompact/einocompact/hooks"
)

// hookgroupValueHook is a comparable struct type whose value may not be: its
// interface field can hold a func, and hashing such a value panics.
type hookgroupValueHook struct{ extra any }

func (hookgroupValueHook) Run(context.Context, *hooks.State) error { return nil }

func TestRegistryFromEntriesAcceptsUnhashableHookValues(t *testing.T) {
	t.Parallel()
	h := hookgroupValueHook{extra: func() {}}
	var reg *hooks.Registry
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("newRegistryFromEntries panicked: %v", p)
			}
		}()
		reg, err = newRegistryFromEntries([]HookEntry{{Point: hooks.BeforeLLM, Hook: h}, {Point: hooks.AfterRun, Hook: h}})
	}()
	if err != nil {
		t.Fatal(err)
	}
	if n := reg.Len(hooks.BeforeLLM) + reg.Len(hooks.AfterRun); n != 2 {
		t.Errorf("registered %d hooks, want 2", n)
	}
}

// unwrapHook returns the hook a registry built by newRegistryFromEntries
// (and so by Module) holds behind h, or h itself when it is not wrapped.
func unwrapHook(h hooks.Hook) hooks.Hook {
	if o, ok := h.(*onceHook); ok {
		return o.Hook
	}
	return h
}
