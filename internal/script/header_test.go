package script

// The test that each script's header and the Go struct of its arguments
// agree: the struct names the header's entries in its order, and its Call
// sends exactly those, in that order, for every script.

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
)

// argumentsOf makes, for each script, a zero struct of its arguments.
var argumentsOf = map[string]func() caller{
	"post.lua":             func() caller { return &Post{} },
	"vote.lua":             func() caller { return &Vote{Settings: &VoteSettings{}} },
	"add_groups.lua":       func() caller { return &AddGroups{} },
	"remove_groups.lua":    func() caller { return &RemoveGroups{} },
	"delete.lua":           func() caller { return &Delete{} },
	"clear_history.lua":    func() caller { return &ClearHistory{} },
	"group_page.lua":       func() caller { return &GroupPage{} },
	"trim_window.lua":      func() caller { return &TrimWindow{} },
	"reindex_orders.lua":   func() caller { return &ReindexOrders{} },
	"reindex_group.lua":    func() caller { return &ReindexGroup{} },
	"reindex_start.lua":    func() caller { return &ReindexStart{} },
	"settings.lua":         func() caller { return &Settings{} },
	"rescore.lua":          func() caller { return &Rescore{} },
	"rescore_comments.lua": func() caller { return &RescoreComments{} },
	"lease.lua":            func() caller { return &Lease{} },
	"reindex_scan.lua":     func() caller { return &ReindexScan{} },
	"reindex_done.lua":     func() caller { return &ReindexDone{} },
	"reindex_comments.lua": func() caller { return &ReindexComments{} },
	"after.lua":            func() caller { return &After{} },
	"edit.lua":             func() caller { return &Edit{} },
	"comment_post.lua":     func() caller { return &CommentPost{} },
	"comment_vote.lua":     func() caller { return &CommentVote{} },
	"comment_delete.lua":   func() caller { return &CommentDelete{} },
	"comment_edit.lua":     func() caller { return &CommentEdit{} },
	"comment_purge.lua":    func() caller { return &CommentPurge{} },
	"comment_after.lua":    func() caller { return &CommentAfter{} },
}

type caller interface{ Call() Call }

// A field is one field of an arguments struct that names a header entry.
type field struct {
	name string
	v    reflect.Value
}

// fieldsOf lists the fields of the struct v points to that name header
// entries (their tag lua), in order, going into a pointer to a struct of
// more.
func fieldsOf(v reflect.Value) []field {
	var out []field
	v = v.Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if tag, ok := f.Tag.Lookup("lua"); ok {
			out = append(out, field{tag, v.Field(i)})
		} else if f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
			if v.Field(i).IsNil() {
				v.Field(i).Set(reflect.New(f.Type.Elem()))
			}
			out = append(out, fieldsOf(v.Field(i))...)
		}
	}
	return out
}

// headerNames are a header's entries as the fields' tags name them: a key
// list as "list[].field", any other entry by its name.
func headerNames(h header) []string {
	var names []string
	for _, e := range h.keys {
		if e.list {
			names = append(names, e.name+"[]."+e.field)
		} else {
			names = append(names, e.name)
		}
	}
	for _, e := range h.args {
		names = append(names, e.name)
	}
	return names
}

// fill gives each field a value of its own: a string or any its name, a
// number 1000 and up, a flag true, a list two entries named for it.
func fill(fields []field) {
	for i, f := range fields {
		switch f.v.Kind() {
		case reflect.String:
			f.v.SetString(f.name)
		case reflect.Interface:
			f.v.Set(reflect.ValueOf(f.name))
		case reflect.Int, reflect.Int64:
			f.v.SetInt(int64(1000 + i))
		case reflect.Bool:
			f.v.SetBool(true)
		case reflect.Pointer: // *Names
			f.v.Set(reflect.ValueOf(NewNames([]string{f.name + "#1", f.name + "#2"})))
		case reflect.Slice:
			list := reflect.MakeSlice(f.v.Type(), 2, 2)
			for j := range 2 {
				el := list.Index(j)
				if el.Kind() == reflect.String {
					el.SetString(fmt.Sprintf("%s#%d", f.name, j+1))
					continue
				}
				for c := 0; c < el.NumField(); c++ {
					el.Field(c).SetString(fmt.Sprintf("%s#%d.%s", f.name, j+1, strings.ToLower(el.Type().Field(c).Name)))
				}
			}
			f.v.Set(list)
		default:
			panic("no value for a field of kind " + f.v.Kind().String())
		}
	}
}

