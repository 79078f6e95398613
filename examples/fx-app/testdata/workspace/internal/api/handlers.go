package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"example.com/ledgerd/internal/retry"
	"example.com/ledgerd/internal/store"
)

// Server serves the ledger's HTTP API.
type Server struct {
	store  *store.Store
	policy retry.Policy
	log    *slog.Logger
}

// NewServer returns a Server writing through st with the given retry policy.
func NewServer(st *store.Store, policy retry.Policy, log *slog.Logger) *Server {
	return &Server{store: st, policy: policy, log: log}
}

type entryRequest struct {
	Description string       `json:"description"`
	Lines       []store.Line `json:"lines"`
}

// PostEntry handles POST /v1/entries.
func (s *Server) PostEntry(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "missing Idempotency-Key header", http.StatusBadRequest)
		return
	}

	// A retried request returns the entry the first attempt created.
	if id, ok, err := s.store.LookupKey(ctx, key); err != nil {
		s.fail(w, "idempotency lookup", err)
		return
	} else if ok {
		s.respond(w, http.StatusOK, id)
		return
	}

	var req entryRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "malformed entry: "+err.Error(), http.StatusBadRequest)
		return
	}
	entry := store.Entry{Description: req.Description, Lines: req.Lines, IdempotencyKey: key}
	if err := entry.Validate(); err != nil {
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}

	var id int64
	err := retry.Do(ctx, s.policy, func() error {
		var err error
		id, err = s.store.InsertEntry(ctx, entry)
		if err != nil {
			s.log.Warn("retrying write", "idempotency_key", key, "err", err)
		}
		return err
	})
	if err != nil {
		s.fail(w, "insert entry", err)
		return
	}

	// Remember the key only after the entry is stored, so a failed insert
	// can be retried by the client with the same key.
	if err := s.store.RememberKey(ctx, key, id); err != nil {
		s.log.Error("remember idempotency key", "idempotency_key", key, "entry_id", id, "err", err)
	}
	s.respond(w, http.StatusCreated, id)
}

func (s *Server) respond(w http.ResponseWriter, status int, id int64) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]int64{"id": id})
}

func (s *Server) fail(w http.ResponseWriter, what string, err error) {
	s.log.Error(what, "err", err)
	status := http.StatusInternalServerError
	if errors.Is(err, store.ErrUnbalanced) {
		status = http.StatusUnprocessableEntity
	}
	http.Error(w, what+" failed", status)
}
