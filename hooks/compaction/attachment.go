package compaction

import (
	"encoding/json"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/message"
)

// AttachmentKind is the kind of a non-text message part.
type AttachmentKind string

// The attachment kinds a rendering knows about.
const (
	AttachmentImage AttachmentKind = "image"
	AttachmentAudio AttachmentKind = "audio"
	AttachmentVideo AttachmentKind = "video"
	AttachmentFile  AttachmentKind = "file"
)

// Attachment describes a non-text message part without its data. Base64
// payloads and data: URLs are never copied into it, so nothing rendered from an
// Attachment can leak them.
type Attachment struct {
	Kind     AttachmentKind
	MIMEType string         // "" when the part does not say
	Name     string         // file name, files only
	URL      string         // an http or https URL, else ""
	Extra    map[string]any // the part's metadata, as stored
}

// shortAttachment is the placeholder counters use: "<image>", "<audio>",
// "<video>", "<file: NAME>" ("unnamed" when the file has no name). It is short
// because a counter charges attachments a flat price of their own.
func shortAttachment(a Attachment) string {
	if a.Kind == AttachmentFile {
		return "<file: " + orDefault(a.Name, "unnamed") + ">"
	}
	return "<" + string(a.Kind) + ">"
}

// DescribeAttachment is the placeholder the summarizer sees:
// "<image: MIME[, k=v...]>" and "<file: NAME, MIME[, k=v...]>" (likewise audio
// and video). MIME is "unknown type" when absent, NAME "unnamed". The pairs are
// the part's scalar metadata sorted by key (strings as is, booleans true/false,
// numbers in their shortest form; nested values are left out) plus url=URL for
// an http(s) URL. Values that look like inline data are never shown, and
// line breaks anywhere become blanks, so the placeholder is one line.
func DescribeAttachment(a Attachment) string {
	var b strings.Builder
	b.WriteString("<")
	b.WriteString(string(a.Kind))
	b.WriteString(": ")
	if a.Kind == AttachmentFile {
		b.WriteString(orDefault(a.Name, "unnamed"))
		b.WriteString(", ")
	}
	b.WriteString(orDefault(a.MIMEType, "unknown type"))
	pairs := scalarPairs(a.Extra)
	if a.URL != "" {
		if _, taken := pairs["url"]; !taken {
			pairs["url"] = a.URL
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pairs)) {
		b.WriteString(", ")
		b.WriteString(k)
		b.WriteString("=")
		b.WriteString(pairs[k])
	}
	b.WriteString(">")
	return oneLine(b.String())
}

// oneLine keeps a placeholder on one line: names and metadata are the
// sender's text, and a line break in them could start a transcript line that
// reads like a message. Every break a model may honour counts (lookalike.go:
// U+2028 in a file name started a line "[user] ..." once only "\r" and "\n"
// were blanked). Each break becomes one blank, so the code points stay put.
func oneLine(s string) string {
	if strings.IndexByte(s, '\n') < 0 && !hasRareBreak(s) {
		return s
	}
	return lineBreaks.Replace(s)
}

