package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ErrUnbalanced means an entry's debits and credits differ in some currency.
var ErrUnbalanced = errors.New("store: entry does not balance")

// ErrCommitUnknown means the connection broke while COMMIT was in flight:
// the transaction may or may not have been committed.
var ErrCommitUnknown = errors.New("store: commit unknown")

// Line is one debit or credit of an entry, in minor units.
type Line struct {
	Account  string `json:"account"`
	Currency string `json:"currency"`
	Debit    int64  `json:"debit"`
	Credit   int64  `json:"credit"`
}

// Entry is a balanced journal entry.
type Entry struct {
	Description    string
	Lines          []Line
	IdempotencyKey string
}

// Validate checks that the entry balances per currency.
func (e Entry) Validate() error {
	sums := map[string]int64{}
	for _, l := range e.Lines {
		sums[l.Currency] += l.Debit - l.Credit
	}
	for cur, s := range sums {
		if s != 0 {
			return fmt.Errorf("%w: %s off by %d", ErrUnbalanced, cur, s)
		}
	}
	return nil
}

// Store is the PostgreSQL-backed ledger.
type Store struct {
	db     *sql.DB
	keyTTL time.Duration
}

// New returns a Store on db; idempotency keys live for keyTTL.
func New(db *sql.DB, keyTTL time.Duration) *Store { return &Store{db: db, keyTTL: keyTTL} }

// InsertEntry stores e and its lines in one transaction and returns its id.
func (s *Store) InsertEntry(ctx context.Context, e Entry) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	var id int64
	err = tx.QueryRowContext(ctx,
		`INSERT INTO journal_entries (description, idempotency_key, created_at)
		 VALUES ($1, $2, now()) RETURNING id`, e.Description, e.IdempotencyKey).Scan(&id)
	if err != nil {
		return 0, err
	}
	for _, l := range e.Lines {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO journal_lines (entry_id, account, currency, debit, credit)
			 VALUES ($1, $2, $3, $4, $5)`, id, l.Account, l.Currency, l.Debit, l.Credit); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		if isConnError(err) {
			return 0, fmt.Errorf("%w: %v", ErrCommitUnknown, err)
		}
		return 0, err
	}
	return id, nil
}

// LookupKey returns the entry id remembered for an idempotency key.
func (s *Store) LookupKey(ctx context.Context, key string) (int64, bool, error) {
	var id int64
	err := s.db.QueryRowContext(ctx,
		`SELECT entry_id FROM idempotency_keys WHERE key = $1 AND created_at > now() - $2::interval`,
		key, s.keyTTL.String()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return id, true, nil
}

// RememberKey records that key produced entry id. It runs in its own
// statement, outside the entry's transaction (LED-351 moved keys to their own
// table and this call was split out then).
func (s *Store) RememberKey(ctx context.Context, key string, id int64) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO idempotency_keys (key, entry_id, created_at) VALUES ($1, $2, now())
		 ON CONFLICT (key) DO NOTHING`, key, id)
	return err
}

func isConnError(err error) bool {
	return errors.Is(err, sql.ErrConnDone) || errors.Is(err, context.DeadlineExceeded) ||
		err.Error() == "driver: bad connection"
}
