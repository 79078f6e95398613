package store

import (
	"context"
	"testing"
)

func TestRetriedRequestReturnsFirstEntry(t *testing.T) {
	st := newTestStore(t)
	ctx := context.Background()
	e := Entry{Description: "payout 7781", IdempotencyKey: "k-7781", Lines: []Line{
		{Account: "4410-0098", Currency: "EUR", Debit: 1500},
		{Account: "2000-0001", Currency: "EUR", Credit: 1500},
	}}

	id, err := st.InsertEntry(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RememberKey(ctx, e.IdempotencyKey, id); err != nil {
		t.Fatal(err)
	}

	got, ok, err := st.LookupKey(ctx, "k-7781")
	if err != nil || !ok || got != id {
		t.Fatalf("LookupKey = %d, %v, %v; want %d, true, nil", got, ok, err, id)
	}
}

func TestUnbalancedEntryIsRejected(t *testing.T) {
	e := Entry{Lines: []Line{{Account: "a", Currency: "EUR", Debit: 10}}}
	if err := e.Validate(); err == nil {
		t.Fatal("unbalanced entry accepted")
	}
}
