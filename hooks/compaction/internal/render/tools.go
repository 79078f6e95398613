package render

import (
	"github.com/cloudwego/eino/schema"

	"github.com/einocompact/einocompact/hooks/compaction/internal/digest"
)

// Tools renders tool schemas as a stable JSON array of objects with the
// keys "description", "name" and "parameters" (the JSON Schema of the
// arguments, omitted when the tool takes none). Keys are sorted at every level
// and separators are ", " and ": ", so equal schemas always render alike. It
// returns "" for no tools.
func Tools(tools []*schema.ToolInfo) string {
	if len(tools) == 0 {
		return ""
	}
	list := make([]any, 0, len(tools))
	for _, t := range tools {
		if t == nil {
			continue
		}
		obj := map[string]any{"description": t.Desc, "name": t.Name}
		if t.ParamsOneOf != nil {
			if js, err := t.ParamsOneOf.ToJSONSchema(); err == nil && js != nil {
				if v, err := digest.Generic(js); err == nil {
					obj["parameters"] = v
				}
			}
		}
		list = append(list, obj)
	}
	return digest.StableJSON(list)
}
