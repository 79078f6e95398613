package compactfx

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"go.uber.org/fx"

	"github.com/einocompact/einocompact/hooks"
)

// HookGroup is the fx value group the registry is assembled from. Tag a
// constructor's HookEntry result with `group:"einocompact.hooks"` (AsHook
// does it for you), or a []HookEntry result with
// `group:"einocompact.hooks,flatten"`.
const HookGroup = "einocompact.hooks"

// Orders of the hooks Module contributes. Applications place their own hooks
// around them: a BeforeLLM hook with a lower Order sees the conversation
// before compaction, one with a higher Order sees it after.
const (
	// OrderCompaction is the Order of the CompactionHook.
	OrderCompaction = 0
)

// HookEntry is one hook contributed to the registry: the hook and the point
// it runs at.
type HookEntry struct {
	// Point is where the hook runs. Required.
	Point hooks.Point
	// Hook is the hook. Required.
	Hook hooks.Hook
	// Order sorts the hooks registered at one point, lowest first. fx hands
	// value groups over in random order, so hooks whose relative order
	// matters must differ in Order. Ties are broken by Name, then by the
	// hook's name (hooks.HookName). Default 0.
	Order int
	// Name identifies the entry in errors. Default: hooks.HookName(Hook).
	Name string
}

func (e HookEntry) name() string {
	if e.Name != "" {
		return e.Name
	}
	if hooks.IsNil(e.Hook) {
		return fmt.Sprintf("<nil %T>", e.Hook)
	}
	return hooks.HookName(e.Hook)
}

// AsHook annotates constructor, a function returning a HookEntry (and
// optionally an error), so that its result joins HookGroup:
//
//	fx.Provide(compactfx.AsHook(func(log *slog.Logger) compactfx.HookEntry {
//		return compactfx.HookEntry{Point: hooks.AfterTool, Hook: newAuditHook(log)}
//	}))
func AsHook(constructor any) any {
	return fx.Annotate(constructor, fx.ResultTags(`group:"`+HookGroup+`"`))
}

// registryIn collects the hook group from the container.
type registryIn struct {
	fx.In
	Entries []HookEntry `group:"einocompact.hooks"`
}

func provideRegistry(in registryIn) (*hooks.Registry, error) {
	return newRegistryFromEntries(in.Entries)
}

// newRegistryFromEntries registers entries into a new registry, sorted by
// Point (in run order), Order and name. An entry with an invalid point or a
// nil hook is an error naming the entry.
//
// Each hook is registered behind a wrapper whose WarmUp succeeds at most once
// and whose Close runs once, however many times the registry is warmed or
// closed (the fx lifecycle and agent.Agent both warm it). The wrapper keeps
// the hook's Name and AllowedPoints; its Unwrap method returns the hook.
// A hook contributed at several points is wrapped once and so still counts
// as one distinct hook.
func newRegistryFromEntries(entries []HookEntry) (*hooks.Registry, error) {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b HookEntry) int {
		return cmp.Or(
			cmp.Compare(slices.Index(hooks.Points(), a.Point), slices.Index(hooks.Points(), b.Point)),
			cmp.Compare(a.Order, b.Order),
			cmp.Compare(a.name(), b.name()),
		)
	})
	reg := hooks.NewRegistry()
	wrapped := make(map[hooks.Hook]*onceHook)
	for _, e := range sorted {
		h := e.Hook
		switch {
		case hooks.IsNil(h):
			// Left unwrapped so that Register reports the nil hook.
		case reflect.ValueOf(h).Comparable():
			// The value, not the type: a comparable struct type can still
			// hold a func in an interface field, and hashing that panics.
			if wrapped[h] == nil {
				wrapped[h] = &onceHook{Hook: h}
			}
			h = wrapped[h]
		default:
			h = &onceHook{Hook: h}
		}
		if err := reg.Register(e.Point, h); err != nil {
			return nil, fmt.Errorf("compactfx: hook entry %s (order %d): %w", e.name(), e.Order, err)
		}
	}
	return reg, nil
}
