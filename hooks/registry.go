package hooks

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// Registry holds the hooks registered at each Point and runs them.
//
// Register is not safe for concurrent use: build the registry first, then share
// it. Once registration is done, Run, WarmUp and Close are safe to call from
// many goroutines, as many agent runs may share one registry. The zero value is
// not usable; call NewRegistry.
type Registry struct {
	byPoint map[Point][]entry
	// distinct lists each registered hook once, in first-registration order.
	distinct []Hook
}

type entry struct {
	hook Hook
	name string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byPoint: make(map[Point][]entry)}
}

// Register adds hook at point, after any hooks already there. It returns an
// error for an unknown point, a nil hook, or a point the hook's AllowedPoints
// does not include. The same hook may be registered at several points.
func (r *Registry) Register(point Point, hook Hook) error {
	if !point.Valid() {
		return fmt.Errorf("hooks: unknown hook point %q (valid points: %v)", point, Points())
	}
	if IsNil(hook) {
		return fmt.Errorf("hooks: nil hook registered at %q", point)
	}
	name := HookName(hook)
	if pl, ok := hook.(PointLimiter); ok {
		allowed := pl.AllowedPoints()
		if !slices.Contains(allowed, point) {
			return fmt.Errorf("hooks: %s cannot run at %q; it allows only %v", name, point, allowed)
		}
	}
	r.byPoint[point] = append(r.byPoint[point], entry{hook: hook, name: name})
	if !slices.ContainsFunc(r.distinct, func(h Hook) bool { return sameHook(h, hook) }) {
		r.distinct = append(r.distinct, hook)
	}
	return nil
}

// Hooks returns the hooks registered at point, in registration order.
func (r *Registry) Hooks(point Point) []Hook {
	if r == nil {
		return nil
	}
	out := make([]Hook, 0, len(r.byPoint[point]))
	for _, e := range r.byPoint[point] {
		out = append(out, e.hook)
	}
	return out
}

// Len reports how many hooks are registered at point.
func (r *Registry) Len(point Point) int {
	if r == nil {
		return 0
	}
	return len(r.byPoint[point])
}

// Run runs the hooks registered at point in registration order, each seeing
// the changes of the ones before. The first error stops the rest; it comes
// back wrapped with the point and the hook's name, so errors.Is and errors.As
// still find the original. A nil registry runs nothing.
func (r *Registry) Run(ctx context.Context, point Point, state *State) error {
	if r == nil {
		return nil
	}
	if !point.Valid() {
		return fmt.Errorf("hooks: unknown hook point %q", point)
	}
	if state == nil {
		return fmt.Errorf("hooks: nil state at %q", point)
	}
	for _, e := range r.byPoint[point] {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("hooks: %s at %s: %w", e.name, point, err)
		}
		if err := runOne(ctx, e.hook, state); err != nil {
			return fmt.Errorf("hooks: %s at %s: %w", e.name, point, err)
		}
	}
	return nil
}

// runOne turns a panicking hook into an error so one bad hook cannot take
// down the process hosting many agent runs.
func runOne(ctx context.Context, h Hook, state *State) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrHookPanic, p)
		}
	}()
	return h.Run(ctx, state)
}

// ErrHookPanic is wrapped by the error Run returns when a hook panicked.
var ErrHookPanic = errors.New("hook panicked")

// WarmUp calls WarmUp on every distinct registered hook that implements
// WarmUpper, once each, in registration order, stopping at the first error.
func (r *Registry) WarmUp(ctx context.Context) error {
	if r == nil {
		return nil
	}
	for _, h := range r.distinct {
		w, ok := h.(WarmUpper)
		if !ok {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("hooks: warm up %s: %w", HookName(h), err)
		}
		if err := w.WarmUp(ctx); err != nil {
			return fmt.Errorf("hooks: warm up %s: %w", HookName(h), err)
		}
	}
	return nil
}

// Close calls Close on every distinct registered hook that implements Closer,
// once each, in reverse registration order. Every hook is attempted; the
// errors are joined.
func (r *Registry) Close(ctx context.Context) error {
	if r == nil {
		return nil
	}
	var errs []error
	for _, h := range slices.Backward(r.distinct) {
		c, ok := h.(Closer)
		if !ok {
			continue
		}
		if err := c.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("hooks: close %s: %w", HookName(h), err))
		}
	}
	return errors.Join(errs...)
}

// HookName is a short human name for a hook used in errors and logs: its
// Name() when it has one, else its dynamic type.
func HookName(h Hook) string {
	if n, ok := h.(interface{ Name() string }); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", h)
}

// IsNil reports whether h is nil or an interface holding a nil pointer,
// func, map, slice or channel: a value that would panic when run.
func IsNil(h Hook) bool {
	if h == nil {
		return true
	}
	v := reflect.ValueOf(h)
	switch v.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Slice, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// sameHook compares hooks without panicking on uncomparable dynamic types.
// Func values and other uncomparable hooks are always distinct: two closures
// of one literal share a code pointer but not their captured state, so no
// identity test would be right for them. The check is on the values, not
// the type: a struct type with an interface field is comparable, yet == on
// two of them panics when the field holds a Func. Lifecycle hooks are
// normally pointers, which compare exactly.
func sameHook(a, b Hook) bool {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.Comparable() || !vb.Comparable() {
		return false
	}
	return a == b
}
