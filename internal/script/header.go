package script

// This file holds a script's header, the two lines that name its KEYS and
// ARGV in the order it takes them, and the Lua that reads them into named
// locals, which the loader writes at the script's top: a script reads its
// arguments once, by name, and no Lua reads KEYS or ARGV by a computed
// place. The Go that builds a script's arguments (its struct and Call,
// in args_gen.go) is made from the header, so it names the same entries
// in the same order, which a test checks.
//
//	-- KEYS: hash byScore orders[].index record?livePrefix
//	-- ARGV: member now:num livePrefix orders[key kind] open:flag kinds[name]:place
//
// An entry of KEYS is a key's name; "list[].field" is one key per entry of
// the ARGV list of that name; "name?cond" is a key sent only when the ARGV
// entry cond is set (a flag that is true, a number above 0, a string that
// is not empty). An entry of ARGV is a string; "name:num" a number,
// "name:flag" '1' or '0' read as a boolean; "list[a b]" a list sent as its
// length and then each column's entries (the library's columns reads it
// into a table of a table per column). "list[a b]:place" is a list read in
// place, for a script on the hot path that makes no table it does not
// need (a table costs Redis about what a command does): the local list is
// its length, and listA, listB (and for its keys listField) the places
// before each column's first entry, so that entry i's a is ARGV[listA + i].
// A header may run on over lines that start with "--" and three spaces.
//
// A script that may write on any run says nothing more. One that never
// writes, leaving every key as it found it, says so, so that its run
// leaves the client-side cache as it is; and one that writes only on some
// runs says that its reply tells:
//
//	-- WRITES: never
//	-- WRITES: reply
//
// A script of "reply" answers a status whose detail is Wrote when it wrote
// (status.go).
//
// The header is the one place a script's arguments are written: the Go
// struct that builds them (args_gen.go) is made from it by go generate
// (generate.go). Its fields are the entries in the header's order, each
// named for its entry with the first letter upper and of the type its
// kind gives: a key a string, a list of keys a []string, an ARGV entry a
// string, a ":num" an int, a ":flag" a bool, a list of one column a
// []string. A line of the header says where Go differs:
//
//	-- GO: settings Config, orders[].index Indexes, dir any, orders []Order,
//	--     shared gen
//
// Each item names an entry (a list of keys as in KEYS), then its field's
// name (a word with its first letter upper), its type, or both: string,
// int, int64, bool, any, []string, *Names (a list of one column made
// once), []Text (a list of the columns name and value) or []Order (of key,
// kind, window and cut). A type agrees with the entry's kind: only a flag
// is a bool, and an entry that says whether an optional key is sent is
// tested alike in Go and Lua (a flag, a number above 0, a string not
// empty). "shared gen" says that the ARGV from gen on are the same for
// every call of a Store: a struct of their own, <Name>Settings, in the
// field Settings, whose Args are made once, since putting a string in an
// interface allocates.

import (
	"fmt"
	"strings"
)

// An entry is one name of a header.
type entry struct {
	name string
	// kind is "num" or "flag" for an ARGV entry read as one; "" else.
	kind string
	// cond names the ARGV entry that says whether an optional key is sent.
	cond string
	// list is set for a list: field, for KEYS, the name of its keys in the
	// list's table; columns, for ARGV, the list's columns; place, for ARGV,
	// that the list is read in place.
	list    bool
	field   string
	columns []string
	place   bool
	// goName and goType are the entry's field in the Go struct of the
	// script's arguments: its name and its type.
	goName, goType string
}

// A header is a script's KEYS and ARGV, as its header names them, and what
// it says of the script's writes: "" for a script that may write on any
// run, "never" or "reply".
type header struct {
	keys, args []entry
	writes     string
	// shared is the ARGV entry from which on the arguments are the same
	// for every call of a Store; "" for none.
	shared string
}

