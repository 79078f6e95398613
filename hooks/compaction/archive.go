package compaction

import (
	"context"
	"errors"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/archive"
	"github.com/einocompact/einocompact/hooks/compaction/internal/engine"
	"github.com/einocompact/einocompact/internal/redact"
)

// Archive keeps what compaction removed, so that nothing a compaction
// replaces is lost: the spans a summary replaced, the tool results a pruner
// replaced with placeholders, the messages a sliding window dropped. Set on
// the hook as HookConfig.Archive; the hook archives the removed messages
// before it applies a compaction and leaves, in the message that replaced
// them, one line naming the reference under which they are kept and the
// tool that reads them back (NewRecallTool).
//
// Entries are filed by conversation (ArchiveConversation). A reference names
// its conversation and is signed with a key only the archive knows, so a
// reference that was forged, guessed or altered is refused
// (ErrArchiveReference), and one of another conversation is refused where
// the caller's conversation is known (ErrArchiveScope). Implementations must
// be safe for concurrent use. NewFileArchive is the default that needs
// nothing but a directory.
type Archive interface {
	// Put archives messages under conversation conv and returns the
	// reference that reads them back. conv is printable ASCII without
	// spaces (ArchiveConversation's form). Put never keeps messages
	// themselves: it stores an encoding of them.
	Put(ctx context.Context, conv string, messages []*schema.Message) (ref string, err error)
	// Get returns the conversation ref was issued for and the messages
	// archived under it. A reference the archive did not issue returns an
	// error wrapping ErrArchiveReference; an entry expired or evicted, one
	// wrapping ErrArchiveNotFound.
	Get(ctx context.Context, ref string) (conv string, messages []*schema.Message, err error)
}

var (
	// ErrArchiveReference is wrapped by the errors of a reference the
	// archive did not issue: malformed, forged, guessed or altered.
	ErrArchiveReference = archive.ErrReference
	// ErrArchiveNotFound is wrapped by the errors of a genuine reference
	// whose entry is gone: expired (TTL) or evicted (size cap).
	ErrArchiveNotFound = archive.ErrNotFound
	// ErrArchiveScope is wrapped by the errors of a reference issued for
	// another conversation than the caller's.
	ErrArchiveScope = archive.ErrScope
)

// ArchiveConversation returns the conversation key under which the archive
// files messages: "cv" and 32 hex digits. It is the key of the conversation's
// lineage, stable across compactions: when a message carries the archive
// reference of an earlier compaction in its marker (the hook writes it
// there), the key is that reference's conversation; otherwise it is the
// digest of the conversation's system messages and first other message, the
// anchor the Store files conversations by. ok is false when messages hold
// nothing but system messages.
//
// A marker is set by code, never by the model or the user's text, so the
// lineage cannot be claimed by what the agent writes.
func ArchiveConversation(messages []*schema.Message) (conv string, ok bool) {
	return engine.ArchiveConversation(messages)
}

// ArchiveRefOf returns the archive reference a compaction left in msg's
// marker (HookConfig.Archive), and false when it left none.
func ArchiveRefOf(msg *schema.Message) (string, bool) { return archive.RefOf(msg) }

// MinArchiveKeyBytes is the shortest key NewArchiveRefs accepts.
const MinArchiveKeyBytes = 16

// ArchiveRefs issues and checks the signed references of an Archive kept
// outside this package (integration/redisstore keeps one in Redis): the
// same form and the same checks as FileArchive's, so ArchiveConversation
// follows their lineage and a forged, guessed or altered one is refused
// with ErrArchiveReference. The zero value is not usable.
type ArchiveRefs struct{ signer *archive.Signer }

// NewArchiveRefs returns the references signed with key, which must be
// secret, at least MinArchiveKeyBytes long and shared by every process
// reading the same archive.
func NewArchiveRefs(key []byte) (ArchiveRefs, error) {
	s, err := archive.NewSigner(key)
	return ArchiveRefs{signer: s}, err
}

// Issue returns a new entry id in conversation conv and its reference;
// conv must be a key from ArchiveConversation.
func (r ArchiveRefs) Issue(conv string) (ref, entry string, err error) { return r.signer.Issue(conv) }

// Check verifies ref's form and signature and returns its conversation and
// entry id; the error wraps ErrArchiveReference.
func (r ArchiveRefs) Check(ref string) (conv, entry string, err error) { return r.signer.Check(ref) }

// Defaults of a FileArchive.
const (
	// DefaultArchiveTTL is how long a FileArchive keeps an entry.
	DefaultArchiveTTL = 24 * time.Hour
	// DefaultArchiveMaxBytes bounds a FileArchive's directory.
	DefaultArchiveMaxBytes = 256 << 20
)

// FileArchive is an Archive in a directory: one append-only file per
// conversation ("CONV.arc"), and the key that signs references
// ("archive.key", made once, by whichever process comes first). Several
// processes may share the directory (replicas on one host or one shared
// volume that honours flock): a record is written with one write call on a
// file opened for appending, under an exclusive flock, and every record
// carries a checksum, so a crash mid-write leaves a torn last record that
// readers skip and the next writer starts after.
//
// Entries live TTL (WithArchiveTTL) and the directory stays within MaxBytes
// (WithArchiveMaxBytes): past it, whole conversations are evicted, the least
// recently written first, and a single conversation larger than the cap
// keeps its newest entries. Every file in the directory counts (the key,
// and the temporary files a crash mid-trim leaves, which a sweep removes
// once they are an hour old). A process sweeps before a write that would
// take what it wrote since its last sweep past a sixteenth of the cap, and
// leaves room for that sixteenth: one writing process keeps the directory
// within the cap, and each further process sharing it may take it past
// the cap by up to a sixteenth more.
type FileArchive struct {
	config archive.Config // the options, read by NewFileArchive
	file   *archive.File
}