var lineBreaks = strings.NewReplacer("\r", " ", "\n", " ", "\v", " ", "\f", " ", lineSeparator, " ", paragraphSeparator, " ", nextLine, " ")

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// scalarPairs keeps the printable scalar values of extra.
func scalarPairs(extra map[string]any) map[string]string {
	out := make(map[string]string, len(extra)+1)
	for k, v := range extra {
		if s, ok := scalarString(v); ok && !looksLikeInlineData(s) {
			out[k] = s
		}
	}
	return out
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int:
		return strconv.Itoa(x), true
	case int8, int16, int32, int64, uint8, uint16, uint32:
		return strconv.FormatInt(message.Int64(x), 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// looksLikeInlineData catches data: URLs and long base64-looking runs that
// metadata sometimes carries; they must never reach a summarizer or a log.
func looksLikeInlineData(s string) bool {
	if strings.HasPrefix(strings.TrimSpace(strings.ToLower(s)), "data:") {
		return true
	}
	if len(s) < 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func httpURL(u *string) string {
	if u == nil {
		return ""
	}
	s := strings.TrimSpace(*u)
	l := strings.ToLower(s)
	if strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") {
		return s
	}
	return ""
}

func commonAttachment(kind AttachmentKind, c schema.MessagePartCommon, partExtra map[string]any) Attachment {
	extra := c.Extra
	if len(partExtra) > 0 {
		extra = make(map[string]any, len(c.Extra)+len(partExtra))
		maps.Copy(extra, c.Extra)
		maps.Copy(extra, partExtra)
	}
	return Attachment{Kind: kind, MIMEType: c.MIMEType, URL: httpURL(c.URL), Extra: extra}
}

// part is one piece of a message's content in order: text or an attachment.
type part struct {
	text       string
	isText     bool
	attachment Attachment
}

// contentParts yields the content of msg in order: Content first (when not
// empty), then the parts of UserInputMultiContent, AssistantGenMultiContent
// and the deprecated MultiContent. Reasoning is skipped: it is the model's
// scratch work, not conversation. A nil msg yields nothing, since
// conversations may hold nil entries and every caller would otherwise have to
// remember them.
func contentParts(msg *schema.Message) iter.Seq[part] {
	return func(yield func(part) bool) {
		if msg == nil {
			return
		}
		if msg.Content != "" && !yield(part{text: msg.Content, isText: true}) {
			return
		}
		for _, p := range msg.UserInputMultiContent {
			pp, ok := inputPart(p)
			if ok && !yield(pp) {
				return
			}
		}
		for _, p := range msg.AssistantGenMultiContent {
			pp, ok := outputPart(p)
			if ok && !yield(pp) {
				return
			}
		}
		for _, p := range msg.MultiContent {
			pp, ok := legacyPart(p)
			if ok && !yield(pp) {
				return
			}
		}
	}
}

func inputPart(p schema.MessageInputPart) (part, bool) {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return part{text: p.Text, isText: true}, true
	case p.Image != nil:
		return part{attachment: commonAttachment(AttachmentImage, p.Image.MessagePartCommon, p.Extra)}, true
	case p.Audio != nil:
		return part{attachment: commonAttachment(AttachmentAudio, p.Audio.MessagePartCommon, p.Extra)}, true
	case p.Video != nil:
		return part{attachment: commonAttachment(AttachmentVideo, p.Video.MessagePartCommon, p.Extra)}, true
	case p.File != nil:
		a := commonAttachment(AttachmentFile, p.File.MessagePartCommon, p.Extra)
		a.Name = p.File.Name
		return part{attachment: a}, true
	case p.Text != "":
		return part{text: p.Text, isText: true}, true
	}
	return part{}, false
}

func outputPart(p schema.MessageOutputPart) (part, bool) {
	switch {
	case p.Type == schema.ChatMessagePartTypeReasoning || p.Reasoning != nil:
		return part{}, false
	case p.Type == schema.ChatMessagePartTypeText:
		return part{text: p.Text, isText: true}, true
	case p.Image != nil:
		return part{attachment: commonAttachment(AttachmentImage, p.Image.MessagePartCommon, p.Extra)}, true
	case p.Audio != nil:
		return part{attachment: commonAttachment(AttachmentAudio, p.Audio.MessagePartCommon, p.Extra)}, true
	case p.Video != nil:
		return part{attachment: commonAttachment(AttachmentVideo, p.Video.MessagePartCommon, p.Extra)}, true
	case p.Text != "":
		return part{text: p.Text, isText: true}, true
	}
	return part{}, false
}

func legacyPart(p schema.ChatMessagePart) (part, bool) {
	switch {
	case p.Type == schema.ChatMessagePartTypeText:
		return part{text: p.Text, isText: true}, true
	case p.ImageURL != nil:
		u := p.ImageURL.URL
		return part{attachment: Attachment{Kind: AttachmentImage, MIMEType: p.ImageURL.MIMEType, URL: httpURL(&u), Extra: p.ImageURL.Extra}}, true
	case p.AudioURL != nil:
		u := p.AudioURL.URL
		return part{attachment: Attachment{Kind: AttachmentAudio, MIMEType: p.AudioURL.MIMEType, URL: httpURL(&u), Extra: p.AudioURL.Extra}}, true
	case p.VideoURL != nil:
		u := p.VideoURL.URL
		return part{attachment: Attachment{Kind: AttachmentVideo, MIMEType: p.VideoURL.MIMEType, URL: httpURL(&u), Extra: p.VideoURL.Extra}}, true
	case p.FileURL != nil:
		u := p.FileURL.URL
		return part{attachment: Attachment{Kind: AttachmentFile, MIMEType: p.FileURL.MIMEType, Name: p.FileURL.Name, URL: httpURL(&u), Extra: p.FileURL.Extra}}, true
	case p.Text != "":
		return part{text: p.Text, isText: true}, true
	}
	return part{}, false
}

// Attachments lists the attachments of msg in order, without their data.
// Each Extra is a copy, so the caller may change it without touching msg.
func Attachments(msg *schema.Message) []Attachment {
	if msg == nil {
		return nil
	}
	var out []Attachment
	for p := range contentParts(msg) {
		if !p.isText {
			a := p.attachment
			a.Extra = maps.Clone(a.Extra)
			out = append(out, a)
		}
	}
	return out
}
