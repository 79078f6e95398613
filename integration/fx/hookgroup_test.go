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

func TestNewRegistryFromEntriesAcceptsUnhashableHookValues(t *testing.T) {
	t.Parallel()
	h := hookgroupValueHook{extra: func() {}}
	var reg *hooks.Registry
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("NewRegistryFromEntries panicked: %v", p)
			}
		}()
		reg, err = NewRegistryFromEntries([]HookEntry{{Point: hooks.BeforeLLM, Hook: h}, {Point: hooks.AfterRun, Hook: h}})
	}()
	if err != nil {
		t.Fatal(err)
	}
	if n := reg.Len(hooks.BeforeLLM) + reg.Len(hooks.AfterRun); n != 2 {
		t.Errorf("registered %d hooks, want 2", n)
	}
}
