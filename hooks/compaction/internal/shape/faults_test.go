package shape

import (
	"reflect"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestPairingFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msgs []*schema.Message
		want []string
	}{
		{"clean", fresh(), nil},
		{"orphan result", []*schema.Message{user("u"), result("x", "r")}, []string{"result x"}},
		{"call without result", []*schema.Message{user("u"), call("a"), asst("done")}, []string{"call a"}},
		{"trailing in-flight call", []*schema.Message{user("u"), call("a")}, nil},
		{"partial parallel results", []*schema.Message{call("a", "b"), result("a", "r"), user("next")}, []string{"call b"}},
		{"result after a system message", []*schema.Message{call("a"), sys("mid"), result("a", "r"), asst("x")}, []string{"call a", "result a"}},
		{"a second result after the run ended", []*schema.Message{call("a"), result("a", "r"), user("x"), result("a", "again")}, []string{"result a"}},
		{"result of an older call after a newer one", []*schema.Message{call("a"), result("a", "r"), call("b"), result("a", "late"), result("b", "r")}, []string{"result a"}},
	}
	for _, tc := range tests {
		got := Faults(tc.msgs)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
