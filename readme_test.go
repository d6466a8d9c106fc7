package voting_test

// The README's quick start is a copy of Example_quickStart, which go test
// compiles and runs; this test keeps the copy true.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
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
	for _, call := range []string{"redis.Pool{", "voting.New(", ".PostArticle(", ".Vote(", ".GetArticles(",
		".GetGroupArticles(", "ids := ", ".UserVotes(", "ids...", "log.Fatal(err)"} {
		if !strings.Contains(code, call) {
			t.Errorf("the quick start has no %q", call)
		}
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

// TestReadmeGoBlocksAreCompiled: every ```go block of the README stands,
// line for line, in example_test.go, which go test compiles and runs.
func TestReadmeGoBlocksAreCompiled(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	have := unindent(strings.Split(string(examples), "\n"))
	rest := string(readme)
	blocks := 0
	for {
		var code string
		var ok bool
		if _, rest, ok = strings.Cut(rest, "\n```go\n"); !ok {
			break
		}
		if code, rest, ok = strings.Cut(rest, "\n```"); !ok {
			t.Fatal("a ```go block of README.md has no end")
		}
		blocks++
		if want := unindent(strings.Split(code, "\n")); consecutive(have, want) < 0 {
			t.Errorf("README.md's ```go block %d is not in example_test.go:\n%s", blocks, code)
		}
	}
	if blocks < 3 {
		t.Errorf("README.md has %d ```go blocks; the quick start and the orders' make 3", blocks)
	}
}

// TestReadmeACLIsTheTestedOne: the README's ACL example grants exactly the
// commands TestLeastPrivilegeACLUser grants, in the same order.
func TestReadmeACLIsTheTestedOne(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "ACL SETUSER voting on >secret ~news:* resetchannels -@all "
	_, line, ok := strings.Cut(string(readme), start)
	if !ok {
		t.Fatalf("README.md has no line starting %q", start)
	}
	line, _, _ = strings.Cut(line, "\n")
	if got, want := strings.Fields(line), strings.Fields(aclCommands); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("README.md's ACL example grants\n%s\nTestLeastPrivilegeACLUser grants\n%s", strings.Join(got, " "), strings.Join(want, " "))
	}
}
