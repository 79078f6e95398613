package hooks

import (
	"context"
	"testing"
)

type hooknameNamed struct{}

func (hooknameNamed) Run(context.Context, *State) error { return nil }
func (hooknameNamed) Name() string                      { return "my-hook" }

type hooknameBare struct{}

func (*hooknameBare) Run(context.Context, *State) error { return nil }

// TestHookName: a hook's own Name() wins; otherwise its dynamic type names it.
func TestHookName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		hook Hook
		want string
	}{
		{hooknameNamed{}, "my-hook"},
		{&hooknameBare{}, "*hooks.hooknameBare"},
		{Func(func(context.Context, *State) error { return nil }), "hooks.Func"},
	}
	for _, tt := range tests {
		if got := HookName(tt.hook); got != tt.want {
			t.Errorf("HookName(%T) = %q, want %q", tt.hook, got, tt.want)
		}
	}
}
