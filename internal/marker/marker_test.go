package marker

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The marker's key is spelled out in one place of the module's code; every
// other package names it (compaction.MetaKey, or the deprecated
// einoint.MetaKey, both this Key). Two spellings could drift apart, and a
// compactor's marks would then go unseen by the other package.
func TestKeyIsSpelledOnce(t *testing.T) {
	t.Parallel()
	var where []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && d.Name() != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), `"`+Key+`"`) {
			where = append(where, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(where) != 1 || filepath.Base(where[0]) != "marker.go" || filepath.Base(filepath.Dir(where[0])) != "marker" {
		t.Errorf("%q is spelled out in %v; want internal/marker/marker.go alone", Key, where)
	}
}
