package openapigen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unicode"
)

// fieldDocs reads the doc comments of struct fields from the module's
// source, so that a member's description is its field's doc comment.
type fieldDocs struct {
	moduleDir, modulePath string
	// byPackage holds, by package path, the doc of each field by
	// "Type.Field" (an inline struct's fields by "Type.Field.Inner").
	byPackage map[string]map[string]string
}

func newFieldDocs(moduleDir, modulePath string) *fieldDocs {
	return &fieldDocs{moduleDir: moduleDir, modulePath: modulePath, byPackage: map[string]map[string]string{}}
}

// of is the doc comment of the field at path ("Type.Field") in package
// pkg, "" when it has none or the package is not the module's.
func (d *fieldDocs) of(pkg, path string) (string, error) {
	docs, ok := d.byPackage[pkg]
	if !ok {
		var err error
		if docs, err = d.parse(pkg); err != nil {
			return "", err
		}
		d.byPackage[pkg] = docs
	}
	return docs[path], nil
}

// parse reads the field docs of package pkg's non-test files.
func (d *fieldDocs) parse(pkg string) (map[string]string, error) {
	docs := map[string]string{}
	rel, ok := strings.CutPrefix(pkg, d.modulePath)
	if !ok || (rel != "" && rel[0] != '/') {
		return docs, nil
	}
	dir := filepath.Join(d.moduleDir, filepath.FromSlash(rel))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if spec, ok := n.(*ast.TypeSpec); ok {
				addStructDocs(docs, spec.Name.Name, spec.Type)
				return false
			}
			return true
		})
	}
	return docs, nil
}

// addStructDocs records the docs of the fields of expr, a struct type
// (or a pointer to one) at prefix.
func addStructDocs(docs map[string]string, prefix string, expr ast.Expr) {
	if star, ok := expr.(*ast.StarExpr); ok {
		expr = star.X
	}
	st, ok := expr.(*ast.StructType)
	if !ok {
		return
	}
	for _, f := range st.Fields.List {
		text := f.Doc.Text()
		if text == "" {
			text = f.Comment.Text()
		}
		for _, name := range f.Names {
			docs[prefix+"."+name.Name] = text
			addStructDocs(docs, prefix+"."+name.Name, f.Type)
		}
	}
}

// description turns a field's doc comment into a member's description:
// lines joined into paragraphs, and a leading Go field name replaced by
// the member's JSON name ("FullPage captures" becomes "fullPage captures").
func description(doc string, f reflect.StructField, member string) string {
	var paras []string
	for p := range strings.SplitSeq(strings.TrimSpace(doc), "\n\n") {
		paras = append(paras, strings.Join(strings.Fields(p), " "))
	}
	text := strings.Join(paras, "\n\n")
	if rest, ok := strings.CutPrefix(text, f.Name); ok && (rest == "" || !unicode.IsLetter(rune(rest[0]))) {
		text = member + rest
	}
	return text
}
