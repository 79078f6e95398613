-- 0007: move idempotency keys to their own table (LED-351).
BEGIN;

CREATE TABLE idempotency_keys (
    key         text        PRIMARY KEY,
    entry_id    bigint      NOT NULL REFERENCES journal_entries (id),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

INSERT INTO idempotency_keys (key, entry_id, created_at)
SELECT idempotency_key, id, created_at
FROM journal_entries
WHERE idempotency_key IS NOT NULL
  AND created_at > now() - interval '72 hours';

-- The lookup now goes through idempotency_keys, so the unique index on the
-- entries table is no longer needed for reads.
DROP INDEX journal_entries_idem_key_uniq;

COMMIT;
