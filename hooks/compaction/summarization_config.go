package compaction

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction/identifiers"
	tokencount "github.com/einocompact/einocompact/hooks/compaction/internal/count"
	"github.com/einocompact/einocompact/hooks/compaction/internal/ledger"

	// Imported under another name: the compaction's code names its plans plan.
	planning "github.com/einocompact/einocompact/hooks/compaction/internal/plan"
	"github.com/einocompact/einocompact/hooks/compaction/internal/request"
)

// SummarizationConfig configures a SummarizationCompactor.
//
// Optional numbers are *int: nil takes the documented default, and a set
// value is used as given, 0 included where 0 means something (no cap, keep
// no step). Go 1.26 writes one in place: MinKeepSteps: new(2).
type SummarizationConfig struct {
	// ChatModel writes the summaries. Required.
	ChatModel model.BaseChatModel
	// MinKeepSteps is how many of the newest agent steps of the current task
	// are never summarized. Default 1; must be >= 0. Beyond them, a round
	// also spares the newest steps that hold a third of the target when it
	// can get near the target without them (see Plan).
	MinKeepSteps *int
	// ApproximateSummaryTokens is the size a summary message is expected
	// to have, identifier ledger block included, until the compactor has
	// seen its summarizer's replies; from then on the size is learned from
	// them (see docs/compaction.md). It guides planning only (how much to
	// replace per round): what the summarizer may write is the round's
	// output budget (see MaxRoundOutputTokens). Must be >= 1. Nil: the output
	// budget of the round plus the identifier ledger's cap, which suits
	// small windows as well as large ones.
	ApproximateSummaryTokens *int
	// SummaryInstruction is the summarizer's system prompt. Empty means
	// DefaultSummaryInstruction, after which the request tells the model
	// the round's output budget in words ("Keep the summary under about N
	// words."). Anything else replaces it entirely (in a CacheAligned
	// request, the built-in sections, rules and length) and is sent as
	// written, nothing appended: to tell the model the budget, write
	// BudgetWordsPlaceholder where the number goes ("Use at most
	// {budget_words} words."). The round sends max output tokens either way.
	SummaryInstruction string
	// RaiseOnFailure returns a failed round (model error, no usable text, a
	// summary that does not shrink the conversation) as an error. Default
	// false: the failure is logged and the last successful round is kept.
	RaiseOnFailure bool
	// Logger receives warnings about failed rounds. Default slog.Default().
	Logger *slog.Logger
	// OnRound, when set, is called synchronously after every round that
	// called the chat model, successful or not, on the goroutine running
	// Compact. It must be safe for concurrent use when the compactor serves
	// several runs at once, and should return quickly. Rounds also reach the
	// Report of a CompactionHook that runs the compactor, without OnRound.
	OnRound func(ctx context.Context, r Round)
	// Ledger configures the identifier ledger, which appends to each summary,
	// verbatim, the identifiers it lost. Nil means the defaults (ledger on);
	// see LedgerConfig.
	Ledger *LedgerConfig
	// MaxRoundInputTokens caps the transcript one round sends to the
	// summarizer, as measured by the compaction's counter. A round then takes
	// fewer groups (never splitting a step), and when a single group is too
	// big its longest texts are cut in the transcript, head and tail kept, so
	// compaction can run however full the context is. Nil or 0: no cap;
	// otherwise >= 1.
	MaxRoundInputTokens *int
	// MaxSummarizerInputTokens is MaxRoundInputTokens as an int, read when
	// MaxRoundInputTokens is nil.
	//
	// Deprecated: use MaxRoundInputTokens (optional numbers of this config
	// are *int); this field is removed in the next release.
	MaxSummarizerInputTokens int
	// MaxTextTokens caps each text the summarizer's transcript shows (a
	// message's content or part, a tool call's arguments): a longer one is
	// shown as its head and tail with the number of characters cut between
	// them. A summary is a few thousand tokens however long its input, so
	// the middle of a long log or file adds to the summarizer's bill, not to
	// its summary; the identifier ledger still reads every text whole. The
	// cap is in code points at four a token (the default counter's ratio),
	// since texts are cut while the transcript is written. Nil: 2,048
	// tokens. 0: no cap. Otherwise at least 64.
	MaxTextTokens *int
	// CacheAligned sends the summarizer the agent's last request as it was
	// sent (its system prompt, its tool schemas as model.WithTools, its
	// messages in order) followed by one user instruction that names the
	// span to summarize, by position and by its first and last message, and
	// says not to call tools. With the agent's own model as the summarizer
	// the call then reads the prompt cache the agent's last call wrote, so
	// the replaced messages cost cached input instead of a fresh transcript.
	// The tools come from the ctx (WithRequestTools), where a CompactionHook
	// puts State.Tools. A reply that calls a tool or has no text is retried
	// once with the transcript request, and a request larger than
	// MaxRoundInputTokens, or a span holding a summary written earlier
	// in the same compaction, uses the transcript request at once
	// (Round.Shape, Round.AlignedFallback). Behind a Pipeline the request is
	// the conversation the Pipeline was given, as the agent sent it, not what
	// earlier stages made of it, and a tool result a pruning stage replaced
	// is named as the result it stands for. A CompactionHook's synchronous
	// compaction of a call whose cache has gone cold (Report.ColdCache)
	// sends the transcript request: nothing is left to read from the cache.
	// Default false: the transcript
	// request (see docs/compaction.md). Set it when ChatModel is the
	// agent's own model: integration/fx does so by default then
	// (compaction.summarize.cache_aligned), and so does the quickstart.
	CacheAligned bool
	// MaxRoundOutputTokens bounds the max output tokens a round sends with
	// its summarizer calls (Round.MaxOutputTokens). Each round has an output
	// budget for the text the model writes: 64 tokens plus a sixth of what
	// the round replaces, at most 512 (chosen from the measurements in
	// docs/compaction.md). The request tells the model the budget in words
	// and sends it, plus a quarter of headroom, as max output tokens
	// (model.WithMaxTokens), so a model that honours max tokens cannot
	// write much more than asked, at the output price. The identifier
	// ledger's block and the summary's tags are appended by code and need
	// no room. With this set, at most this many are sent, and the budget
	// told shrinks with it. Set it to the cap the summarizer's client is
	// configured with (eino-ext's ChatModelConfig.MaxTokens), since the
	// per-call option replaces that cap rather than lowering it. Nil or 0:
	// the budget alone; otherwise >= 1.
	MaxRoundOutputTokens *int
	// MaxOutputTokens is MaxRoundOutputTokens as an int, read when
	// MaxRoundOutputTokens is nil.
	//
	// Deprecated: use MaxRoundOutputTokens (optional numbers of this config
	// are *int); this field is removed in the next release.
	MaxOutputTokens int
	// MaxCompletionTokensOption sends the output cap to a summarizer that
	// refuses max_tokens: OpenAI's reasoning models (o-series, gpt-5) answer
	// a request carrying it with HTTP 400 unsupported_parameter and take
	// max_completion_tokens instead, which counts their hidden reasoning
	// too. Set it to eino-ext's openai.WithMaxCompletionTokens for such a
	// model (core Eino has no option for the parameter). The compactor
	// learns the refusal from the first refused call, makes that call again
	// with this option, or with no cap at all when it is nil (the default),
	// and sends max_tokens no more (Round.CapRetries, Round.OutputCap). A
	// reply cut at the cap before any text, as a reasoning model's is when
	// its reasoning used the cap up, is made again once per compactor with
	// room for reasoning, which later calls keep (Round.ReasoningRoom).
	MaxCompletionTokensOption func(maxTokens int) model.Option
}

