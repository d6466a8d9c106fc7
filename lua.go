package voting

// This file holds the Go side of the Lua scripts in lua/: one per writing
// operation, so that each is one atomic step and one round trip, each in a
// file of its own that opens with the KEYS and ARGV it takes, and the
// shared functions in lua/prelude.lua (which says the rules every script
// follows). They are embedded, so that a Store needs no files at run time.
//
// Scripts are constants: user input reaches them only as KEYS and ARGV.
// The Go code that builds one script's KEYS and ARGV sits beside the
// operation that runs it, in one function per script, in the order of the
// script's header; the script checks that it read exactly what it was
// sent.
//
// Store.run sends EVALSHA and falls back to EVAL itself rather than using
// redigo's redis.Script, because each round trip must honour the call's
// context (redis.Script's DoContext would not bound a plain or timeout-only
// connection) and run on a connection the Store has bound to the
// namespace's Redis Cluster slot.

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/articlevote/voting/internal/rconn"
	"github.com/articlevote/voting/internal/schema"
)

//go:embed lua/*.lua
var luaFiles embed.FS

// A script is Lua source and its SHA-1, the name EVALSHA knows it by.
type script struct {
	name, src, hash string
	hashArg         any // hash as an argument, made once
}

// The scripts, one per file of lua/.
var (
	postScript         = loadScript("post.lua")
	voteScript         = loadScript("vote.lua")
	addGroupsScript    = loadScript("add_groups.lua")
	removeGroupsScript = loadScript("remove_groups.lua")
	deleteScript       = loadScript("delete.lua")
	clearHistoryScript = loadScript("clear_history.lua")
	groupPageScript    = loadScript("group_page.lua")
	trimWindowScript   = loadScript("trim_window.lua")
	reindexOrders      = loadScript("reindex_orders.lua")
	reindexGroup       = loadScript("reindex_group.lua")
	reindexStart       = loadScript("reindex_start.lua")
	reindexScan        = loadScript("reindex_scan.lua")
	reindexDone        = loadScript("reindex_done.lua")
	afterScript        = loadScript("after.lua")
	editScript         = loadScript("edit.lua")
)

// loadScript reads lua/name with the functions of the prelude it uses
// before it, and writes the numbers the scripts share with Go in place of
// their names. The files are part of the package, so a missing one is a
// broken build.
func loadScript(name string) *script {
	body := luaSource(name)
	src := luaConstants.Replace(preludeFor(preludeParts(luaSource("prelude.lua")), body) + body)
	sum := sha1.Sum([]byte(src))
	hash := hex.EncodeToString(sum[:])
	return &script{name: name, src: src, hash: hash, hashArg: hash}
}

// A preludePart is one definition of the prelude: a block of lines with no
// blank line in it, its comment first, that defines the local name.
type preludePart struct {
	name, text string
}

// preludeParts splits the prelude into its definitions, in order; a block
// that defines nothing (the file's own comment) is left out.
func preludeParts(prelude string) []preludePart {
	var parts []preludePart
	for _, block := range strings.Split(prelude, "\n\n") {
		for _, line := range strings.Split(block, "\n") {
			def, ok := strings.CutPrefix(line, "local ")
			if !ok {
				continue
			}
			def = strings.TrimPrefix(def, "function ")
			end := strings.IndexFunc(def, func(r rune) bool { return !isLuaNameRune(r) })
			if end < 0 {
				end = len(def)
			}
			parts = append(parts, preludePart{name: def[:end], text: strings.TrimSpace(block) + "\n\n"})
			break
		}
	}
	return parts
}

