// Package tiktoken counts tokens exactly with OpenAI's BPE encodings
// (o200k_base, cl100k_base), for when the approximate counter's estimate is
// not close enough: small context windows, or non-English and code-heavy
// conversations where a fixed characters-per-token ratio drifts.
//
// The encodings are compiled into the binary (github.com/tiktoken-go/tokenizer
// embeds them), so nothing is downloaded at run time; loading one takes a
// noticeable moment and is done once, on first use or at WarmUp.
//
// BPE is slow next to the approximate counter, and compaction counts the same
// messages again and again (every model call, every candidate group), so the
// counter remembers the token count of each message it has seen. The cache
// never changes a result: see Counter.
package tiktoken

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/schema"
	"github.com/tiktoken-go/tokenizer"

	"github.com/einocompact/einocompact/hooks"
	"github.com/einocompact/einocompact/hooks/compaction"
)

// Encoding names a BPE encoding.
type Encoding string

// The supported encodings.
const (
	// O200kBase is the encoding of GPT-4o, GPT-4.1, GPT-5 and the o-series.
	O200kBase Encoding = "o200k_base"
	// Cl100kBase is the encoding of GPT-4 and GPT-3.5 Turbo.
	Cl100kBase Encoding = "cl100k_base"
)

// Config configures a Counter. A nil config, or zero fields, take the
// defaults.
type Config struct {
	// Encoding is the BPE encoding to count with. Default O200kBase.
	Encoding Encoding
	// TokensPerImage is charged per image, as the approximate counter does,
	// since images are not text. Default 85; compaction.NoCharge charges
	// nothing; no other negative value and nothing above
	// compaction.MaxAttachmentCharge is accepted.
	TokensPerImage int
	// TokensPerFile is charged per file, audio or video part. Default 1000;
	// compaction.NoCharge charges nothing; no other negative value and
	// nothing above compaction.MaxAttachmentCharge is accepted.
	TokensPerFile int
	// CacheEntries bounds the per-message cache; when full it is emptied
	// and refilled. Default 8192; must not be negative.
	CacheEntries int
	// DisableCache turns the per-message cache off (every count tokenizes
	// everything), for memory-tight hosts and for benchmarks.
	DisableCache bool
}

// Counter is a compaction.TokenCounter that counts the BPE tokens of the same
// rendering the approximate counter measures (compaction.Render of the
// messages followed by compaction.RenderTools of the tools) and of the
// reasoning sent with each message (compaction.ReasoningSent, tokenized on
// its own, as the separate field it is sent in), plus the same flat charges
// per attachment. The encoding is loaded lazily, once; WarmUp
// loads it ahead of the first count. Safe for concurrent use.
//
// It tokenizes each message's rendering together with the "\n" that
// separates it from the next (the last one together with the tool schemas).
// Every rendered message starts with "[", and neither encoding's
// pre-tokenizer lets a piece run from a newline into a following "[", so the
// pieces (hence the tokens) of the whole text are exactly those of the
// segments: the sum is the count of the whole rendering, and each segment's
// count can be cached by its content.
type Counter struct {
	encoding       Encoding
	tokensPerImage int
	tokensPerFile  int
	cache          *segmentCache // nil when disabled

	once  sync.Once
	codec tokenizer.Codec
	err   error
}

var (
	_ compaction.TokenCounter = (*Counter)(nil)
	_ hooks.WarmUpper         = (*Counter)(nil)
)

