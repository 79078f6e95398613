package redisstore

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/einocompact/einocompact/internal/redistest"
)

// TestRedisOversizedEntryRefusedUnread: an entry above MaxEntryBytes is
// refused by its length, without its value crossing the network (the
// client reads a few bytes, not the entry), and logged once however often
// it is found; the lease is still reported. An entry at the cap is loaded.
func TestRedisOversizedEntryRefusedUnread(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	admin := client(t, srv)
	w := &dialWatch{}
	c := client(t, srv)
	c.AddHook(w)
	log := &records{}
	const limit = 1024
	s, err := New(Config{Client: c, KeyPrefix: "size:", MaxEntryBytes: limit, Logger: slog.New(log)})
	if err != nil {
		t.Fatal(err)
	}
	// The connection, its handshake and the script's first load are
	// behind this call, so what is read below is the replies alone.
	if _, _, err := s.Load(ctx, "warm-up"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key    string
		body   int
		leased bool
		loaded bool
	}{
		{"at-the-cap", limit, false, true},
		{"one-byte-above", limit + 1, false, false},
		{"four-mib-above", 4 << 20, false, false},
		{"above-and-leased", 4 << 20, true, false},
	} {
		body := bytes.Repeat([]byte{'x'}, tc.body)
		if err := admin.Set(ctx, s.entryKey(tc.key), append(append([]byte{}, envelope...), body...), time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if tc.leased {
			if err := admin.Set(ctx, s.leaseKey(tc.key), "someone", time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
		}
		for range 3 {
			before := w.read.Load()
			got, held, err := s.Load(ctx, tc.key)
			read := w.read.Load() - before
			if err != nil {
				t.Fatalf("%s: %v", tc.key, err)
			}
			if held != tc.leased {
				t.Errorf("%s: held=%v, want %v", tc.key, held, tc.leased)
			}
			if tc.loaded {
				if !bytes.Equal(got, body) {
					t.Fatalf("%s: loaded %d bytes, want the %d stored", tc.key, len(got), len(body))
				}
				continue
			}
			if got != nil {
				t.Fatalf("%s: an entry of %d bytes above the cap %d was loaded", tc.key, len(body), limit)
			}
			if read >= 256 {
				t.Errorf("%s: the client read %d bytes to refuse a %d-byte entry; want the refusal without the value", tc.key, read, len(body))
			}
		}
	}
	if n := log.count("refused"); n != 3 {
		t.Errorf("%d refusals logged for 3 oversized entries each loaded 3 times, want 3 (once per entry)", n)
	}
}
