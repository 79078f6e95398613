package bench

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction"
)

// simArchive is the compaction.Archive of a simulated run with
// SimConfig.Archive: in memory, with references signed by
// compaction.ArchiveRefs as FileArchive's are, and no TTL or size cap (a
// run of a few hundred steps stays far below FileArchive's defaults, a day
// and 256 MiB). It keeps its entries in the order they were archived, for
// the bill's recall model.
type simArchive struct {
	refs compaction.ArchiveRefs

	mu      sync.Mutex
	entries []archived
	byRef   map[string]int
}

// archived is one entry: what one compaction removed.
type archived struct {
	ref, conv string
	messages  []*schema.Message
}

// simArchiveKey signs the references of every simulated archive; the
// simulation has no secret to keep.
var simArchiveKey = []byte("einocompact-bench-archive-key")

func newSimArchive() (*simArchive, error) {
	refs, err := compaction.NewArchiveRefs(simArchiveKey)
	if err != nil {
		return nil, err
	}
	return &simArchive{refs: refs, byRef: map[string]int{}}, nil
}

// Put implements compaction.Archive. It keeps copies of the messages, so
// nothing the hook or the agent changes later reaches the archive.
func (a *simArchive) Put(_ context.Context, conv string, messages []*schema.Message) (string, error) {
	ref, _, err := a.refs.Issue(conv)
	if err != nil {
		return "", err
	}
	kept := make([]*schema.Message, len(messages))
	for i, m := range messages {
		c := *m
		kept[i] = &c
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byRef[ref] = len(a.entries)
	a.entries = append(a.entries, archived{ref: ref, conv: conv, messages: kept})
	return ref, nil
}

// Get implements compaction.Archive.
func (a *simArchive) Get(_ context.Context, ref string) (string, []*schema.Message, error) {
	if _, _, err := a.refs.Check(ref); err != nil {
		return "", nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i, ok := a.byRef[ref]
	if !ok {
		return "", nil, fmt.Errorf("%w: %s", compaction.ErrArchiveNotFound, ref)
	}
	e := a.entries[i]
	return e.conv, e.messages, nil
}

// snapshot returns the entries archived so far, in order.
func (a *simArchive) snapshot() []archived {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]archived(nil), a.entries...)
}

// isHookStrategy says whether strategy name runs a CompactionHook, which an
// archive can be given to.
func isHookStrategy(name string) bool {
	switch name {
	case StrategyEinocompact, StrategyPrepared, StrategyAligned, StrategyPreparedAligned,
		StrategyPruning, StrategyPruningAligned, StrategyFloorBound:
		return true
	}
	return false
}

// withRecallTool is tools followed by the recall tool's schema, which an
// agent whose hook has an archive offers its model with every request.
func withRecallTool(ctx context.Context, tools []*schema.ToolInfo, a compaction.Archive) ([]*schema.ToolInfo, error) {
	recall, err := compaction.NewRecallTool(a)
	if err != nil {
		return nil, err
	}
	info, err := recall.Info(ctx)
	if err != nil {
		return nil, err
	}
	return append(tools[:len(tools):len(tools)], info), nil
}