// defaultMaxTextTokens is MaxTextTokens when unset, and minMaxTextTokens the
// smallest cap accepted: below it a cut text is mostly its cut marker.
const (
	defaultMaxTextTokens = 2048
	minMaxTextTokens     = 64
	runesPerTextToken    = 4
)

// SummarizationCompactor replaces the least useful parts of a conversation
// with summaries written by a chat model, round after round, until the
// conversation fits the target or only what must stay is left: the leading
// system messages, the user's current request, at most one summary before
// and one after it, and the newest MinKeepSteps agent steps. See Plan for how
// a round chooses what to replace.
//
// A tool call is never parted from its results. The caller's messages are
// never modified. The compactor keeps no per-run state, so one value may
// serve many runs at once. It implements Compactor, hooks.WarmUpper and
// hooks.Closer.
type SummarizationCompactor struct {
	chat        model.BaseChatModel
	minKeep     int
	approx      int // ApproximateSummaryTokens; 0: the default prior
	instruction string
	raise       bool
	log         *slog.Logger
	onRound     func(context.Context, Round)
	ledger      ledger.Ledger
	maxInput    int
	maxText     int // MaxTextTokens in code points; 0: no cap
	model       string
	planner     *planning.Planner // plans the rounds; learns summary sizes, shared by all runs
	aligned     bool              // CacheAligned
	maxOutput   int               // MaxRoundOutputTokens; 0: no bound beyond the plan
	outCap      *request.Cap      // how the cap is sent, learned from the summarizer
}

