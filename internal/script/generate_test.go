package script

// The tests that args_gen.go is what the headers make, and that a GO line
// Go and Lua would read differently is refused.

import (
	"go/format"
	"os"
	"strings"
	"testing"
)

// TestArgumentsAreGenerated: args_gen.go is what go generate makes from
// the headers now, so that a header changed without it fails here.
func TestArgumentsAreGenerated(t *testing.T) {
	src, err := GoArguments()
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Source([]byte(src))
	if err != nil {
		t.Fatalf("the generated Go does not parse: %v", err)
	}
	got, err := os.ReadFile("args_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gotLines) || i < len(wantLines); i++ {
			if i >= len(gotLines) || i >= len(wantLines) || gotLines[i] != wantLines[i] {
				t.Fatalf("args_gen.go is stale from its line %d (run go generate in internal/script):\n\tgot  %q\n\twant %q",
					i+1, lineAt(gotLines, i), lineAt(wantLines, i))
			}
		}
	}
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(the end)"
}

// TestGoLineRules: a GO line naming no entry, a type no kind sends, a flag
// that is no bool, a bool that is no flag, an optional key whose condition
// Go and Lua would test differently, or two fields of one name, is
// refused when the script loads.
func TestGoLineRules(t *testing.T) {
	for src, want := range map[string]string{
		"-- KEYS: a\n-- ARGV: b\n-- GO: c int\n":           "names no entry",
		"-- KEYS: a\n-- ARGV: b\n-- GO: b int, b int64\n":  "twice",
		"-- KEYS: a\n-- ARGV: b\n-- GO: b float64\n":       "no Go field name nor a type",
		"-- KEYS: a\n-- ARGV: b\n-- GO: a int\n":           "does not send",
		"-- KEYS: a\n-- ARGV: b:flag\n-- GO: b string\n":   "does not send",
		"-- KEYS: a\n-- ARGV: b\n-- GO: b bool\n":          "does not send",
		"-- KEYS: a\n-- ARGV: l[x y]\n-- GO: l []Text\n":   "does not send",
		"-- KEYS: a\n-- ARGV: l[name]\n-- GO: l []Order\n": "does not send",
		"-- KEYS: a?b\n-- ARGV: b:num\n-- GO: b string\n":  "test differently",
		"-- KEYS: a?b\n-- ARGV: b\n-- GO: b int\n":         "test differently",
		"-- KEYS: a\n-- ARGV: b c\n-- GO: c B\n":           "two fields named B",
		"-- KEYS: a\n-- ARGV: b\n-- GO: shared a\n":        "names no ARGV entry",
		"-- KEYS: a\n-- ARGV: b\n-- GO: b,\n":              "an empty item",
		"-- KEYS: a\n-- ARGV: b\n-- GO: b B int extra\n":   "more than",
		"-- KEYS: a?b l[].k\n-- ARGV: b:flag l[k]\n":       "",
		"-- KEYS: a?b\n-- ARGV: b:num l[name value]\n-- GO: b int64,\n" +
			"--     l Fields []Text, a A, shared b\n": "",
	} {
		_, err := parseHeader("test.lua", src)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("header %q: %v, want an error saying %q", src, err, want)
		}
	}
}
