// Package compaction keeps an agent's conversation inside its model's context
// window: before each model call, a hook measures the conversation and, past a
// threshold, has a compactor replace its oldest parts with summaries written
// by a chat model.
//
// # The path a user takes
//
// Five steps add compaction to an agent; examples/quickstart is the
// whole program.
//
//  1. A counter measures conversations. DefaultCounter (an
//     ApproximateTokenCounter: code points divided by 4, no tokenizer) is the
//     default; NewApproximateTokenCounter tunes it, and package
//     hooks/compaction/tiktoken counts exactly.
//  2. A compactor decides what to replace. NewSummarizationCompactor builds
//     a SummarizationCompactor from a SummarizationConfig whose ChatModel
//     writes the summaries (any model.BaseChatModel; a small one is fine).
//  3. A hook decides when. NewCompactionHook builds a CompactionHook from a
//     HookConfig: the
//     Compactor, the model's ContextWindow, and optionally CompactAt (0.7),
//     CompactTo (0.4), PrepareAt (0: compact synchronously) and
//     TokenCounter. Register it at hooks.BeforeLLM.
//  4. An Observer (ObserverFunc) receives a Report for every triggered
//     compaction: tokens and messages before and after, each summarizer
//     Round, identifiers kept, how long the model call waited. The hook also
//     logs one line per compaction to its Logger.
//  5. Markers tell a summary from a message a person wrote: IsStrategy(msg,
//     StrategySummarization), or MarkerOf(msg). The marker under
//     schema.Message.Extra[MetaKey] decides, never the text.
//     ReplacedMessages counts what a compaction replaced, by content.
//
// Failures wrap ErrNoUsableSummary (the summarizer returned nothing usable)
// and ErrSummaryNotSmaller (the summary did not shrink the conversation);
// by default they are logged and the last good round is kept (see
// SummarizationConfig.RaiseOnFailure).
//
// # Other compactors
//
// SlidingWindowCompactor drops the oldest turns and steps behind a note
// (SlidingWindowConfig; DefaultOmissionNote; StrategySlidingWindow),
// ToolResultPruningCompactor replaces old large tool results with a
// placeholder (ToolResultPruningConfig; StrategyToolResultPruning), and
// Pipeline tries
// compactors in order until the target is met: cheap passes first,
// summarization last. Summaries keep exact identifiers through the
// identifier ledger (LedgerConfig, IdentifierStats).
//
// # Writing a compactor or a counter
//
// docs/writing-a-compactor.md walks through one. What it needs from here:
//
//   - The contracts: Compactor (or CompactorFunc), TokenCounter (or
//     TokenCounterFunc); AdditiveCounter and Cost for a counter that can
//     measure one message at a time, which keeps planning O(n); SizeFloor for
//     a compactor that cannot plan below some target.
//   - The conversation's structure: IsRealUser, IsToolResult,
//     LastAssistantIndex, HasMarkerKey; ErrBrokenToolPairing for a result
//     that would orphan a tool call.
//   - Rendering, as the counters and summaries see messages: Render,
//     RenderMessage, RenderOptions, RenderTools, Transcript, ReasoningSent;
//     Attachments lists a message's attachments (Attachment, of an
//     AttachmentKind: the Attachment constants), DescribeAttachment renders
//     one.
//   - Marking what it writes: NewMarker, NewSummaryMessage, MarkerFields,
//     Marker.
//   - The request being compacted: RequestTools (the tools the hook was
//     handed, put there with WithRequestTools) and Awaited (closed once a
//     model call waits for this compaction).
//
// # The rest
//
//   - Summarizer rounds: DefaultSummaryInstruction and the
//     BudgetWordsPlaceholder a custom one may use, the Tier constants
//     (which rule chose a round's messages, as a Plan), the Shape constants
//     and the Fallback constants (how a CacheAligned round was sent),
//     the OutputCap constants and the CapRetry constants (how a round sent
//     its output cap to a summarizer, a reasoning model, that refused
//     max_tokens or reasoned its cap away), SplitLedger, and AlignedSpan
//     for a summarizer that reads a cache-aligned request as a transcript.
//   - The hook's state, for tools that draw it: Limits, PreparedDone,
//     Report's fields.
//   - Sharing compactions between replicas: Store (MemoryStore keeps one
//     in process), Lease, Digest, Identifier, ErrLeaseLost.
//   - Eino callbacks: ComponentCompaction and CompactionInput.
//   - What a compaction costs against what it saves (HookConfig.Prices):
//     Prices, relative to an uncached input token, and PricesPreset with
//     PricesOpenAI, PricesAnthropic and PricesNoCache. They choose deep
//     compactions (Report.Deep; off with HookConfig.AimAtCompactTo). The
//     presets with a cache keep it DefaultCacheTTL (Prices.CacheTTL): a
//     prefix idle longer is cold, and a compaction applied then
//     invalidates nothing (Report.ColdCache).
//   - Nothing replaced is lost (HookConfig.Archive): an Archive keeps what
//     each compaction removed (FileArchive from NewFileArchive, with
//     FileArchiveOption values WithArchiveTTL and WithArchiveMaxBytes;
//     defaults DefaultArchiveTTL and DefaultArchiveMaxBytes), the message
//     that replaced it points at it (ArchiveRefOf), and NewRecallTool
//     (RecallOption values WithRecallMaxChars, WithRecallRedact; default
//     DefaultRecallMaxChars) gives the agent the tool named RecallToolName
//     to read it back. A conversation is named by ArchiveConversation and
//     carried to tool calls by WithConversation and ConversationFrom; a bad
//     reference fails with ErrArchiveReference, ErrArchiveNotFound or
//     ErrArchiveScope. An Archive kept elsewhere (integration/redisstore)
//     signs and checks its references with ArchiveRefs, from
//     NewArchiveRefs and a key of at least MinArchiveKeyBytes. RedactArchive
//     with RedactSecrets masks secrets before an Archive writes them.
//   - Counter settings: ApproximateConfig, NoCharge, and their bounds
//     MinCharsPerToken, MaxCharsPerToken, MaxAttachmentCharge.
package compaction
