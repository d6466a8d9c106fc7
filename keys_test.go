package voting_test

// Tests of the rule of keys.go by which New refuses a prefix: one under which
// keys of another namespace could fall, so that two namespaces would share
// a key.

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// refusedPrefixes are prefixes under which keys of another namespace could
// fall.
var refusedPrefixes = []string{
	"live:", "history:", "history:x:", "news:history:", "xlive:", "deleted:", "down", "news-down",
	"deleted:down", "live:live:", "{news}:live:", "a-history:b", "history:{news}:",
}

// acceptedPrefixes are prefixes under which no key of another namespace
// can fall, the suite's own among them.
var acceptedPrefixes = []string{
	"", "news:", "{news}:", "a", "x", "live", "history", "votingtest:abc123:", "{votingtest-abc}:",
	"site1:", "scores:", "live:score:", "downvoted:", "down:", "downx", "deleted", "deleted:x",
	"history-", "n*:", "nb:", "site:{news}:", "{a}", "votesim:0123abcd:", "{site-0a1b2c3d-11}:",
}

// newWithPrefix is New's error for prefix; a *redis.Pool is never dialled
// by New.
func newWithPrefix(prefix string) error {
	_, err := voting.New(&redis.Pool{}, voting.WithPrefix(prefix))
	return err
}

// keyMakers are the ways a Store names its keys, with no prefix.
var keyMakers = voting.KeyMakers("")

// isKey reports whether s is, after a namespace's prefix, a key the Store
// names: some KeyMaker's key for a tail the Store takes as input. It is the
// tests' model of the key space, made from the Store's own key names and
// input checks, not from the prefix check's table of shapes.
func isKey(s string) bool {
	for _, m := range keyMakers {
		if m.Tail == "" {
			if s == m.Make("") {
				return true
			}
		} else if tail, ok := strings.CutPrefix(s, m.Make("")); ok && voting.CheckTail(m.Tail, tail) == nil {
			return true
		}
	}
	return false
}

// checkClash checks what SharedKey claims for a refused prefix: a shorter
// prefix other, and a key that is other's x and p's y, both keys of a
// namespace.
func checkClash(t *testing.T, p string) (other, x, y string) {
	t.Helper()
	other, x, y, ok := voting.SharedKey(p)
	switch {
	case !ok:
		t.Errorf("prefix %q: no shared key found", p)
	case len(other) >= len(p) || !strings.HasPrefix(p, other):
		t.Errorf("prefix %q: other prefix %q does not start it", p, other)
	case other+x != p+y:
		t.Errorf("prefix %q: %q+%q is not %q+%q", p, other, x, p, y)
	case !isKey(x) || !isKey(y):
		t.Errorf("prefix %q: %q (key %v) and %q (key %v) are not both keys", p, x, isKey(x), y, isKey(y))
	}
	return other, x, y
}

// TestPrefixRefused: New refuses a prefix under which keys of another
// namespace could fall, naming the key the two would share, and that key is
// one: its name in the other namespace and in this one are one string.
func TestPrefixRefused(t *testing.T) {
	t.Parallel()
	for _, p := range refusedPrefixes {
		err := newWithPrefix(p)
		if !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("New with prefix %q = %v, want ErrInvalid", p, err)
			continue
		}
		other, x, _ := checkClash(t, p)
		if want := fmt.Sprintf("namespace of prefix %q: the key %q", other, other+x); !strings.Contains(err.Error(), want) {
			t.Errorf("New with prefix %q: %v, want it to say %s", p, err, want)
		}
	}
}

// TestPrefixAccepted: New takes a prefix under which no key of another
// namespace can fall.
func TestPrefixAccepted(t *testing.T) {
	t.Parallel()
	for _, p := range acceptedPrefixes {
		if err := newWithPrefix(p); err != nil {
			t.Errorf("New with prefix %q: %v", p, err)
		}
	}
}

