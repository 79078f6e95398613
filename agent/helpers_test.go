package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/openaitest"
)

// lookupTool is a tool whose result repeats its argument, so tests can tell
// results apart and size them.
type lookupTool struct{ name string }

func (t lookupTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: t.name,
		Desc: "looks a key up",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"key": {Type: schema.String, Required: true},
		}),
	}, nil
}

func (t lookupTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct{ Key string }
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s(%s)=ok", t.name, in.Key), nil
}

// newTestAgent starts a fake server with script and builds an agent on the
// real eino-ext client pointed at it.
func newTestAgent(t *testing.T, cfg Config, script ...*openaitest.Reply) (*Agent, *openaitest.Server) {
	t.Helper()
	srv := openaitest.Start(t, openaitest.Script(script...))
	cm, err := srv.ChatModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model = cm
	if cfg.Logger == nil {
		cfg.Logger = quietLogger
	}
	a, err := New(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, srv
}

// newConversationalAgent answers every request the same way, whatever came
// before: a lookup of the last user text, then "done" once a tool result is
// last. Runs can be repeated and run concurrently.
func newConversationalAgent(t *testing.T, cfg Config) (*Agent, *openaitest.Server) {
	t.Helper()
	srv := openaitest.Start(t, func(r *openaitest.Request) (*openaitest.Reply, error) {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			return openaitest.Text("done"), nil
		}
		return openaitest.Call(call("c1", last.Content.Text)), nil
	})
	cm, err := srv.ChatModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model, cfg.Logger = cm, quietLogger
	a, err := New(context.Background(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a, srv
}

// quietLogger keeps expected warnings (budget exhausted) out of test output.
var quietLogger = slog.New(slog.DiscardHandler)

func mustRegister(t *testing.T, r *hooks.Registry, p hooks.Point, h hooks.Hook) {
	t.Helper()
	if err := r.Register(p, h); err != nil {
		t.Fatal(err)
	}
}

func roles(msgs []*schema.Message) string {
	out := ""
	for _, m := range msgs {
		switch {
		case m.Role == schema.System:
			out += "S"
		case m.Role == schema.User:
			out += "U"
		case m.Role == schema.Tool:
			out += "T"
		case len(m.ToolCalls) > 0:
			out += "C"
		default:
			out += "A"
		}
	}
	return out
}

func call(id, key string) openaitest.ToolCall {
	return openaitest.Fn(id, "lookup", fmt.Sprintf(`{"key":%q}`, key))
}

var lookup = lookupTool{name: "lookup"}