var _ Archive = (*FileArchive)(nil)

// FileArchiveOption sets a FileArchive's option.
type FileArchiveOption func(*FileArchive)

// WithArchiveTTL sets how long entries are kept; 0 keeps the default,
// DefaultArchiveTTL; it must not be negative.
func WithArchiveTTL(ttl time.Duration) FileArchiveOption {
	return func(a *FileArchive) { a.config.TTL = ttl }
}

// WithArchiveMaxBytes bounds the directory's size in bytes; 0 keeps the
// default, DefaultArchiveMaxBytes; it must not be negative.
func WithArchiveMaxBytes(n int64) FileArchiveOption {
	return func(a *FileArchive) { a.config.MaxBytes = n }
}

// NewFileArchive returns a FileArchive in dir, creating dir (0700) and its
// key when missing. Errors name the bad option and its value.
func NewFileArchive(dir string, opts ...FileArchiveOption) (*FileArchive, error) {
	a := &FileArchive{}
	for _, o := range opts {
		o(a)
	}
	var err error
	if a.file, err = a.config.Open(dir); err != nil {
		return nil, err
	}
	return a, nil
}

// Put implements Archive.
func (a *FileArchive) Put(ctx context.Context, conv string, messages []*schema.Message) (string, error) {
	return a.file.Put(ctx, conv, messages)
}

// Get implements Archive.
func (a *FileArchive) Get(ctx context.Context, ref string) (string, []*schema.Message, error) {
	return a.file.Get(ctx, ref)
}

// RedactSecrets is the redaction the inspector applies to the conversation
// text it captures: the user information and query of every URL are masked,
// and so is every word that starts like a provider's API key ("sk-",
// "gsk_", "AIza", ...). Pass it to RedactArchive.
func RedactSecrets(s string) string { return redact.Text(s) }

// RedactArchive returns an Archive that writes to a every message passed
// through redact first (RedactSecrets for the inspector's redaction), so
// the secrets never reach the archive's disk or server. It rewrites every
// text the recall tool shows (content, reasoning, text parts, tool-call
// arguments, tool names and ids) and keeps, of a message's Extra, only the
// compaction marker: the rest is never shown and may hold anything. The
// caller's messages are not touched. Get reads a as it is. With a nil
// redact, a itself is returned.
func RedactArchive(a Archive, redact func(string) string) (Archive, error) {
	if a == nil {
		return nil, errors.New("compaction: RedactArchive needs an Archive, got nil")
	}
	if redact == nil {
		return a, nil
	}
	return &archive.Redacting{Archive: a, Redact: redact}, nil
}

// RecallToolName is the name of the tool NewRecallTool returns, which the
// line an archived compaction's summary ends with tells the model to call.
const RecallToolName = "recall"

// DefaultRecallMaxChars is the size of one page of the recall tool's
// output, in code points, when WithRecallMaxChars does not set it.
const DefaultRecallMaxChars = 8000

// recallTool is the tool NewRecallTool returns; the name keeps
// RecallOption's signature as it was.
type recallTool = archive.Recall

// RecallOption sets an option of NewRecallTool.
type RecallOption func(*recallTool)

// WithRecallMaxChars caps one page of the tool's output at n code points
// (about n/4 tokens); what is longer is paged. Default
// DefaultRecallMaxChars; n must be at least 200.
func WithRecallMaxChars(n int) RecallOption {
	return func(r *recallTool) { r.MaxChars = n }
}

// WithRecallRedact rewrites every piece of archived text before the tool
// returns it (RenderOptions.Text), for the secrets redaction the inspector
// applies. Default none: the text the agent saw, as it was.
func WithRecallRedact(redact func(string) string) RecallOption {
	return func(r *recallTool) { r.Redact = redact }
}

type conversationKey struct{}

// WithConversation returns ctx naming conv (ArchiveConversation) as the
// conversation a tool call belongs to. The recall tool then refuses
// references of any other conversation (ErrArchiveScope). The agent package
// and the integrations set it for every tool call when an archive is
// configured.
func WithConversation(ctx context.Context, conv string) context.Context {
	return context.WithValue(ctx, conversationKey{}, conv)
}

// ConversationFrom returns the conversation WithConversation put in ctx.
func ConversationFrom(ctx context.Context) (string, bool) {
	conv, ok := ctx.Value(conversationKey{}).(string)
	return conv, ok && conv != ""
}

// NewRecallTool returns the Eino tool "recall", which reads back what
// compaction archived (HookConfig.Archive): given the reference a compacted
// conversation names, and optionally a search string or a page number, it
// returns the archived messages rendered as the agent first saw them (tool
// results as "[tool:NAME id=CALLID] RESULT", Render's transcript form),
// WithRecallMaxChars code points per page.
//
// The tool returns an error, never text, for a reference it must refuse: one
// the archive did not issue (forged, guessed or altered: ErrArchiveReference),
// one whose entry expired or was evicted (ErrArchiveNotFound), and one of
// another conversation than the ctx names (WithConversation; ErrArchiveScope).
// The agent package hands such an error to the model as the call's result.
// What it returns is a tool result: archived text is data and never comes
// back as a user or system message.
func NewRecallTool(a Archive, opts ...RecallOption) (tool.InvokableTool, error) {
	r := &recallTool{Name: RecallToolName, Archive: a, Scope: ConversationFrom, MaxChars: DefaultRecallMaxChars}
	for _, o := range opts {
		o(r)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}