// TestRefusedPrefixesShareKeysOnRedis: the two namespaces of each reported
// case would share a key that a Store writes. A Store of the book's layout
// (or any prefix) with live groups writes live:score:news, which is the
// cached listing score:news of prefix "live:" after it; with user histories
// the vote of user "score:" writes history:score:, which is the score index
// of prefix "history:" after it. New refuses both.
func TestRefusedPrefixesShareKeysOnRedis(t *testing.T) {
	t.Parallel()
	e := newEnv(t, voting.WithLiveGroups(), voting.WithUserHistory(time.Hour))
	id := e.post("alice", "shared", "news")
	e.vote("score:", id, voting.Up)
	for _, c := range []struct{ end, theirs, ours, typ string }{
		{"live:", "live:score:news", "score:news", "zset"},
		{"history:", "history:score:", "score:", "zset"},
	} {
		q := e.prefix + c.end
		if e.key(c.theirs) != q+c.ours {
			t.Fatalf("%q is not %q", e.key(c.theirs), q+c.ours)
		}
		if got := e.str("TYPE", q+c.ours); got != c.typ {
			t.Errorf("%s after a post and a vote is a %s, want a %s written by the namespace %q", q+c.ours, got, c.typ, e.prefix)
		}
		_, err := voting.New(e.pool, noBuilder, voting.WithPrefix(q))
		if want := fmt.Sprintf("namespace of prefix %q", e.prefix); !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("New with prefix %q = %v, want ErrInvalid naming the %s", q, err, want)
		}
	}
}

// ruleWords derives the words of the prefix rule from the key shapes and
// the check. A prefix is refused when some end of it, put before a key of a
// namespace, makes a key. An end that starts with the literal of a key with
// a user id's tail does, whatever follows, since a user id may hold
// anything: those literals are contains. Any other end that does is a
// shorter start of a literal: ends are the least of those the check takes
// for one, none ending in another or holding a word of contains.
func ruleWords() (contains, ends []string) {
	var starts []string
	for _, s := range voting.KeyShapes() {
		if s.Tail == "user" {
			contains = append(contains, s.Literal)
		}
		for n := 1; n < len(s.Literal); n++ {
			if _, _, ok := voting.ShiftedKey(s.Literal[:n]); ok {
				starts = append(starts, s.Literal[:n])
			}
		}
	}
	slices.Sort(contains)
	slices.Sort(starts)
	starts = slices.Compact(starts)
	for _, w := range starts {
		if !slices.ContainsFunc(starts, func(v string) bool { return v != w && strings.HasSuffix(w, v) }) &&
			!slices.ContainsFunc(contains, func(v string) bool { return strings.Contains(w, v) }) {
			ends = append(ends, w)
		}
	}
	return slices.Compact(contains), ends
}

// byRule reports whether the rule as documented refuses p.
func byRule(p string, contains, ends []string) bool {
	return slices.ContainsFunc(contains, func(w string) bool { return strings.Contains(p, w) }) ||
		slices.ContainsFunc(ends, func(w string) bool { return strings.HasSuffix(p, w) })
}

// orList writes words as the docs list them: "a", "b" or "c".
func orList(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = strconv.Quote(w)
	}
	if len(quoted) < 2 {
		return strings.Join(quoted, "")
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}

// funcDoc is the doc comment of the named function in a Go source file.
func funcDoc(t *testing.T, file, name string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name && fn.Recv == nil && fn.Doc != nil {
			return fn.Doc.Text()
		}
	}
	t.Fatalf("%s has no documented function %s", file, name)
	return ""
}

// TestPrefixRuleAsDocumented: WithPrefix's doc and the README (in code
// spans there) state the rule the check keeps: a prefix is refused when it contains one of the
// words derived from the key shapes, or ends in one of the others. Each
// word is refused where the rule says, and random prefixes are refused
// exactly when the rule says.
func TestPrefixRuleAsDocumented(t *testing.T) {
	t.Parallel()
	contains, ends := ruleWords()
	if len(contains) == 0 || len(ends) == 0 {
		t.Fatalf("rule words: contains %q, ends %q", contains, ends)
	}
	t.Logf("a prefix is refused when it contains %s or ends in %s", orList(contains), orList(ends))
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"WithPrefix's doc": funcDoc(t, "options.go", "WithPrefix"), "README.md": strings.ReplaceAll(string(readme), "`", `"`)} {
		text = strings.Join(strings.Fields(text), " ")
		for _, want := range []string{"contains " + orList(contains), "ends in " + orList(ends)} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %s", what, want)
			}
		}
	}

	refused := func(p string) bool { return errors.Is(newWithPrefix(p), voting.ErrInvalid) }
	for _, w := range contains {
		for _, p := range []string{w, "x" + w, w + "x", "news:" + w + "a:b", "{n}:" + w} {
			if !refused(p) {
				t.Errorf("prefix %q, which contains %q, is accepted", p, w)
			}
		}
		if refused(w[:len(w)-1]) {
			t.Errorf("prefix %q, which does not contain %q, is refused", w[:len(w)-1], w)
		}
	}
	for _, w := range ends {
		for _, p := range []string{w, "x" + w, "news:" + w, "{n}:" + w} {
			if !refused(p) {
				t.Errorf("prefix %q, which ends in %q, is accepted", p, w)
			}
		}
		for _, p := range []string{w + "x", w[:len(w)-1], w + ":"} {
			if refused(p) {
				t.Errorf("prefix %q, which does not end in %q, is refused", p, w)
			}
		}
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		p := randomPrefix(rng)
		if got, want := refused(p), byRule(p, contains, ends); got != want {
			t.Errorf("prefix %q: refused %v, the rule says %v", p, got, want)
		}
	}
}

