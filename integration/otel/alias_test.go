package otel_test

import (
	"reflect"
	"testing"

	"github.com/einocompact/einocompact/integration/compactotel"
	"github.com/einocompact/einocompact/integration/otel"
)

// Code written against the old path keeps compiling and means the same.
func TestOldPathNamesAreCompactotels(t *testing.T) {
	t.Parallel()
	if reflect.TypeOf(otel.Observer{}) != reflect.TypeOf(compactotel.Observer{}) {
		t.Error("otel.Observer is not compactotel.Observer")
	}
	if reflect.ValueOf(otel.NewObserver).Pointer() != reflect.ValueOf(compactotel.NewObserver).Pointer() {
		t.Error("otel.NewObserver is not compactotel.NewObserver")
	}
}
