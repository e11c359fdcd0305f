package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestScriptCmdsOneLiteral: every testscript command is a key of the one
// scriptCmds literal, where the compiler rejects a name given twice. A
// registration elsewhere (an init() that assigns scriptCmds["x"], as two
// files once did) could overwrite a command silently, and a reader looking
// for a command would not find it in the map.
func TestScriptCmdsOneLiteral(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			idx, ok := n.(*ast.IndexExpr)
			if !ok {
				return true
			}
			if id, ok := idx.X.(*ast.Ident); ok && id.Name == "scriptCmds" {
				if assignedTo(f, idx) {
					t.Errorf("%s: scriptCmds is written outside its literal: add the command to the map in script_cmds_test.go", fset.Position(idx.Pos()))
				}
			}
			return true
		})
	}
}

// assignedTo reports whether expr is the left-hand side of an assignment
// in f.
func assignedTo(f *ast.File, expr ast.Expr) bool {
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, lhs := range as.Lhs {
				if lhs == expr {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