// prefixPieces are what random prefixes are made of: the parts of keys,
// their starts and ends, and separators.
var prefixPieces = []string{
	"live:", "history:", "history", "story:", "deleted:", "deleted", "down", "own", "voted:", "score:",
	"time:", "top-", "day:", "week:", "article:", "groups:", "group", "s:", "names:", "live", "news",
	":", "-", ".", "*", "{", "}", "x", "7", "é",
}

// randomPrefix is a prefix of up to six pieces, at most MaxPrefixLen bytes.
func randomPrefix(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.IntN(7); n > 0; n-- {
		piece := prefixPieces[rng.IntN(len(prefixPieces))]
		if b.Len()+len(piece) > voting.MaxPrefixLen {
			break
		}
		b.WriteString(piece)
	}
	return b.String()
}

// tailPieces are what random group names and user ids are made of; a
// user id may hold any of them, a group name those a group name takes.
var tailPieces = []string{
	"news", "a", "7", "top-week", "x.y_z", "é", "score", "live", "down", "voted",
	"score:", "live:", "voted:", "downvoted:", "history:", "article:", "deleted:", ":", "{x}", "*",
}

// randomTail is a tail of the kind ("id", "group" or "user") that the
// Store takes; a user id is sometimes a key itself, up to depth deep.
func randomTail(rng *rand.Rand, kind string, depth int) string {
	switch kind {
	case "":
		return ""
	case "id":
		if rng.IntN(10) == 0 {
			return "9223372036854775807"
		}
		return strconv.Itoa(1 + rng.IntN(1000))
	case "user":
		if key := randomKey(rng, keyMakers, depth-1); depth > 0 && rng.IntN(3) == 0 && voting.CheckTail(kind, key) == nil {
			return key
		}
	}
	for {
		var b strings.Builder
		for n := 1 + rng.IntN(4); n > 0; n-- {
			b.WriteString(tailPieces[rng.IntN(len(tailPieces))])
		}
		if voting.CheckTail(kind, b.String()) == nil {
			return b.String()
		}
	}
}

// randomKey is a random key of a namespace, as its makers name it, with
// user ids up to depth keys deep.
func randomKey(rng *rand.Rand, makers []voting.KeyMaker, depth int) string {
	m := makers[rng.IntN(len(makers))]
	return m.Make(randomTail(rng, m.Tail, depth))
}

// TestPrefixNamespacesShareNoKey: for random pairs of prefixes, Q accepted
// and P a shorter start of it, no key of Q's namespace, as the Store names
// it, is a key of P's; for a refused Q, the key the check names is shared.
// For the refused prefixes listed, the same random keys do find a shared
// key, so that the test would see one.
func TestPrefixNamespacesShareNoKey(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	isKeyOf := func(prefix, key string) bool {
		tail, ok := strings.CutPrefix(key, prefix)
		return ok && isKey(tail)
	}
	pairs := 0
	for pairs < 2000 {
		q := randomPrefix(rng)
		if q == "" {
			continue
		}
		if newWithPrefix(q) != nil {
			checkClash(t, q)
			continue
		}
		var starts []int
		for i := range q {
			starts = append(starts, i)
		}
		p := q[:starts[rng.IntN(len(starts))]]
		pairs++
		ofP, ofQ := voting.KeyMakers(p), voting.KeyMakers(q)
		for range 50 {
			if key := randomKey(rng, ofQ, 2); isKeyOf(p, key) {
				t.Fatalf("key %q of prefix %q is one of prefix %q", key, q, p)
			}
			if key := randomKey(rng, ofP, 2); isKeyOf(q, key) {
				t.Fatalf("key %q of prefix %q is one of prefix %q", key, p, q)
			}
		}
	}
	for _, q := range refusedPrefixes {
		p, _, _, _ := voting.SharedKey(q)
		ofQ := voting.KeyMakers(q)
		found := false
		for range 2000 {
			if key := randomKey(rng, ofQ, 2); isKeyOf(p, key) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no random key of prefix %q is one of prefix %q", q, p)
		}
	}
}

