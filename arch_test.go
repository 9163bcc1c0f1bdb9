package yakor_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The house's proportions, checked on every run: non-test files of at
// most maxFileLines lines and functions of at most maxFuncLines, and the
// package arrows that must not exist.
const (
	maxFileLines = 500
	maxFuncLines = 80
)

// goFiles are the module's non-test Go files.
func goFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestProportions(t *testing.T) {
	fset := token.NewFileSet()
	for _, path := range goFiles(t) {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s: %d lines, more than %d", path, n, maxFileLines)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxFuncLines {
				t.Errorf("%s: func %s is %d lines, more than %d", path, fn.Name.Name, n, maxFuncLines)
			}
		}
	}
}

// TestArrows: the packages that must not depend on each other don't (the
// text toolkit and the protocol are apart; grading and long-term memory
// need neither the anchors nor the turn engine), nor does the domain on
// the adapters above it.
func TestArrows(t *testing.T) {
	for _, rule := range []struct{ from, to string }{
		{"yakor/llm", "yakor/search"},
		{"yakor/history", "yakor/search"},
		{"yakor/mnemos", "yakor/anchors"},
		{"yakor/sufler", "yakor/anchors"},
		{"yakor/facts", "yakor/anchors"},
		{"yakor/words", "yakor"},
		{"yakor/sufler", "yakor/turn"},
		{"yakor/turn", "yakor/web"},
		{"yakor/history", "yakor/app"},
		{"yakor/mnemos", "github.com/gin-gonic/gin"},
	} {
		out, err := exec.Command("go", "list", "-deps", rule.from).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", rule.from, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == rule.to {
				t.Errorf("%s imports %s", rule.from, rule.to)
			}
		}
	}
}
