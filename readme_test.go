package voting_test

// The Go code of the README and of the guides in docs/ is copied from
// Example functions, which go test compiles and runs: the README's quick
// start from Example_quickStart, every other block from an example of
// example_test.go, docs_example_test.go or comments_example_test.go. These
// tests keep the copies true, and the operations guide's ACL line equal to
// the tested one.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quickStartExample is the example that the README's quick start copies.
const quickStartExample = "Example_quickStart"

// quickStartBlock returns the lines of the first ```go block under the
// README's "## Quick start" heading.
func quickStartBlock(readme string) ([]string, bool) {
	_, section, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		return nil, false
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, code, ok := strings.Cut(section, "\n```go\n")
	if !ok {
		return nil, false
	}
	code, _, ok = strings.Cut(code, "\n```")
	if !ok {
		return nil, false
	}
	return strings.Split(code, "\n"), true
}

// funcSource returns the lines of the named function in a Go source file.
func funcSource(t *testing.T, file, name string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name && fn.Recv == nil {
			body := src[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset]
			return strings.Split(string(body), "\n")
		}
	}
	t.Fatalf("%s has no function %s", file, name)
	return nil
}

// unindent drops each line's leading and trailing blanks: the README's
// block starts at the left margin, the example's body one tab in.
func unindent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// consecutive reports where want appears as consecutive lines of have, or -1.
func consecutive(have, want []string) int {
	for i := 0; i+len(want) <= len(have); i++ {
		match := true
		for j := range want {
			if have[i+j] != want[j] {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}

func TestReadmeQuickStartIsCompiled(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block, ok := quickStartBlock(string(readme))
	if !ok {
		t.Fatal("README.md has no ```go block under \"## Quick start\"")
	}
	want := unindent(block)
	// The block is the whole quick start, not a fragment of it.
	code := strings.Join(want, "\n")
	for _, call := range []string{"redis.Pool{", "voting.New(", ".PostArticle(", ".Vote(", ".UserVotes(", "log.Fatal(err)"} {
		if !strings.Contains(code, call) {
			t.Errorf("the quick start has no %q", call)
		}
	}
	if !strings.Contains(code, ".GetArticles(") && !strings.Contains(code, ".List(") {
		t.Error("the quick start reads no listing (GetArticles or List)")
	}
	have := unindent(funcSource(t, "example_test.go", quickStartExample))
	if consecutive(have, want) >= 0 {
		return
	}
	// Name the first README line that breaks the run from the best start.
	best, bestLen := -1, 0
	for i := range have {
		n := 0
		for i+n < len(have) && n < len(want) && have[i+n] == want[n] {
			n++
		}
		if n > bestLen {
			best, bestLen = i, n
		}
	}
	if best < 0 {
		t.Fatalf("the README's quick start is not in %s: its first line %q is not there", quickStartExample, want[0])
	}
	got := "(the function's end)"
	if best+bestLen < len(have) {
		got = have[best+bestLen]
	}
	t.Fatalf("the README's quick start is not a copy of %s in example_test.go: its line %d, %q, is %q there",
		quickStartExample, bestLen+1, want[bestLen], got)
}

// exampleFiles hold the Example functions that the docs' Go code copies.
var exampleFiles = []string{"example_test.go", "docs_example_test.go", "comments_example_test.go"}

// An exampleFunc is an Example function's lines, unindented.
type exampleFunc struct {
	file, name string
	lines      []string
}

// exampleFuncs returns every Example function of exampleFiles.
func exampleFuncs(t *testing.T) []exampleFunc {
	t.Helper()
	var funcs []exampleFunc
	for _, file := range exampleFiles {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			body := src[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset]
			funcs = append(funcs, exampleFunc{file, fn.Name.Name, unindent(strings.Split(string(body), "\n"))})
		}
	}
	return funcs
}

// A goBlock is a ```go block of a Markdown file: its number in the file
// (from 1), the line its fence opens on, the heading it is under, and its
// lines.
type goBlock struct {
	n, line int
	heading string
	lines   []string
}

func (b goBlock) String() string {
	return fmt.Sprintf("```go block %d (line %d, under %q)", b.n, b.line, b.heading)
}

// goBlocks returns the ```go blocks of a Markdown text; fences may be
// indented, as in a list item.
func goBlocks(text string) ([]goBlock, error) {
	var blocks []goBlock
	var b *goBlock
	heading := "(the top)"
	for i, l := range strings.Split(text, "\n") {
		fence := strings.TrimSpace(l)
		switch {
		case b != nil && fence == "```":
			blocks = append(blocks, *b)
			b = nil
		case b != nil:
			b.lines = append(b.lines, l)
		case fence == "```go":
			b = &goBlock{n: len(blocks) + 1, line: i + 1, heading: heading}
		case strings.HasPrefix(l, "#"):
			heading = strings.TrimSpace(strings.TrimLeft(l, "#"))
		}
	}
	if b != nil {
		return blocks, fmt.Errorf("%v has no closing ```", *b)
	}
	return blocks, nil
}

// docFiles are the Markdown files whose Go code must be compiled: the
// README and the guides.
func docFiles(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(guides) == 0 {
		t.Fatal("docs/ holds no guide (*.md)")
	}
	return append([]string{"README.md"}, guides...)
}

// TestDocsGoBlocksAreCompiled: every ```go block of README.md and of
// docs/*.md stands, line for line (leading and trailing blanks aside), in
// one Example function of exampleFiles, which go test compiles and runs,
// output included.
func TestDocsGoBlocksAreCompiled(t *testing.T) {
	t.Parallel()
	funcs := exampleFuncs(t)
	total := 0
	for _, file := range docFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := goBlocks(string(text))
		if err != nil {
			t.Errorf("%s: %v", file, err)
		}
		total += len(blocks)
		for _, b := range blocks {
			want := unindent(b.lines)
			if len(want) == 0 || strings.Join(want, "") == "" {
				t.Errorf("%s: %v is empty", file, b)
				continue
			}
			found := false
			for _, fn := range funcs {
				if consecutive(fn.lines, want) >= 0 {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: %v is in no Example function of %s: %s", file, b, strings.Join(exampleFiles, " or "), nearest(funcs, want))
			}
		}
	}
	if total < 10 {
		t.Errorf("README.md and docs/*.md hold %d ```go blocks; the quick start and the guides' examples make more", total)
	}
}

// nearest says where the Example function that holds the longest run of
// want's first lines parts from want, for the error of a block that no
// function holds.
func nearest(funcs []exampleFunc, want []string) string {
	var best exampleFunc
	at, run := -1, 0
	for _, fn := range funcs {
		for i := range fn.lines {
			n := 0
			for i+n < len(fn.lines) && n < len(want) && fn.lines[i+n] == want[n] {
				n++
			}
			if n > run {
				best, at, run = fn, i, n
			}
		}
	}
	if run == 0 {
		return fmt.Sprintf("no function has its first line %q", want[0])
	}
	got := "(the function's end)"
	if at+run < len(best.lines) {
		got = fmt.Sprintf("%q", best.lines[at+run])
	}
	return fmt.Sprintf("its line %d, %q, is %s in %s's %s", run+1, want[run], got, best.file, best.name)
}

// aclGuide is the guide whose ACL example TestDocsACLIsTheTestedOne checks.
const aclGuide = "docs/operations.md"

// TestDocsACLIsTheTestedOne: the operations guide's ACL example grants
// exactly the commands TestLeastPrivilegeACLUser grants, in the same order.
func TestDocsACLIsTheTestedOne(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile(aclGuide)
	if err != nil {
		t.Fatal(err)
	}
	const start = "ACL SETUSER voting on >secret ~news:* resetchannels -@all "
	_, line, ok := strings.Cut(string(guide), start)
	if !ok {
		t.Fatalf("%s has no line starting %q", aclGuide, start)
	}
	line, _, _ = strings.Cut(line, "\n")
	if got, want := strings.Fields(line), strings.Fields(aclCommands); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s's ACL example grants\n%s\nTestLeastPrivilegeACLUser grants\n%s", aclGuide, strings.Join(got, " "), strings.Join(want, " "))
	}
}