// parseHeader reads the header of a script's source.
func parseHeader(name, src string) (header, error) {
	var h header
	var which *[]entry
	var goLine []string
	inGo := false
	found := map[string]bool{}
	for _, line := range strings.Split(src, "\n") {
		var rest string
		if inGo && strings.HasPrefix(line, "--   ") {
			goLine = append(goLine, strings.TrimPrefix(line, "--"))
			continue
		}
		inGo = false
		switch {
		case strings.HasPrefix(line, "-- GO:"):
			which, inGo = nil, true
			goLine = append(goLine, strings.TrimPrefix(line, "-- GO:"))
			continue
		case strings.HasPrefix(line, "-- WRITES:"):
			which = nil
			h.writes = strings.TrimSpace(strings.TrimPrefix(line, "-- WRITES:"))
			if h.writes != "never" && h.writes != "reply" {
				return header{}, fmt.Errorf("%s: WRITES is %q, not never or reply", name, h.writes)
			}
			continue
		case strings.HasPrefix(line, "-- KEYS:"):
			which, rest = &h.keys, strings.TrimPrefix(line, "-- KEYS:")
		case strings.HasPrefix(line, "-- ARGV:"):
			which, rest = &h.args, strings.TrimPrefix(line, "-- ARGV:")
		case which != nil && strings.HasPrefix(line, "--   "):
			rest = strings.TrimPrefix(line, "--")
		default:
			which = nil
			continue
		}
		for _, word := range fieldsOutsideBrackets(rest) {
			e, err := parseEntry(word, which == &h.keys)
			if err != nil {
				return header{}, fmt.Errorf("%s: %w", name, err)
			}
			*which = append(*which, e)
		}
		found[map[bool]string{true: "KEYS", false: "ARGV"}[which == &h.keys]] = true
	}
	if !found["KEYS"] || !found["ARGV"] {
		return header{}, fmt.Errorf("%s: no KEYS or no ARGV line in its header", name)
	}
	args := map[string]entry{}
	for _, e := range h.args {
		if _, twice := args[e.name]; twice {
			return header{}, fmt.Errorf("%s: ARGV names %s twice", name, e.name)
		}
		args[e.name] = e
	}
	keys := map[string]bool{}
	for _, e := range h.keys {
		switch {
		case keys[e.name+"."+e.field]:
			return header{}, fmt.Errorf("%s: KEYS names %s twice", name, e.name)
		case e.list && !args[e.name].list:
			return header{}, fmt.Errorf("%s: KEYS list %s has no ARGV list of its length", name, e.name)
		case e.cond != "" && args[e.cond].name == "":
			return header{}, fmt.Errorf("%s: key %s is sent when %s is set, which ARGV does not name", name, e.name, e.cond)
		case !e.list && args[e.name].name != "":
			return header{}, fmt.Errorf("%s: KEYS and ARGV both name %s", name, e.name)
		}
		keys[e.name+"."+e.field] = true
	}
	if err := h.readGo(strings.Join(goLine, " ")); err != nil {
		return header{}, fmt.Errorf("%s: GO: %w", name, err)
	}
	return h, nil
}

