package voting_test

// Tests that the key schema is written once: schema.Families lists the
// families of keys, the keys the Store names are those families, and the
// tables of doc.go (the key schema as go doc shows it) and of keys.go name
// every family and no other key, each with its type.

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/articlevote/voting"
	"github.com/articlevote/voting/internal/schema"
)

// familyTails are the placeholders that end a family's key, by the class
// of tail the prefix check gives them.
var familyTails = map[string]string{"<id>": "id", "<name>": "group", "<user>": "user"}

// instances are the keys a family's key stands for with each <index> an
// order's key and each <kind> a comment kind: "<index><name>" gives
// "score:<name>", "time:<name>", ... The placeholders of ids, names and
// users stay.
func instances(key string) []string {
	keys := []string{key}
	for _, p := range []struct {
		placeholder string
		values      []string
	}{
		{"<index>", orderKeys()},
		{"<kind>", commentKinds()},
	} {
		var next []string
		for _, k := range keys {
			if !strings.Contains(k, p.placeholder) {
				next = append(next, k)
				continue
			}
			for _, v := range p.values {
				next = append(next, strings.ReplaceAll(k, p.placeholder, v))
			}
		}
		keys = next
	}
	return keys
}

func orderKeys() []string {
	var keys []string
	for _, spec := range schema.Orders {
		keys = append(keys, spec.Key)
	}
	return keys
}

func commentKinds() []string {
	var kinds []string
	for _, k := range schema.CommentKinds {
		kinds = append(kinds, string(k))
	}
	return kinds
}

// shapesOf are the key shapes of a family, as the prefix check writes them.
func shapesOf(f schema.Family) []voting.KeyShape {
	var shapes []voting.KeyShape
	for _, key := range instances(f.Key) {
		shape := voting.KeyShape{Literal: key}
		for placeholder, tail := range familyTails {
			if literal, ok := strings.CutSuffix(key, placeholder); ok {
				shape = voting.KeyShape{Literal: literal, Tail: tail}
			}
		}
		shapes = append(shapes, shape)
	}
	return shapes
}

// TestKeyFamiliesAreTheKeys: schema.Families are the keys the Store names:
// their keys, with each placeholder filled in, are exactly the shapes of
// the prefix check (which TestKeyShapesAreTheKeys holds to every key a
// Store makes), each once, and each family is of a Redis type.
func TestKeyFamiliesAreTheKeys(t *testing.T) {
	fromFamilies := map[voting.KeyShape]string{}
	for _, f := range schema.Families {
		if !slices.Contains([]string{"string", "hash", "set", "zset"}, f.Type) {
			t.Errorf("family %s has type %q, not a Redis type", f.Key, f.Type)
		}
		for _, s := range shapesOf(f) {
			if other, ok := fromFamilies[s]; ok {
				t.Errorf("families %s and %s both give the key shape %+v", other, f.Key, s)
			}
			fromFamilies[s] = f.Key
		}
	}
	shapes := map[voting.KeyShape]bool{}
	for _, s := range voting.KeyShapes() {
		shapes[s] = true
		if _, ok := fromFamilies[s]; !ok {
			t.Errorf("the Store names keys of shape %+v, which no family of schema.Families gives", s)
		}
	}
	for s, key := range fromFamilies {
		if !shapes[s] {
			t.Errorf("family %s gives the key shape %+v, which the Store does not name", key, s)
		}
	}
}

// A schemaRow is a key a table of the key schema names in its first column,
// with the type its row gives (a line that names keys without a type
// continues the row above it).
type schemaRow struct {
	key, typ string
	line     int
}

// redisTypes are the words of a table's type column.
var redisTypes = []string{"string", "hash", "set", "zset"}

// isKeyWord reports whether a word of a table's first column names a key:
// letters, digits, '-', ':' and placeholders, with a ':' or a placeholder.
func isKeyWord(w string) bool {
	if !strings.ContainsAny(w, ":<") {
		return false
	}
	return strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789-:<>") == ""
}

// schemaTable reads the table of the key schema in the comment lines of
// file that follow the line start, up to the first line that is not a
// comment or that begins a section (end, "" for none): the keys its rows
// name in their first column, with their types. Table lines are the
// comment's indented ones.
func schemaTable(t *testing.T, file, start, end string) []schemaRow {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rows []schemaRow
	in, typ := false, ""
	for i, line := range strings.Split(string(src), "\n") {
		if !in {
			in = strings.HasPrefix(line, start)
			continue
		}
		if !strings.HasPrefix(line, "//") || end != "" && strings.HasPrefix(line, end) {
			break
		}
		text, ok := strings.CutPrefix(line, "//\t")
		if !ok {
			typ = "" // prose: a table after it starts afresh
			continue
		}
		if text == "" || text[0] == ' ' {
			continue // a row's description going on
		}
		words := strings.Fields(text)
		var keys []string
		for len(words) > 0 && isKeyWord(strings.TrimSuffix(words[0], ",")) {
			keys = append(keys, strings.TrimSuffix(words[0], ","))
			words = words[1:]
		}
		if len(keys) == 0 {
			t.Errorf("%s:%d: a table line that names no key: %q", file, i+1, text)
			continue
		}
		if len(words) > 0 && slices.Contains(redisTypes, words[0]) {
			typ = words[0]
		} else if typ == "" {
			t.Errorf("%s:%d: %v, with no type above them", file, i+1, keys)
		}
		for _, k := range keys {
			rows = append(rows, schemaRow{k, typ, i + 1})
		}
	}
	if !in {
		t.Fatalf("%s has no line starting %q", file, start)
	}
	return rows
}

// TestKeySchemaDocumented: the tables of the key schema in doc.go and
// keys.go name each family of schema.Families in their first column, as
// the family writes it ("<index><name>"), and name there no key that is
// not a family's or an instance of one ("score:<name>", with <index> an
// order's key), each with its family's type.
func TestKeySchemaDocumented(t *testing.T) {
	for _, table := range []struct{ file, start, end string }{
		{"doc.go", "// # Key schema", "// # "},
		{"keys.go", "// The key schema:", ""},
	} {
		rows := schemaTable(t, table.file, table.start, table.end)
		named := map[string]bool{}
		for _, r := range rows {
			named[r.key] = true
			i := slices.IndexFunc(schema.Families, func(f schema.Family) bool {
				return r.key == f.Key || slices.Contains(instances(f.Key), r.key)
			})
			if i < 0 {
				t.Errorf("%s:%d names the key %s, which is no family of schema.Families", table.file, r.line, r.key)
				continue
			}
			if f := schema.Families[i]; r.typ != f.Type {
				t.Errorf("%s:%d gives %s the type %s; schema.Families gives %s the type %s", table.file, r.line, r.key, r.typ, f.Key, f.Type)
			}
		}
		for _, f := range schema.Families {
			if !named[f.Key] {
				t.Errorf("%s's key schema does not name %s (%s) in a row of its own", table.file, f.Key, f.Type)
			}
		}
	}
}
