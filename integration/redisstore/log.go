package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	goredis "github.com/redis/go-redis/v9"
)

// RouteLogs sends go-redis' own log lines (failed dials, pool and protocol
// notices), which it writes to the process' stderr by default, to l at
// Warn, with the attribute component=go-redis. go-redis has one logger for
// the whole process (its SetLogger), so this applies to every client, and
// the last call wins. nil: slog.Default() at each line.
func RouteLogs(l *slog.Logger) { goredis.SetLogger(slogLogger{l}) }

// slogLogger is go-redis' logging interface on a *slog.Logger.
type slogLogger struct{ l *slog.Logger }

func (s slogLogger) Printf(ctx context.Context, format string, v ...any) {
	l := s.l
	if l == nil {
		l = slog.Default()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	l.Log(ctx, slog.LevelWarn, strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: "), "component", "go-redis")
}
