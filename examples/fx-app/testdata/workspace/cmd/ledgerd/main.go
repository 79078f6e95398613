// Command ledgerd serves the ledger API.
package main

import (
	"database/sql"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"time"

	"example.com/ledgerd/internal/api"
	"example.com/ledgerd/internal/config"
	"example.com/ledgerd/internal/retry"
	"example.com/ledgerd/internal/store"
)

func main() {
	path := flag.String("config", "config/ledgerd.yaml", "configuration file")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))

	cfg, err := config.Load(*path)
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(1)
	}
	db, err := sql.Open("pgx", os.Getenv(cfg.Database.DSNEnv))
	if err != nil {
		log.Error("database", "err", err)
		os.Exit(1)
	}
	db.SetMaxOpenConns(cfg.Database.MaxOpenConns)

	st := store.New(db, cfg.Idempotency.TTL)
	policy := retry.Policy{
		MaxAttempts:          cfg.Retry.MaxAttempts,
		BaseDelay:            cfg.Retry.BaseDelay,
		MaxDelay:             cfg.Retry.MaxDelay,
		RetryOnCommitUnknown: cfg.Retry.RetryOnCommitUnknown,
	}
	srv := api.NewServer(st, policy, log)

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/entries", srv.PostEntry)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })

	hs := &http.Server{Addr: cfg.Listen, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Info("listening", "addr", cfg.Listen)
	if err := hs.ListenAndServe(); err != nil {
		log.Error("serve", "err", err)
		os.Exit(1)
	}
}