// New validates cfg and returns a counter; the encoding is not loaded yet.
func New(cfg *Config) (*Counter, error) {
	c := &Counter{encoding: O200kBase, tokensPerImage: 85, tokensPerFile: 1000, cache: newSegmentCache(8192)}
	if cfg == nil {
		return c, nil
	}
	switch cfg.Encoding {
	case "":
	case O200kBase, Cl100kBase:
		c.encoding = cfg.Encoding
	default:
		return nil, fmt.Errorf("tiktoken: Config.Encoding must be %q or %q, got %q", O200kBase, Cl100kBase, cfg.Encoding)
	}
	if cfg.TokensPerImage < 0 && cfg.TokensPerImage != compaction.NoCharge {
		return nil, fmt.Errorf("tiktoken: Config.TokensPerImage must be at least 0 (or compaction.NoCharge), got %d", cfg.TokensPerImage)
	}
	if cfg.TokensPerFile < 0 && cfg.TokensPerFile != compaction.NoCharge {
		return nil, fmt.Errorf("tiktoken: Config.TokensPerFile must be at least 0 (or compaction.NoCharge), got %d", cfg.TokensPerFile)
	}
	if cfg.TokensPerImage > compaction.MaxAttachmentCharge {
		return nil, fmt.Errorf("tiktoken: Config.TokensPerImage must be at most %d (compaction.MaxAttachmentCharge), got %d",
			compaction.MaxAttachmentCharge, cfg.TokensPerImage)
	}
	if cfg.TokensPerFile > compaction.MaxAttachmentCharge {
		return nil, fmt.Errorf("tiktoken: Config.TokensPerFile must be at most %d (compaction.MaxAttachmentCharge), got %d",
			compaction.MaxAttachmentCharge, cfg.TokensPerFile)
	}
	if cfg.CacheEntries < 0 {
		return nil, fmt.Errorf("tiktoken: Config.CacheEntries must be at least 0, got %d", cfg.CacheEntries)
	}
	if cfg.CacheEntries > 0 {
		c.cache = newSegmentCache(cfg.CacheEntries)
	}
	if cfg.DisableCache {
		c.cache = nil
	}
	c.tokensPerImage = charge(cfg.TokensPerImage, c.tokensPerImage)
	c.tokensPerFile = charge(cfg.TokensPerFile, c.tokensPerFile)
	return c, nil
}

// charge resolves a configured per-attachment charge as the approximate
// counter does: 0 is the default, compaction.NoCharge is nothing.
func charge(configured, def int) int {
	switch configured {
	case compaction.NoCharge:
		return 0
	case 0:
		return def
	}
	return configured
}

// Encoding reports the counter's encoding.
func (c *Counter) Encoding() Encoding { return c.encoding }

// WarmUp implements hooks.WarmUpper: it loads the encoding now so the first
// model call of an agent does not pay for it. Calling it again does nothing.
func (c *Counter) WarmUp(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tiktoken: warm up: %w", err)
	}
	_, err := c.load()
	return err
}

func (c *Counter) load() (tokenizer.Codec, error) {
	c.once.Do(func() {
		codec, err := tokenizer.Get(tokenizer.Encoding(c.encoding))
		if err != nil {
			c.err = fmt.Errorf("tiktoken: loading %s: %w", c.encoding, err)
			return
		}
		c.codec = codec
	})
	return c.codec, c.err
}

// Count implements compaction.TokenCounter. It returns 0 for no messages and
// no tools.
func (c *Counter) Count(ctx context.Context, messages []*schema.Message, tools []*schema.ToolInfo) (int, error) {
	if len(messages) == 0 && len(tools) == 0 {
		return 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("tiktoken: %w", err)
	}
	codec, err := c.load()
	if err != nil {
		return 0, err
	}
	schemas := compaction.RenderTools(tools)
	if len(messages) == 0 {
		return c.segment(codec, schemas)
	}
	n := 0
	for i, m := range messages {
		if i%64 == 63 {
			if err := ctx.Err(); err != nil {
				return 0, fmt.Errorf("tiktoken: %w", err)
			}
		}
		seg := compaction.RenderMessage(m, compaction.RenderOptions{})
		if i < len(messages)-1 {
			seg += "\n"
		} else {
			seg += schemas
		}
		k, err := c.segment(codec, seg)
		if err != nil {
			return 0, err
		}
		n += k
		// Reasoning is sent as a field of its own, so it is tokenized
		// on its own.
		if k, err = c.segment(codec, compaction.ReasoningSent(m)); err != nil {
			return 0, err
		}
		n += k
		for _, a := range compaction.Attachments(m) {
			if a.Kind == compaction.AttachmentImage {
				n += c.tokensPerImage
			} else {
				n += c.tokensPerFile
			}
		}
	}
	return n, nil
}

// segment counts the tokens of one segment, through the cache when enabled.
func (c *Counter) segment(codec tokenizer.Codec, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	if c.cache == nil {
		return c.tokenize(codec, s)
	}
	key := segmentKey(s)
	if n, ok := c.cache.get(key); ok {
		return n, nil
	}
	n, err := c.tokenize(codec, s)
	if err == nil {
		c.cache.put(key, n)
	}
	return n, err
}

func (c *Counter) tokenize(codec tokenizer.Codec, s string) (int, error) {
	n, err := codec.Count(s)
	if err != nil {
		return 0, fmt.Errorf("tiktoken: counting: %w", err)
	}
	return n, nil
}