// expected is what a call of the header sends with the fields' values:
// its KEYS and ARGV, each as fmt.Sprint writes it.
func expected(h header, fields []field) (keys, args []string) {
	byName := map[string]reflect.Value{}
	for _, f := range fields {
		byName[f.name] = f.v
	}
	set := func(name string) bool { return !byName[name].IsZero() }
	for _, e := range h.keys {
		switch {
		case e.list:
			v := byName[e.name+"[]."+e.field]
			for j := 0; j < v.Len(); j++ {
				keys = append(keys, v.Index(j).String())
			}
		case e.cond == "" || set(e.cond):
			keys = append(keys, byName[e.name].String())
		}
	}
	for _, e := range h.args {
		v := byName[e.name]
		if names, ok := v.Interface().(*Names); ok {
			v = reflect.ValueOf(names.List())
		}
		switch {
		case e.list:
			args = append(args, fmt.Sprint(v.Len()))
			for _, col := range e.columns {
				for j := 0; j < v.Len(); j++ {
					el := v.Index(j)
					if el.Kind() == reflect.String {
						args = append(args, el.String())
					} else {
						args = append(args, el.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, col) }).String())
					}
				}
			}
		case v.Kind() == reflect.Bool:
			args = append(args, fmt.Sprint(Flag(v.Bool())))
		default:
			args = append(args, fmt.Sprint(v.Interface()))
		}
	}
	return keys, args
}

// sent is what a call sends, each as fmt.Sprint writes it.
func sent(c Call) (keys, args []string) {
	for _, a := range c.Args {
		args = append(args, fmt.Sprint(a))
	}
	return c.Keys, args
}

// TestHeadersMatchTheirGoArguments: for every script, the struct of its
// arguments names the header's entries, in its order, and its Call sends
// each field where the header says, each flag and optional key too (each
// turned off in turn): so that two arguments swapped in Go, which the
// script's count of what it read cannot catch, fail here.
func TestHeadersMatchTheirGoArguments(t *testing.T) {
	for _, sc := range All() {
		t.Run(sc.Name(), func(t *testing.T) {
			newArgs, ok := argumentsOf[sc.Name()]
			if !ok {
				t.Fatalf("no arguments struct for %s", sc.Name())
			}
			v := newArgs()
			fields := fieldsOf(reflect.ValueOf(v))
			names := make([]string, len(fields))
			for i, f := range fields {
				names[i] = f.name
			}
			if want := headerNames(sc.header); strings.Join(names, " ") != strings.Join(want, " ") {
				t.Fatalf("the struct names\n\t%s\nthe header\n\t%s", strings.Join(names, " "), strings.Join(want, " "))
			}
			check := func(what string) {
				t.Helper()
				if vote, ok := v.(*Vote); ok {
					vote.Settings.args = nil // made again from the fields as they are
				}
				c := v.Call()
				if c.Script.Name() != sc.Name() {
					t.Errorf("%s: the call runs %s", what, c.Script.Name())
				}
				gotKeys, gotArgs := sent(c)
				wantKeys, wantArgs := expected(sc.header, fields)
				if strings.Join(gotKeys, " ") != strings.Join(wantKeys, " ") {
					t.Errorf("%s: KEYS\n\t%q\nwant\n\t%q", what, gotKeys, wantKeys)
				}
				if strings.Join(gotArgs, " ") != strings.Join(wantArgs, " ") {
					t.Errorf("%s: ARGV\n\t%q\nwant\n\t%q", what, gotArgs, wantArgs)
				}
			}
			fill(fields)
			check("every field set")
			// Each flag, number, or string that an optional key depends on,
			// off in turn.
			for _, f := range fields {
				if f.v.Kind() != reflect.Bool && !conditions(sc.header)[f.name] {
					continue
				}
				was := reflect.ValueOf(f.v.Interface())
				f.v.Set(reflect.Zero(f.v.Type()))
				check(f.name + " off")
				f.v.Set(was)
			}
		})
	}
}

