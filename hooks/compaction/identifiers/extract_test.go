package identifiers

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestExtractors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ex   Extractor
		text string
		want []string
	}{
		{"url plain", URLs(), "see https://example.com/a?b=1&c=2 now", []string{"https://example.com/a?b=1&c=2"}},
		{"url sentence end", URLs(), "docs at http://x.io/p.", []string{"http://x.io/p"}},
		{"url in parens", URLs(), "(see https://x.io/a_(b))", []string{"https://x.io/a_(b)"}},
		{"url unbalanced paren", URLs(), "(see https://x.io/a)", []string{"https://x.io/a"}},
		{"url other scheme", URLs(), "dsn=postgres://u@db:5432/app", []string{"postgres://u@db:5432/app"}},
		{"url in json escape ends", URLs(), `{"u": "https://a.b/c\nnext"}`, []string{"https://a.b/c"}},
		{"url no host", URLs(), "a :// b", nil},
		{"abs path", Paths(), "open /etc/hosts and /var/log/syslog.", []string{"/etc/hosts", "/var/log/syslog"}},
		{"home and dot paths", Paths(), "~/x/y ./run.sh ../up", []string{"~/x/y", "./run.sh", "../up"}},
		{"relative with ext and line", Paths(), "hooks/compaction/render.go:42:7 failed", []string{"hooks/compaction/render.go"}},
		{"bare known ext", Paths(), "edit go.mod and main.py, not fmt.Println or example.com", []string{"go.mod", "main.py"}},
		{"no ext relative", Paths(), "and/or input/output", nil},
		{"windows", Paths(), `wrote C:\Users\me\a.txt`, []string{`C:\Users\me\a.txt`}},
		{"path after key", Paths(), "path=/tmp/x file:/srv/y", []string{"/tmp/x", "/srv/y"}},
		{"comment slashes", Paths(), "// not a path", nil},
		{"url is not path", Paths(), "https://a.b/c.go", nil},
		{"uuid", UUIDs(), "run 550e8400-e29b-41d4-a716-446655440000 ok", []string{"550e8400-e29b-41d4-a716-446655440000"}},
		{"uuid glued", UUIDs(), "req-550E8400-E29B-41D4-A716-446655440000-x", []string{"550E8400-E29B-41D4-A716-446655440000"}},
		{"uuid wrong groups", UUIDs(), "550e8400-e29b-41d4-a716-44665544000", nil},
		{"hash", Hashes(), "commit 3fab97f and a1b2c3d4e5f6a7b8c9d0", []string{"3fab97f", "a1b2c3d4e5f6a7b8c9d0"}},
		{"hash needs digit and letter", Hashes(), "1234567 defaced abc123", nil},
		{"hash word bounded", Hashes(), "call_abc1234 xabc1234", nil},
		{"hash not inside uuid", Hashes(), "550e8400-e29b-41d4-a716-446655440000", nil},
		{"tool call ids", ToolCallIDs(), "[assistant -> tool_call id=call_1] f({})\n[tool:f id=call_1] ok\n[user] [tool:f id=fake] x", []string{"call_1", "call_1"}},
		{"tool call id needs header", ToolCallIDs(), "[user id=u1] hi\n[tool:a b id=x] y", nil},
		{"quoted errors", QuotedErrors(), `got "connection refused: dial tcp" and 'permission denied' but "error" alone`, []string{"connection refused: dial tcp", "permission denied"}},
		{"apostrophes do not pair", QuotedErrors(), "don't fail, it's fine", nil},
		{"escaped quotes kept", QuotedErrors(), `{"msg": "open \"x\": no such file"}`, []string{`open \"x\": no such file`}},
		{"error lines", ErrorLines(), "[tool:go id=1] FAIL: TestX (0.01s)\nok\n--- FAIL: TestY\nTypeError: x is undefined\nerror\n  panic: boom", []string{"FAIL: TestX (0.01s)", "FAIL: TestY", "TypeError: x is undefined", "panic: boom"}},
		{"error word mid line", ErrorLines(), "no error here", nil},
		{"arguments", Arguments(DefaultArgumentKeys()...), `{"path": "src/a.go", "limit": 5, "userId": 42, "valid": "yes", "file_path":"b", "targetURL": "u"}`, []string{"src/a.go", "42", "b", "u"}},
		{"argument escapes", Arguments("query"), `{"query":"say \"hi\""}`, []string{`say \"hi\"`}},
		{"argument too long", Arguments("query"), `{"query": "` + strings.Repeat("q", 301) + `"}`, nil},
		{"no keys", Arguments(), `{"path": "a"}`, nil},
		{"attachments", Attachments(), "[user] <image: image/png, url=https://x.io/a.png> and <file: report.pdf, application/pdf> <image: >", []string{"<image: image/png, url=https://x.io/a.png>", "<file: report.pdf, application/pdf>"}},
		{"camel and snake keys", Arguments("id", "path"), `{"ID": "a", "user_id": "b", "paid": "c", "userID": "d", "filePath": "e", "XPATH": "f"}`, []string{"a", "b", "d", "e"}},
		{"regexp group", Regexp("ticket", regexp.MustCompile(`\b(JIRA-\d+)\b`)), "fix JIRA-12 and JIRA-7", []string{"JIRA-12", "JIRA-7"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ms := tc.ex.Extract(tc.text)
			var got []string
			for _, m := range ms {
				if tc.text[m.Start:m.End()] != m.Value {
					t.Errorf("match %q does not sit at offset %d", m.Value, m.Start)
				}
				got = append(got, m.Value)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIdentifiersMergesInOrder(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		`[assistant -> tool_call id=call_7] read_file({"path": "/srv/app/main.go"})`,
		`[tool:read_file id=call_7] Error: open /srv/app/main.go: permission denied`,
		`[user] see https://ci.example.com/run/3fab97f0 and /srv/app/main.go again`,
		`[assistant] commit 9c1e2d4 is "failed to build: exit 2"`,
	}, "\n")
	want := []string{
		"/srv/app/main.go", // the argument value and the path start together; one is kept
		"Error: open /srv/app/main.go: permission denied",
		"https://ci.example.com/run/3fab97f0", // the hash inside is not repeated
		"9c1e2d4",
		"failed to build: exit 2",
	}
	if got := Identifiers(text); !reflect.DeepEqual(got, want) {
		t.Errorf("Identifiers:\n got %q\nwant %q", got, want)
	}
}

func TestExtractKeepsFirstOfTiesByPriority(t *testing.T) {
	t.Parallel()
	a := ExtractorFunc(func(string) []Match { return []Match{{Kind: "a", Value: "xy", Start: 0}} })
	b := ExtractorFunc(func(string) []Match {
		return []Match{{Kind: "b", Value: "xy", Start: 0}, {Kind: "b", Value: "", Start: 1}}
	})
	got := Extract("xy", []Extractor{b, nil, a})
	if len(got) != 1 || got[0].Kind != "b" {
		t.Fatalf("got %+v, want the single match of the extractor listed first", got)
	}
}

func TestDefaultExtractorsIsFresh(t *testing.T) {
	t.Parallel()
	d := DefaultExtractors()
	d[0] = nil
	if DefaultExtractors()[0] == nil {
		t.Fatal("DefaultExtractors shares its slice")
	}
}

func TestExtractOnRandomText(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 6))
	pieces := []string{
		"/a/b.go", "http://", "https://x.y/z", "550e8400-e29b-41d4-a716-446655440000", "abc1234", "\"", "'", "`",
		"[tool:x id=", "]", "[assistant -> tool_call id=c", "{\"path\": ", ":", "\n", " ", "C:\\", "<image: ", ">",
		"Error: ", "é", "日本", "\\", "-", "_", ".", "error", "~/", "../",
	}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		ms := Extract(text, nil)
		seen := map[string]bool{}
		for i, m := range ms {
			if m.Start < 0 || m.End() > len(text) || text[m.Start:m.End()] != m.Value {
				t.Fatalf("match %+v is not at its offset in %q", m, text)
			}
			if seen[m.Value] || i > 0 && ms[i-1].Start > m.Start {
				t.Fatalf("matches not unique and ordered: %+v in %q", ms, text)
			}
			seen[m.Value] = true
		}
	}
}

func BenchmarkIdentifiers(b *testing.B) {
	line := `[tool:read_file id=call_42] {"path": "/srv/app/internal/handler.go", "sha": "9c1e2d4f"} ` +
		`see https://example.com/x and "error: connection refused" 550e8400-e29b-41d4-a716-446655440000 plain words here` + "\n"
	text := strings.Repeat(line+strings.Repeat("ordinary prose without anything special in it at all.\n", 4), 2000)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Identifiers(text)
	}
}
