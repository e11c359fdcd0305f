package cmd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mfdlq/mfdlq/cmd/cmdutil"
	"github.com/mfdlq/mfdlq/docs"
)

// helpName is the name docs marks c's help with: the command's name, and
// "mfdlq" for the root.
func helpName(c *cobra.Command) string {
	if !c.HasParent() {
		return "mfdlq"
	}
	return strings.Join(strings.Fields(strings.TrimPrefix(c.CommandPath(), "mfdlq ")), "-")
}

// TestEveryHelpComesFromDocs: every command's Long help is the block its
// page marks <!-- help: COMMAND --> followed by the exit statuses (the
// root's with the runbook's step list in place of {steps}), its Example the
// block marked <!-- example: COMMAND -->, and every marked block is some
// command's: the help is written once, in docs/, and none lies there
// unused.
func TestEveryHelpComesFromDocs(t *testing.T) {
	d, _, _ := testDeps(t, false)
	root := newRootCmd(d)
	used := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		name := helpName(c)
		long := docs.Long(name) // panics when no page holds it
		used["help: "+name] = true
		parts := strings.Split(long, "{steps}\n")
		want := strings.Join(parts, stepList()) + cmdutil.ExitStatusHelp
		if c.Long != want {
			t.Errorf("mfdlq %s's Long is not the block marked <!-- help: %s --> in docs and the exit statuses:\n got: %q\nwant: %q", c.Name(), name, c.Long, want)
		}
		if c.Example != "" {
			used["example: "+name] = true
			if c.Example != docs.Example(name) {
				t.Errorf("mfdlq %s's Example is not the block marked <!-- example: %s --> in docs:\n%s", c.Name(), name, c.Example)
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if len(used) < 18 {
		t.Errorf("only %d help files used; the tree has lost commands: %v", len(used), used)
	}
	for key, page := range docs.Sections() {
		if !used[key] {
			t.Errorf("docs/%s marks <!-- %s --> for no command: remove the marker, or give the command Long: docs.Long(…) / Example: docs.Example(…)", page, key)
		}
	}
}

// TestNoHelpWrittenInCmd: no Long or Example in cmd/ (its packages
// included) holds a string literal of more than three lines: the help is
// written in docs/*.md and read with docs.Long and docs.Example.
func TestNoHelpWrittenInCmd(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == "testdata" {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			var value ast.Expr
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && (k.Name == "Long" || k.Name == "Example") {
					value = n.Value
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if s, ok := l.(*ast.SelectorExpr); ok && (s.Sel.Name == "Long" || s.Sel.Name == "Example") && i < len(n.Rhs) {
						value = n.Rhs[i]
					}
				}
			}
			if value == nil {
				return true
			}
			ast.Inspect(value, func(v ast.Node) bool {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Count(lit.Value, "\n") >= 3 {
					t.Errorf("%s: a help text of %d lines written in cmd; move it to its docs page, marked, and read it with docs.Long or docs.Example", fset.Position(lit.Pos()), strings.Count(lit.Value, "\n")+1)
				}
				return true
			})
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Errorf("only %d files of cmd/ checked", checked)
	}
}