// conditions are the ARGV entries that an optional key of the header
// depends on.
func conditions(h header) map[string]bool {
	out := map[string]bool{}
	for _, e := range h.keys {
		if e.cond != "" {
			out[e.cond] = true
		}
	}
	return out
}

// TestScriptsReadWhatTheyAreSent: a script sent one argument more or one
// key fewer than its header names refuses to run, before it writes
// anything; so does one sent the arguments of another script.
func TestScriptsReadWhatTheyAreSent(t *testing.T) {
	v := argumentsOf["vote.lua"]()
	fields := fieldsOf(reflect.ValueOf(v))
	fill(fields)
	cl := v.Call()
	// The keys the vote could write: those it is sent, and those under a
	// name it is sent (its prefix among them), which fill makes each
	// field's own name. Other packages' tests may share the server, so
	// the check looks at these alone.
	patterns := []string{}
	for _, f := range fields {
		patterns = append(patterns, f.name+"*")
	}
	for name, c := range luaConns(t) {
		for what, bad := range map[string]Call{
			"an argument more": {Script: cl.Script, Keys: cl.Keys, Args: append(append([]any(nil), cl.Args...), "x")},
			"a key fewer":      {Script: cl.Script, Keys: cl.Keys[:len(cl.Keys)-1], Args: cl.Args},
		} {
			e := bad.Eval()
			e.Args[0] = e.Source
			_, err := c.Do("EVAL", e.Args...)
			if err == nil || !strings.Contains(err.Error(), "the script read") {
				t.Errorf("%s: vote.lua sent %s: %v, want the script to refuse", name, what, err)
			}
			for _, key := range cl.Keys {
				if n, err := redis.Int(c.Do("EXISTS", key)); n != 0 || err != nil {
					t.Errorf("%s: vote.lua sent %s wrote %s (%v)", name, what, key, err)
				}
			}
			for _, pattern := range patterns {
				if keys, err := redis.Strings(c.Do("KEYS", pattern)); len(keys) != 0 || err != nil {
					t.Errorf("%s: vote.lua sent %s wrote %v (%v)", name, what, keys, err)
				}
			}
		}
	}
}

// TestHeaderRules: a header that names an entry twice, a key list with no
// ARGV list of its length, an optional key whose condition ARGV does not
// name, or an entry that is no name, is refused when the script loads.
func TestHeaderRules(t *testing.T) {
	for src, want := range map[string]string{
		"-- KEYS: a a\n-- ARGV: b\n":                      "twice",
		"-- KEYS: a\n-- ARGV: b b\n":                      "twice",
		"-- KEYS: list[].key\n-- ARGV: b\n":               "no ARGV list",
		"-- KEYS: a?c\n-- ARGV: b\n":                      "does not name",
		"-- KEYS: a-b\n-- ARGV: b\n":                      "no entry",
		"-- KEYS: a\n-- ARGV: b:bool\n":                   "no kind",
		"-- KEYS: a\n-- ARGV: l[]\n":                      "columns",
		"-- KEYS: a\n":                                    "no KEYS or no ARGV",
		"-- KEYS: b\n-- ARGV: b\n":                        "both name",
		"-- KEYS: k l[].x\n-- ARGV: l[x y] m:num\n":       "",
		"-- KEYS: k l[].x\n-- ARGV: l[x y]:place m:num\n": "",
		"-- KEYS: k\n-- ARGV: l[x y]:plac\n":              "no entry",
	} {
		_, err := parseHeader("test.lua", src)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("header %q: %v, want an error saying %q", src, err, want)
		}
	}
}