var (
	_ Compactor       = (*SummarizationCompactor)(nil)
	_ hooks.WarmUpper = (*SummarizationCompactor)(nil)
	_ hooks.Closer    = (*SummarizationCompactor)(nil)
)

// NewSummarizationCompactor validates cfg, applies its defaults and returns
// the compactor. Errors name the offending field and its value.
func NewSummarizationCompactor(_ context.Context, cfg *SummarizationConfig) (*SummarizationCompactor, error) {
	if cfg == nil {
		return nil, errors.New("compaction: nil SummarizationConfig")
	}
	if cfg.ChatModel == nil {
		return nil, errors.New("compaction: SummarizationConfig.ChatModel is required")
	}
	var (
		l   ledger.Ledger
		err error
	)
	c := &SummarizationCompactor{
		chat:        cfg.ChatModel,
		minKeep:     1,
		instruction: cfg.SummaryInstruction,
		raise:       cfg.RaiseOnFailure,
		log:         cfg.Logger,
		onRound:     cfg.OnRound,
		aligned:     cfg.CacheAligned,
		outCap:      &request.Cap{Completion: cfg.MaxCompletionTokensOption},
	}
	if cfg.MinKeepSteps != nil {
		if *cfg.MinKeepSteps < 0 {
			return nil, fmt.Errorf("compaction: SummarizationConfig.MinKeepSteps must be at least 0, got %d", *cfg.MinKeepSteps)
		}
		c.minKeep = *cfg.MinKeepSteps
	}
	if cfg.ApproximateSummaryTokens != nil {
		if *cfg.ApproximateSummaryTokens < 1 {
			return nil, fmt.Errorf("compaction: SummarizationConfig.ApproximateSummaryTokens must be a positive number of tokens, got %d", *cfg.ApproximateSummaryTokens)
		}
		c.approx = *cfg.ApproximateSummaryTokens
	}
	if c.maxInput, err = optionalCap("MaxRoundInputTokens", cfg.MaxRoundInputTokens, "MaxSummarizerInputTokens", cfg.MaxSummarizerInputTokens); err != nil {
		return nil, err
	}
	if c.maxOutput, err = optionalCap("MaxRoundOutputTokens", cfg.MaxRoundOutputTokens, "MaxOutputTokens", cfg.MaxOutputTokens); err != nil {
		return nil, err
	}
	c.maxText = defaultMaxTextTokens * runesPerTextToken
	if cfg.MaxTextTokens != nil {
		if n := *cfg.MaxTextTokens; n != 0 && n < minMaxTextTokens {
			return nil, fmt.Errorf("compaction: SummarizationConfig.MaxTextTokens must be 0 (no cap) or at least %d tokens, got %d", minMaxTextTokens, n)
		}
		// A cap beyond any text is no cap; multiplied, it would overflow.
		c.maxText = min(*cfg.MaxTextTokens, math.MaxInt/runesPerTextToken) * runesPerTextToken
	}
	l, err = ledger.New((*ledger.Config)(cfg.Ledger))
	if err != nil {
		return nil, err
	}
	c.ledger = l
	c.planner = planning.New(c.planConfig())
	c.model = modelName(cfg.ChatModel)
	if c.instruction == "" {
		c.instruction = DefaultSummaryInstruction
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// CacheAligned reports whether the compactor sends cache-aligned requests
// (SummarizationConfig.CacheAligned).
func (c *SummarizationCompactor) CacheAligned() bool { return c.aligned }

// WarmUp warms the chat model when it implements hooks.WarmUpper.
func (c *SummarizationCompactor) WarmUp(ctx context.Context) error {
	if w, ok := c.chat.(hooks.WarmUpper); ok {
		if err := w.WarmUp(ctx); err != nil {
			return fmt.Errorf("compaction: warm up summarizer chat model: %w", err)
		}
	}
	return nil
}

// Close closes the chat model when it implements hooks.Closer.
func (c *SummarizationCompactor) Close(ctx context.Context) error {
	if cl, ok := c.chat.(hooks.Closer); ok {
		if err := cl.Close(ctx); err != nil {
			return fmt.Errorf("compaction: close summarizer chat model: %w", err)
		}
	}
	return nil
}

// optionalCap reads a cap of SummarizationConfig (0: none) from its *int
// field, or, when that is nil, from the deprecated int field it replaces.
// Setting both to different values is an error: one of them would be
// ignored.
func optionalCap(name string, v *int, oldName string, old int) (int, error) {
	n := old
	field := oldName
	if v != nil {
		if old != 0 && old != *v {
			return 0, fmt.Errorf("compaction: SummarizationConfig.%s = %d and the deprecated %s = %d disagree; set %s alone", name, *v, oldName, old, name)
		}
		n, field = *v, name
	}
	if n < 0 {
		return 0, fmt.Errorf("compaction: SummarizationConfig.%s must be at least 0, got %d", field, n)
	}
	return n, nil
}

// LedgerConfig configures the identifier ledger of a SummarizationCompactor.
//
// Summaries lose exact identifiers: a path, an id or an error string written
// from memory is not the one the agent needs. Before a round the ledger
// extracts identifiers from the messages being replaced, without any model;
// after the summary comes back it appends those the summary lost, under a
// "## Identifiers (verbatim)" heading, within MaxTokens: an identifier
// without white space byte for byte, free text such as an error line marked
// as data («Error:ˆdiskˆfull», and the summary opens with a line saying what
// the marks mean), since the block copies tool output into a user message.
// The full list is kept in the summary's marker under "identifiers", so a
// later round that folds this summary into a new one carries them forward
// even if the cap cut them from the text.
type LedgerConfig struct {
	// Disabled turns the ledger off. Default false: the ledger is on.
	Disabled bool
	// Extractors find identifiers. Default identifiers.DefaultExtractors():
	// paths, URLs, UUIDs, hex hashes of 7+ characters, quoted error strings
	// and error lines, and the values of tool arguments named like path,
	// file, url, id or query. Tool-call ids are left out whatever the
	// extractors: the messages are read without them, since once their calls
	// are summarized they name nothing.
	Extractors []identifiers.Extractor
	// MaxTokens caps the size of the appended block, as measured by the
	// compaction's counter. Must be >= 0. Default 0: a quarter of the
	// compaction's target, at least 256 tokens and at most 8 per remembered
	// identifier (1,600 with the default MaxRemembered), so the block grows
	// with the room the conversation is given (docs/fidelity.md); five
	// quarters of that in a deep compaction (Report.Deep), which replaces
	// more.
	MaxTokens int
	// MaxRemembered caps how many identifiers a summary's marker records.
	// Default 200.
	MaxRemembered int
}

// The tiers a summarization plan can come from, in the order they are tried.
const (
	// TierHistoricalTurns replaces the oldest whole turns before the current task.
	TierHistoricalTurns = "historical_turns"
	// TierHistoricalSummaries folds two or more summaries before the current task into one.
	TierHistoricalSummaries = "historical_summaries"
	// TierCurrentTaskSteps replaces the oldest agent steps of the current task,
	// sparing the newest MinKeepSteps. Once the compactor has seen its
	// summarizer's replies, or always when ApproximateSummaryTokens is
	// unset, a round of this tier may also take the history before the
	// current request, when the history alone cannot reach the target; its
	// summary then goes after the request.
	TierCurrentTaskSteps = "current_task_steps"
	// TierCurrentTaskSummaries folds two or more summaries inside the current task into one.
	TierCurrentTaskSummaries = "current_task_summaries"
)

// Plan is one round's choice of messages to replace with a single summary.
// The zero Plan (no Tier, no Indices) means nothing more can be summarized.
type Plan struct {
	// Tier names the rule that chose the messages (one of the Tier constants).
	Tier string
	// Indices are the chosen positions in the planned conversation, ascending.
	// They need not be contiguous: messages that belong to no group (notes of
	// other compactors, orphan tool results, mid-task system messages) stay.
	Indices []int
}

// Empty reports whether the plan selects nothing.
func (p Plan) Empty() bool { return len(p.Indices) == 0 }

// Plan chooses what the next summarization round would replace to bring
// messages down to target tokens as counted by counter (nil: DefaultCounter).
// It calls no model. The four tiers are tried in order and the first that
// applies wins:
//
//  1. historical turns: the fewest oldest turns before the current task, a
//     turn's later steps counted one by one so only the older part of the
//     last turn needed is taken (the reference takes it whole), then steps
//     left after a summary before the first turn, with that summary; once
//     replies are seen, the history's summaries too, and when even that
//     cannot reach the target, the history with the task's oldest steps in
//     one round (reported as TierCurrentTaskSteps);
//  2. historical summaries: at least two of this compactor's summaries before
//     the current task, folded into one;
//  3. current-task steps: the fewest oldest agent steps, never one of the
//     newest MinKeepSteps;
//  4. current-task summaries: at least two summaries inside the current task.
//
// Once the planner plans ahead (see TierCurrentTaskSteps), the newest steps
// that together hold a third of the target are spared besides the newest
// MinKeepSteps, as long as the round still brings the conversation within
// about 8 % above target; when it cannot, the round is planned without them.
//
// Within a tier, groups are taken oldest first until the rest of the
// conversation plus the expected summary fits target, or all of them. A
// tier whose groups together are no larger than the summary expected for
// them is skipped: replacing them could not make the conversation smaller.
// The expected summary is ApproximateSummaryTokens until the compactor has
// seen its summarizer's replies (see SummarizationConfig).
// The counter is asked for O(n) work per call: an AdditiveCounter measures
// each message once; any other counter recounts the remainder per candidate.
func (c *SummarizationCompactor) Plan(ctx context.Context, messages []*schema.Message, target int, counter TokenCounter) (Plan, error) {
	if counter == nil {
		counter = DefaultCounter()
	}
	p, err := c.planner.Plan(ctx, messages, max(target, 0), planCounter(counter), nil, false)
	return Plan(p), err
}

// planCounter is counter as the planner takes it: the default counter's
// *count.Approx unwrapped, so the planner reads every message's cost from the
// cache Compact's count filled (the planner cannot see the unexported methods
// of ApproximateTokenCounter); any other counter as it is.
func planCounter(counter TokenCounter) tokencount.Counter {
	if a, ok := counter.(*ApproximateTokenCounter); ok {
		return a.approx()
	}
	return counter
}

// requests are the parts of the compactor's configuration its summarizer
// requests are built from.
func (c *SummarizationCompactor) requests() request.Settings {
	return request.Settings{Instruction: c.instruction, MaxInput: c.maxInput, MaxText: c.maxText, DropLedger: !c.ledger.Off()}
}

// planConfig is the planner's part of the compactor's configuration: the
// ledger's cap and the output budget reach it as functions, so that plan
// imports neither.
func (c *SummarizationCompactor) planConfig() planning.Config {
	cfg := planning.Config{
		MinKeep:  c.minKeep,
		Approx:   c.approx,
		MaxInput: c.maxInput,
		OutputBudget: func(input int) int {
			budget, _ := c.outputBudget(input)
			return budget
		},
	}
	if !c.ledger.Off() {
		cfg.LedgerCap = func(target int) int { return c.ledger.CapFor(target) }
	}
	return cfg
}

var _ Identifier = (*SummarizationCompactor)(nil)

// CompactionIdentity implements Identifier.
func (c *SummarizationCompactor) CompactionIdentity() string {
	return fmt.Sprintf("summarization/1 model=%s min_keep=%d approx=%d instruction=%s raise=%v max_input=%d max_text=%d aligned=%v max_output=%d completion_option=%v %s",
		c.model, c.minKeep, c.approx, textID(c.instruction), c.raise, c.maxInput, c.maxText, c.aligned, c.maxOutput, c.outCap.Completion != nil,
		c.ledger.Identity())
}
