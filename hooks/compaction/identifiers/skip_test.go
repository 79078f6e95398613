package identifiers

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestNextPathOrHexByteMatchesLoop checks the eight-bytes-at-a-time search
// against a plain loop over the same set of bytes, from every offset of
// random texts drawing on all 256 byte values, the bytes next to the
// range's ends (",", ":", "[", "]") and non-ASCII bytes whose low seven bits
// fall in the range: a wrong word-wide test, or a wrong index for the byte
// it finds, gives another answer.
func TestNextPathOrHexByteMatchesLoop(t *testing.T) {
	t.Parallel()
	want := func(text string, from int) int {
		for i := from; i < len(text); i++ {
			if strings.IndexByte("-./0123456789\\", text[i]) >= 0 {
				return i
			}
		}
		return -1
	}
	r := rand.New(rand.NewPCG(5, 13))
	near := []byte{',', '-', '.', '/', '0', '9', ':', ';', '[', '\\', ']', 0xad, 0xae, 0xaf, 0xb0, 0xb9, 0xdc, 0x2c, 0x3a, 'a', ' '}
	for range 5000 {
		b := make([]byte, r.IntN(40))
		dense := r.IntN(3)
		for k := range b {
			switch {
			case dense == 0:
				b[k] = byte(r.IntN(256))
			case r.IntN(4*dense) == 0:
				b[k] = near[r.IntN(len(near))]
			default:
				b[k] = "abcdefXYZ _\xc3\xa9\x80\xff"[r.IntN(15)]
			}
		}
		text := string(b)
		for from := 0; from <= len(text); from++ {
			if got, want := nextPathOrHexByte(text, from), want(text, from); got != want {
				t.Fatalf("nextPathOrHexByte(%q, %d) = %d, want %d", text, from, got, want)
			}
		}
	}
}

// TestScanPathsAndHexMatchesSeparateScans checks the shared scan, which
// walks only the tokens holding a candidate byte, against Paths, UUIDs and
// Hashes run apart (each walking every byte) and against their reference
// copies, on random texts whose tokens are long and short, with and without
// candidate bytes at their ends and at every alignment.
// TestScanPathsAndHexOnConversations runs the same checks on the benchmark
// conversations.
func TestScanPathsAndHexMatchesSeparateScans(t *testing.T) {
	t.Parallel()
	pool := []string{"a", "Z", "é", "\xff", "/", "\\", ".", ":", "-", "_", "7", "0", " ", "\t", "\n", "\"", "'", "(", ")", "=", ",",
		"|", "[", "]", "C:", "C:\\", "~/", "./", "../", "//", "://", ".go", ".Md", "main.py", "go.mod", "/etc/hosts",
		"deadbeef1", "0123abcd", "12345678-1234-1234-1234-123456789abc", "req-", "a1b2c3d4e5f6", "prose ", "words and more ",
		"https://x.io/a.go", "file_856.go:42", "2026-12-02T10", "x_1", "abcdefabcdefabcdef"}
	r := rand.New(rand.NewPCG(11, 13))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(60) {
			b.WriteString(pool[r.IntN(len(pool))])
		}
		if msg := CheckScanPathsAndHex(b.String()); msg != "" {
			t.Fatal(msg)
		}
	}
}

// CheckScanPathsAndHex compares scanPathsAndHex on text with Paths, UUIDs
// and Hashes run apart and with their reference copies, and describes the
// first difference ("" when there is none).
func CheckScanPathsAndHex(text string) string {
	paths, hex := scanPathsAndHex(text, nil, nil)
	wantPaths, wantHex := appendPaths(nil, text), appendHex(nil, text, true, true)
	if !reflect.DeepEqual(paths, wantPaths) || !reflect.DeepEqual(hex, wantHex) {
		return fmt.Sprintf("scanPathsAndHex(%.300q):\n paths %v\n  want %v\n   hex %v\n  want %v", text, paths, wantPaths, hex, wantHex)
	}
	if ref, refHex := refFindPaths(text), refScanHex(text, true, true); !reflect.DeepEqual(paths, ref) || !reflect.DeepEqual(hex, refHex) {
		return fmt.Sprintf("scanPathsAndHex(%.300q):\n paths %v\n   ref %v\n   hex %v\n   ref %v", text, paths, ref, hex, refHex)
	}
	return ""
}
