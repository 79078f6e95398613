package compactfx

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written in YAML as a Go duration string such as
// "90s" or "2m". A bare number is rejected: "timeout: 60" would otherwise
// mean sixty nanoseconds.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		// A TypeError lets the decoder report it with the others, and the
		// line prefix lets DecodeStrict name the key.
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a duration (write it with a unit, like 30s or 2m)", n.Line, n.Value)}}
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler so a Config round-trips.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }
