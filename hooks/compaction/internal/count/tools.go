package count

import (
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/render"
)

// toolSizes remembers how long each tool schema renders, because rendering
// one (JSON Schema, generic JSON, sorted keys) costs tens of microseconds and
// the same schemas come with every model call; without provider usage that
// was most of the cost of a call with a short conversation. An entry is keyed
// by everything render.Tools reads: Name, Desc and the ParamsOneOf pointer,
// which the key also keeps alive, so its address cannot be reused by another
// schema. A ParamsOneOf edited in place keeps its old size; schemas are
// built, not edited, in Eino. The memo is shared by every run the counter
// serves and holds no per-run state; it is emptied when it grows past
// maxToolSizes, so tools built per request cannot make it grow without bound.
type toolSizes struct {
	m sync.Map // toolKey -> int: code points of the tool's object in render.Tools
	n atomic.Int64
}

type toolKey struct {
	name, desc string
	params     *schema.ParamsOneOf
}

const maxToolSizes = 1024

// units is render.RuneLen(render.Tools(tools)): "[" + the objects of the non-nil
// tools joined by ", " + "]", so it adds up from one size per tool.
func (s *toolSizes) units(tools []*schema.ToolInfo) int {
	if s == nil {
		return render.RuneLen(render.Tools(tools))
	}
	total, k := 2, 0
	for _, t := range tools {
		if t == nil {
			continue
		}
		if k > 0 {
			total += 2
		}
		k++
		total += s.of(t)
	}
	return total
}

func (s *toolSizes) of(t *schema.ToolInfo) int {
	key := toolKey{name: t.Name, desc: t.Desc, params: t.ParamsOneOf}
	if v, ok := s.m.Load(key); ok {
		return v.(int)
	}
	n := render.RuneLen(render.Tools([]*schema.ToolInfo{t})) - 2
	if s.n.Add(1) > maxToolSizes {
		s.m.Clear()
		s.n.Store(1)
	}
	s.m.Store(key, n)
	return n
}