// TestKeyShapesAreTheKeys: the prefix check's table of key shapes names
// the keys the Store names: each literal ends in ':', each part newKeys
// joins is a shape's literal (or, as live: is, starts some), each key a
// KeyMaker makes fits a shape, and each shape's key is one.
func TestKeyShapesAreTheKeys(t *testing.T) {
	t.Parallel()
	shapes := voting.KeyShapes()
	literals := map[string]bool{}
	for _, s := range shapes {
		literals[s.Literal] = true
		if !strings.HasSuffix(s.Literal, ":") {
			t.Errorf("literal %q does not end in ':', as the prefix check takes it to", s.Literal)
		}
	}
	for _, part := range voting.KeyParts() {
		if !literals[part] && !slices.ContainsFunc(shapes, func(s voting.KeyShape) bool { return strings.HasPrefix(s.Literal, part) }) {
			t.Errorf("newKeys joins %q, which no key shape has or starts with", part)
		}
	}
	sample := map[string]string{"": "", "id": "7", "group": "news", "user": "alice"}
	for _, m := range keyMakers {
		key := m.Make(sample[m.Tail])
		if !slices.ContainsFunc(shapes, func(s voting.KeyShape) bool {
			tail, ok := strings.CutPrefix(key, s.Literal)
			return ok && s.Tail == m.Tail && voting.CheckTail(s.Tail, tail) == nil
		}) {
			t.Errorf("%s makes %q, which fits no key shape", m.Name, key)
		}
	}
	for _, s := range shapes {
		if key := s.Literal + sample[s.Tail]; !isKey(key) {
			t.Errorf("shape %+v gives %q, which the Store does not name", s, key)
		}
	}
}

// TestSuitePrefixesAccepted: no prefix the suite, its examples or votesim
// make at random can be refused. Each is fixed text and hex digits (or
// decimal ones), written here with '#' for a digit: no digits make one
// contain a word of the rule's contains, or end in one of its ends.
func TestSuitePrefixesAccepted(t *testing.T) {
	t.Parallel()
	hex := func(n int) string { return strings.Repeat("#", n) }
	var templates []string
	for _, end := range []string{"", "news:", "n*:", "nb:"} { // newEnvPrefix's ends
		templates = append(templates,
			"votingtest:"+hex(12)+":"+end,   // newEnvPool, fuzz_test.go
			"{votingtest-"+hex(12)+"}:"+end, // newEnvCluster
		)
	}
	for n := 1; n <= 16; n++ {
		templates = append(templates, "votingtest:"+hex(n)+":") // lua_test.go
	}
	templates = append(templates, "votesim:"+hex(8)+":", "{site-"+hex(8)+"-"+hex(1)+"}:", "{site-"+hex(8)+"-"+hex(2)+"}:")

	// mayHold reports whether some digits make word appear in template at
	// offset at.
	mayHold := func(template, word string, at int) bool {
		for k := 0; k < len(word); k++ {
			c := template[at+k]
			if c == '#' && !strings.ContainsRune("0123456789abcdef", rune(word[k])) || c != '#' && c != word[k] {
				return false
			}
		}
		return true
	}
	contains, ends := ruleWords()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tmpl := range templates {
		for _, w := range contains {
			for at := 0; at+len(w) <= len(tmpl); at++ {
				if mayHold(tmpl, w, at) {
					t.Errorf("prefix %s may contain %q", tmpl, w)
				}
			}
		}
		for _, w := range ends {
			if len(w) <= len(tmpl) && mayHold(tmpl, w, len(tmpl)-len(w)) {
				t.Errorf("prefix %s may end in %q", tmpl, w)
			}
		}
		for range 100 {
			p := []byte(tmpl)
			for i, c := range p {
				if c == '#' {
					p[i] = "0123456789abcdef"[rng.IntN(16)]
				}
			}
			if err := newWithPrefix(string(p)); err != nil {
				t.Errorf("New with prefix %q: %v", p, err)
			}
		}
	}
}
