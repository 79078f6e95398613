package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/internal/redistest"
)

// TestRedisArchiveLoadStaysWithinCap: 10,000 conversations archived by
// four replicas (a client each), two writers each, in ten rounds of 1,000
// with a check after each round: the entries Redis holds (ids and values,
// read back) stay within the cap and equal the archive's running total,
// and the bookkeeping does not grow with the conversations written: the
// index and the sizes list one conversation per held hash, and the keys
// are two per held conversation plus the archive's five. Redis' memory is
// logged.
func TestRedisArchiveLoadStaysWithinCap(t *testing.T) {
	t.Parallel()
	const (
		conversations = 10_000
		rounds        = 10
		replicas      = 4
		writers       = 2 // per replica
		maxBytes      = 256 << 10
	)
	srv := redistest.Start(t)
	ctx := context.Background()
	as := make([]*Archive, replicas)
	for i := range as {
		as[i] = newArchive(t, client(t, srv), ArchiveConfig{MaxBytes: maxBytes, KeyPrefix: "load:"})
	}
	c := client(t, srv)
	base := as[0].base
	body := strings.Repeat("build output line\n", 12)
	per := conversations / rounds
	for round := range rounds {
		var wg sync.WaitGroup
		for w := range replicas * writers {
			wg.Go(func() {
				for i := round*per + w; i < (round+1)*per; i += replicas * writers {
					msgs := []*schema.Message{schema.ToolMessage(fmt.Sprintf("conversation %d\n%s", i, body), "c1")}
					if _, err := as[w/writers].Put(ctx, arcKey(t, fmt.Sprint("load conversation ", i)), msgs); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		held := storedBytes(t, c, base)
		total, err := c.Get(ctx, base+"total").Int64()
		if err != nil {
			t.Fatal(err)
		}
		convs := int64(len(c.Keys(ctx, base+"cv*").Val()) / 2)
		indexed, sized, keys := c.ZCard(ctx, base+"index").Val(), c.HLen(ctx, base+"sizes").Val(), c.DBSize(ctx).Val()
		if held > maxBytes || total != held {
			t.Fatalf("after %d conversations Redis holds %d bytes of entries, the running total says %d; cap %d", (round+1)*per, held, total, maxBytes)
		}
		if indexed != convs || sized != convs || keys > 2*convs+5 {
			t.Fatalf("after %d conversations: %d held, %d indexed, %d sized, %d keys", (round+1)*per, convs, indexed, sized, keys)
		}
		if round == rounds-1 {
			mem := "?"
			for line := range strings.SplitSeq(c.Info(ctx, "memory").Val(), "\r\n") {
				if v, ok := strings.CutPrefix(line, "used_memory_human:"); ok {
					mem = v
				}
			}
			t.Logf("%d conversations: %d bytes of entries held (cap %d) in %d conversations, %d keys, used_memory %s",
				conversations, held, maxBytes, convs, keys, mem)
		}
	}
}
