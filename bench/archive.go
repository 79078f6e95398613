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

// runTools are the tool schemas a run of one strategy sends with every
// request and the archive its hook gets.
type runTools struct {
	tools   []*schema.ToolInfo
	archive compaction.Archive // HookConfig.Archive; nil: none
	kept    *simArchive        // the same archive, for the bill
}

// newRunTools returns the tools of cfg's script (Tools() by default) and,
// with cfg.Archive for a strategy that runs a hook, an archive and the
// recall tool's schema after the others, which an agent whose hook has an
// archive offers its model.
func newRunTools(ctx context.Context, cfg SimConfig, name string) (runTools, error) {
	run := runTools{tools: Tools()}
	if cfg.Script != nil && cfg.Script.Tools != nil {
		run.tools = cfg.Script.Tools
	}
	if !cfg.Archive || !isHookStrategy(name) {
		return run, nil
	}
	a, err := newSimArchive()
	if err != nil {
		return run, err
	}
	recall, err := compaction.NewRecallTool(a)
	if err != nil {
		return run, err
	}
	info, err := recall.Info(ctx)
	if err != nil {
		return run, err
	}
	run.tools = append(run.tools[:len(run.tools):len(run.tools)], info)
	run.archive, run.kept = a, a
	return run, nil
}