// fieldsOutsideBrackets splits s at its spaces, but not within brackets.
func fieldsOutsideBrackets(s string) []string {
	var words []string
	depth, start := 0, -1
	for i, r := range s + " " {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case r == ' ' && depth == 0:
			if start >= 0 {
				words = append(words, s[start:i])
			}
			start = -1
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return words
}

// parseEntry reads one word of a header.
func parseEntry(word string, key bool) (entry, error) {
	if name, field, ok := strings.Cut(word, "[]."); ok && key {
		return entry{name: name, list: true, field: field}, checkNames(word, name, field)
	}
	if name, cond, ok := strings.Cut(word, "?"); ok && key {
		return entry{name: name, cond: cond}, checkNames(word, name, cond)
	}
	if name, cols, ok := strings.Cut(word, "["); ok && !key {
		cols, place := strings.CutSuffix(cols, "]:place")
		if !place && !strings.HasSuffix(cols, "]") {
			return entry{}, fmt.Errorf("%q is no entry of a header", word)
		}
		columns := strings.Fields(strings.TrimSuffix(cols, "]"))
		if len(columns) == 0 || len(columns) > 4 {
			return entry{}, fmt.Errorf("list %q has %d columns, not 1 to 4", word, len(columns))
		}
		return entry{name: name, list: true, columns: columns, place: place}, checkNames(word, append([]string{name}, columns...)...)
	}
	if name, kind, ok := strings.Cut(word, ":"); ok && !key {
		if kind != "num" && kind != "flag" {
			return entry{}, fmt.Errorf("%q: no kind %q", word, kind)
		}
		return entry{name: name, kind: kind}, checkNames(word, name)
	}
	return entry{name: word}, checkNames(word, word)
}

// checkNames refuses a word whose names are no Lua names.
func checkNames(word string, names ...string) error {
	for _, n := range names {
		if n == "" || !isLuaName(n) {
			return fmt.Errorf("%q is no entry of a header", word)
		}
	}
	return nil
}

func isLuaName(s string) bool {
	for i, r := range s {
		if !isLuaNameRune(r) || i == 0 && r >= '0' && r <= '9' {
			return false
		}
	}
	return s != ""
}

// prologue is the Lua that reads a script's arguments into locals named
// by its header, ARGV first (a list of keys takes its length from the ARGV
// list of its name), and checks with sent that it read exactly what it was
// sent.
func (h header) prologue() string {
	var b strings.Builder
	// ARGV: runs of plain entries as one local statement each, while their
	// places are known; after a list, one entry at a time from a.
	a, static := 1, true
	var run []entry
	flush := func() {
		if len(run) == 0 {
			return
		}
		names, values := make([]string, len(run)), make([]string, len(run))
		for i, e := range run {
			names[i], values[i] = e.name, argValue(e, fmt.Sprint("ARGV[", a+i, "]"))
		}
		fmt.Fprintf(&b, "local %s = %s\n", strings.Join(names, ", "), strings.Join(values, ", "))
		a += len(run)
		run = nil
	}
	for _, e := range h.args {
		switch {
		case e.list && e.place:
			// The length, then the place before each column's entries.
			at := "a"
			if static {
				flush()
				at = fmt.Sprint(a)
				fmt.Fprintf(&b, "local a\n")
			}
			fmt.Fprintf(&b, "local %s = tonumber(ARGV[%s])\n", e.name, at)
			for i, col := range e.columns {
				place := at
				if i > 0 {
					place = fmt.Sprintf("%s + %d * %s", at, i, e.name)
				}
				fmt.Fprintf(&b, "local %s = %s\n", placeName(e.name, col), place)
			}
			fmt.Fprintf(&b, "a = %s + 1 + %d * %s\n", at, len(e.columns), e.name)
			static = false
		case e.list && static:
			flush()
			fmt.Fprintf(&b, "local %s, a = columns(%d, '%s')\n", e.name, a, strings.Join(e.columns, "', '"))
			static = false
		case e.list:
			fmt.Fprintf(&b, "local %s\n%s, a = columns(a, '%s')\n", e.name, e.name, strings.Join(e.columns, "', '"))
		case static:
			run = append(run, e)
		default:
			fmt.Fprintf(&b, "local %s = %s\na = a + 1\n", e.name, argValue(e, "ARGV[a]"))
		}
	}
	flush()
	argsRead := fmt.Sprint(a - 1)
	if !static {
		argsRead = "a - 1"
	}
	// KEYS: likewise, from k once a list or an optional key has been read.
	k, kstatic := 1, true
	var krun []string
	kflush := func() {
		if len(krun) == 0 {
			return
		}
		values := make([]string, len(krun))
		for i := range krun {
			values[i] = fmt.Sprint("KEYS[", k+i, "]")
		}
		fmt.Fprintf(&b, "local %s = %s\n", strings.Join(krun, ", "), strings.Join(values, ", "))
		k += len(krun)
		krun = nil
	}
	dynamic := func() {
		if kstatic {
			kflush()
			fmt.Fprintf(&b, "local k = %d\n", k)
			kstatic = false
		}
	}
	inPlace := map[string]bool{}
	for _, e := range h.args {
		inPlace[e.name] = e.list && e.place
	}
	for _, e := range h.keys {
		switch {
		case e.list && inPlace[e.name]:
			dynamic()
			fmt.Fprintf(&b, "local %s = k - 1\nk = k + %s\n", placeName(e.name, e.field), e.name)
		case e.list:
			dynamic()
			fmt.Fprintf(&b, "%s.%s = {unpack(KEYS, k, k + %s.n - 1)}\nk = k + %s.n\n", e.name, e.field, e.name, e.name)
		case e.cond != "":
			dynamic()
			fmt.Fprintf(&b, "local %s\nif %s then\n\t%s, k = KEYS[k], k + 1\nend\n", e.name, setCondition(h, e.cond), e.name)
		case kstatic:
			krun = append(krun, e.name)
		default:
			fmt.Fprintf(&b, "local %s = KEYS[k]\nk = k + 1\n", e.name)
		}
	}
	kflush()
	keysRead := fmt.Sprint(k - 1)
	if !kstatic {
		keysRead = "k - 1"
	}
	fmt.Fprintf(&b, "sent(%s, %s)\n", keysRead, argsRead)
	return b.String()
}

// placeName is the local that holds the place before the first entry of a
// column of a list read in place: listColumn.
func placeName(list, column string) string {
	return list + strings.ToUpper(column[:1]) + column[1:]
}

// argValue is the Lua value of an ARGV entry read from place.
func argValue(e entry, place string) string {
	switch e.kind {
	case "num":
		return "tonumber(" + place + ")"
	case "flag":
		return place + " == '1'"
	}
	return place
}

// setCondition is the Lua condition that the ARGV entry name is set.
func setCondition(h header, name string) string {
	return bySetKind(h, name, name, name+" > 0", name+" ~= ''")
}

// bySetKind is, for the ARGV entry name, flag, num or str, as the entry is
// a flag, a number or a string (so that Go and Lua test whether it is set
// alike); "false" for no entry of that name.
func bySetKind(h header, name, flag, num, str string) string {
	for _, e := range h.args {
		if e.name != name {
			continue
		}
		switch e.kind {
		case "num":
			return num
		case "flag":
			return flag
		}
		return str
	}
	return "false"
}