// preludeFor gives the parts body uses, and the parts those use, in the prelude's
// order: a script defines every function before it on every call, so it
// gets only those it needs.
func preludeFor(parts []preludePart, body string) string {
	used := map[string]bool{}
	var need func(text string)
	need = func(text string) {
		code := luaCode(text)
		for _, p := range parts {
			if !used[p.name] && usesName(code, p.name) {
				used[p.name] = true
				need(p.text)
			}
		}
	}
	need(body)
	var b strings.Builder
	for _, p := range parts {
		if used[p.name] {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// luaCode is Lua text without its comments and with its strings emptied,
// so that a word of either is not taken for a use of a function of that
// name.
func luaCode(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		var quote byte
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case quote != 0 && c == '\\':
				i++
			case quote != 0 && c == quote:
				quote = 0
				b.WriteByte(c)
			case quote != 0:
			case c == '\'' || c == '"':
				quote = c
				b.WriteByte(c)
			case strings.HasPrefix(line[i:], "--"):
				i = len(line)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// usesName reports whether text holds name as a whole Lua name, not as a
// field (after a '.' or ':').
func usesName(text, name string) bool {
	for i := strings.Index(text, name); i >= 0; {
		end := i + len(name)
		before, after := ' ', ' '
		if i > 0 {
			before = rune(text[i-1])
		}
		if end < len(text) {
			after = rune(text[end])
		}
		if !isLuaNameRune(before) && before != '.' && before != ':' && !isLuaNameRune(after) {
			return true
		}
		next := strings.Index(text[end:], name)
		if next < 0 {
			return false
		}
		i = end + next
	}
	return false
}

func isLuaNameRune(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// luaSource is the text of lua/name.
func luaSource(name string) string {
	b, err := luaFiles.ReadFile("lua/" + name)
	if err != nil {
		panic("voting: the package is built without its script " + name + ": " + err.Error())
	}
	return string(b)
}

// luaConstants are the numbers of encoding.go and validate.go that the
// scripts share, by the names the scripts give them.
var luaConstants = strings.NewReplacer(
	"MIN_SECONDS", schema.FormatFloat(schema.MinSeconds),
	"MAX_SECONDS", schema.FormatFloat(schema.MaxSeconds),
	"MAX_COUNT_DIGITS", strconv.Itoa(schema.MaxCountDigits),
	"MAX_GROUP_BYTES", strconv.Itoa(utf8.UTFMax*MaxGroupLen),
)

// A call is the KEYS and ARGV of one run of a script, appended in the order
// of the script's header.
type call struct {
	keys []string
	args []any
}

// key appends keys to KEYS.
func (c *call) key(keys ...string) { c.keys = append(c.keys, keys...) }

// arg appends args to ARGV.
func (c *call) arg(args ...any) { c.args = append(c.args, args...) }

// columns appends to ARGV a list of n records, as lua/prelude.lua's columns
// reads one: n, then for each field the n entries field(i) gives.
func (c *call) columns(n int, fields ...func(i int) any) {
	c.args = append(c.args, n)
	for _, field := range fields {
		for i := range n {
			c.args = append(c.args, field(i))
		}
	}
}

// names appends to ARGV a list of names, as columns reads it.
func (c *call) names(names []string) {
	c.columns(len(names), func(i int) any { return names[i] })
}

// flag is a yes or no as the scripts take it: '1' or '0'.
func flag(yes bool) any {
	if yes {
		return "1"
	}
	return "0"
}

// SHA is the script's SHA-1 as EVALSHA takes it.
func (s *script) SHA() any { return s.hashArg }

// Source is the script's Lua source.
func (s *script) Source() string { return s.src }

// runScript runs sc with the KEYS and ARGV of cl in one session of rc.
func runScript(ctx context.Context, rc *rconn.Client, sc *script, cl call) (any, error) {
	return rc.Run(ctx, sc, cl.keys, cl.args)
}

// runOn runs sc with the KEYS and ARGV of cl on c.
func runOn(c rconn.Link, sc *script, cl call) (any, error) { return c.Run(sc, cl.keys, cl.args) }

// evalArgsOf are the arguments of EVALSHA for sc and cl.
func evalArgsOf(sc *script, cl call) []any { return rconn.EvalArgs(sc, cl.keys, cl.args) }
