// Package script holds the Lua scripts of the voting package, one per
// writing operation (so that each is one atomic step and one round trip),
// each in a file of lua/ that opens with a header naming the KEYS and ARGV
// it takes (header.go), and the Go that builds those arguments: a struct
// whose fields name the header's entries in its order, and its Call. The
// scripts share a library, lua/lib/, a file per concern. They are
// embedded, so that a program needs no files at run time.
//
// The header is the one place a script's arguments are written: the
// structs, their Calls and the variables that load the scripts are made
// from the headers into args_gen.go (generate.go). After changing a
// header, or adding a script, run
//
//	go generate ./internal/script
//
// and commit args_gen.go with it; a test fails while it is stale.
//
// Scripts are constants: user input reaches them only as KEYS and ARGV.
// The rules every script follows:
//
//   - It reads its KEYS and ARGV once, at its top, into named locals, in
//     the order its header gives: the loader writes that code from the
//     header, and a list whose length varies comes as its length and then
//     its entries, a field at a time (the library's columns). sent checks
//     that it read exactly what it was sent.
//   - It reads and checks what it needs, then writes. A write to a key that
//     no read has proven of the right type goes through the journal
//     (lib/journal.lua), which undoes the journal's earlier writes if Redis
//     refuses one, so that a script still does all of its change or none
//     of it: Redis does not roll a script back. Every other write is one
//     that can no longer fail.
//   - What a kind of index an option keeps (karma, unique links) writes is
//     its hooks' (lib/hooks.lua), in its own file of the library: a script
//     runs the hooks of its event among its reads, each giving its checks'
//     reply or its plan of writes, and runs the plans with its own writes.
//     A script with hooks has a variant for each set of the kinds kept,
//     which holds the hooks that set runs and no others (a Store runs the
//     variant of what it keeps), and the kind's keys are named from the
//     namespace's prefix: a new kind adds no KEYS, flag or branch to a
//     script, and a write costs nothing for a kind it does not keep.
//   - It answers with a status word ('ok', 'notfound', 'corrupt <detail>'...)
//     rather than raising an error, since Redis and miniredis word script
//     errors differently (status.go reads them). Only a fault of the
//     library itself (an unknown index kind, arguments that do not match
//     the header) raises one, before any write.
//   - Numbers travel as strings both ways: Lua would print a float with 14
//     digits, and an id past 2^53 would lose its last digits as a number.
package script

import (
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/articlevote/voting/internal/schema"
)

//go:embed lua/*.lua lua/lib/*.lua
var luaFiles embed.FS

// A Script is Lua source and its SHA-1, the name EVALSHA knows it by.
type Script struct {
	name, src, hash string
	hashArg         any // hash as an argument, made once
	header          header
}

// Name is the script's file name: "vote.lua".
func (s *Script) Name() string { return s.name }

// SHA is the script's SHA-1 as EVALSHA takes it.
func (s *Script) SHA() any { return s.hashArg }

// Source is the Lua that Redis runs: the library's functions the script
// uses, the reading of its arguments, and its own code.
func (s *Script) Source() string { return s.src }

// Writes is what the script's header says of its writes: "" for a script
// that may write on any run, "never", or "reply" for one whose reply says
// whether it wrote.
func (s *Script) Writes() string { return s.header.writes }

// All are the scripts, for tests that check each: of one with hooks, its
// variant for every kind kept.
func All() []*Script {
	every := Kinds(1<<len(hookedKinds) - 1)
	return []*Script{postScript.of(every), voteScript.of(every), addGroupsScript, removeGroupsScript, deleteScript.of(every),
		clearHistoryScript, groupPageScript, trimWindowScript, reindexOrdersScript.of(every), reindexGroupScript,
		reindexStartScript, reindexScanScript, reindexDoneScript, afterScript, editScript.of(every),
		settingsScript, rescoreScript, rescoreCommentsScript, commentPostScript.of(every), commentVoteScript.of(every),
		commentDeleteScript.of(every), commentEditScript, commentPurgeScript.of(every), commentAfterScript, leaseScript,
		reindexCommentsScript.of(every)}
}

// Variants are the variants of the scripts with hooks, one for each set of
// the kinds kept, for tests that check each.
func Variants() []*Script {
	var out []*Script
	for _, v := range []*variants{postScript, voteScript, deleteScript, reindexOrdersScript, editScript, commentPostScript,
		commentVoteScript, commentDeleteScript, commentPurgeScript, reindexCommentsScript} {
		for k := range v.scripts {
			out = append(out, v.of(Kinds(k)))
		}
	}
	return out
}

// libraryFiles are the files of lua/lib, in the order their functions are
// written before a script (a function comes after those it uses): those
// every kind of index uses, then each kind's (schema.Indexes' Lib), in the
// order of the kinds.
var libraryFiles = func() []string {
	files := []string{"args", "numbers", "journal", "ballots", "comments", "hooks", "marks", "settings", "articles", "reindex", "cursors", "windows"}
	for _, ix := range schema.Indexes {
		if ix.Lib != "" && !slices.Contains(files, ix.Lib) {
			files = append(files, ix.Lib)
		}
	}
	return files
}()

// events are the writes whose scripts run the hooks of the kinds of index
// (lib/hooks.lua): each kind's lib may define its hook, <kind>On<Event>,
// for each event of each kind of item it covers: an article's, and a
// comment's, whose names start with Comment (a kind that covers both
// may give both the same function). A write runs the hooks of the kinds
// the namespace keeps (its settings, which every Store of it writes by),
// and of no other.
var events = []string{"Post", "Vote", "Edit", "Delete", "Reindex",
	"CommentPost", "CommentVote", "CommentDelete", "CommentPurge", "CommentReindex"}

// hookedKinds are the kinds of index whose lib defines a hook of some
// event, in the order of the kinds: those a Kinds can hold.
var hookedKinds = func() []string {
	defined := definedNames(Library())
	var kinds []string
	for _, ix := range schema.Indexes {
		for _, ev := range events {
			if defined[ix.Name+"On"+ev] {
				kinds = append(kinds, ix.Name)
				break
			}
		}
	}
	return kinds
}()

// Kinds are the kinds of index with hooks that a Store keeps, a bit each
// in the order of hookedKinds: which variant of a script with hooks it
// runs.
type Kinds uint

// KindsOf are the kinds among names that have hooks.
func KindsOf(names []string) Kinds {
	var k Kinds
	for i, kind := range hookedKinds {
		if slices.Contains(names, kind) {
			k |= 1 << i
		}
	}
	return k
}

// has reports whether k holds the kind.
func (k Kinds) has(kind string) bool {
	i := slices.Index(hookedKinds, kind)
	return i >= 0 && k&(1<<i) != 0
}

// hookTables are the definitions of each event's table of hooks,
// on<Event>, for the kinds kept: for each kind whose lib defines its hook
// (in the order of the kinds) that is kept, its name and its hook, two
// entries of the table; and in fields, the fields of the article's hash
// they read. false for an event with no hook to run.
func hookTables(defined map[string]bool, kept Kinds) []Part {
	var parts []Part
	for _, ev := range events {
		var hooks, fields []string
		for _, ix := range schema.Indexes {
			hook := ix.Name + "On" + ev
			if !defined[hook] || !kept.has(ix.Name) {
				continue
			}
			hooks = append(hooks, fmt.Sprintf("'%s', %s", ix.Name, hook))
			for _, f := range ix.Fields {
				if !slices.Contains(fields, f) {
					fields = append(fields, f)
				}
			}
		}
		table := "false"
		if len(hooks) > 0 {
			for i, f := range fields {
				fields[i] = "'" + f + "'"
			}
			table = fmt.Sprintf("{fields = {%s}, %s}", strings.Join(fields, ", "), strings.Join(hooks, ", "))
		}
		parts = append(parts, Part{Name: "on" + ev, Text: fmt.Sprintf(
			"-- on%s are the hooks of the event %s for the kinds kept (lib/hooks.lua), written by the loader.\nlocal on%s = %s\n\n",
			ev, ev, ev, table)})
	}
	return parts
}

// definedNames are the names parts define.
func definedNames(parts []Part) map[string]bool {
	defined := map[string]bool{}
	for _, p := range parts {
		defined[p.Name] = true
	}
	return defined
}

// variants are a script that runs hooks (it names an event's table,
// on<Event>): a Script for each set of the kinds kept, with that set's
// hooks written in. A script defines every function it holds on every run,
// so a variant holds no kind's hooks that it does not run: one for no kind
// holds only the few functions that run hooks, and its vote costs what the
// vote cost before there were hooks. There are 2^kinds of them, so each is
// made when first asked for: a program pays for the variants of what its
// namespaces keep, not for every set (all of them cost a program's start
// tens of milliseconds and megabytes with three kinds, doubling with each
// kind).
type variants struct {
	name    string
	scripts []atomic.Pointer[Script]
}

// of is the variant for the kinds kept, made on the first call for them:
// calls racing to make it make the same, and all get the first stored.
func (v *variants) of(k Kinds) *Script {
	if s := v.scripts[k].Load(); s != nil {
		return s
	}
	lib := library()
	v.scripts[k].CompareAndSwap(nil, loadWith(v.name, append(slices.Clip(lib), hookTables(definedNames(lib), k)...)))
	return v.scripts[k].Load()
}

// loadVariants is the variants of lua/name, one for each set of the kinds
// with hooks; it reads the header now, so that a broken one is a broken
// build, as load's is.
func loadVariants(name string) *variants {
	if _, err := parseHeader(name, Source(name)); err != nil {
		panic("voting: the package is built with a broken script: " + err.Error())
	}
	return &variants{name: name, scripts: make([]atomic.Pointer[Script], 1<<len(hookedKinds))}
}

// library is Library, read once.
var library = sync.OnceValue(Library)

// load reads lua/name: its header, the Lua that reads its arguments, and
// before them the functions of the library it uses; and writes the numbers
// the scripts share with Go in place of their names. The files are part
// of the package, so a missing or unsound one is a broken build.
func load(name string) *Script { return loadWith(name, library()) }

// loadWith is load with the library parts.
func loadWith(name string, parts []Part) *Script {
	body := Source(name)
	h, err := parseHeader(name, body)
	if err != nil {
		panic("voting: the package is built with a broken script: " + err.Error())
	}
	code := h.prologue() + body
	src := constants.Replace(libraryFor(parts, code) + code)
	sum := sha1.Sum([]byte(src))
	hash := hex.EncodeToString(sum[:])
	return &Script{name: name, src: src, hash: hash, hashArg: hash, header: h}
}

// Source is the text of lua/name (a script, or lib/x.lua).
func Source(name string) string {
	b, err := fs.ReadFile(luaFiles, "lua/"+name)
	if err != nil {
		panic("voting: the package is built without its script " + name + ": " + err.Error())
	}
	return string(b)
}

// MaxGroupBytes is the most bytes of a group name: the voting package's
// MaxGroupLen characters of up to four bytes, which its tests check.
const MaxGroupBytes = 4 * 64

// constants are the numbers and names the scripts share with Go, by the
// names the scripts give them: the numbers, and for each kind of index
// (schema.Indexes) its keys' parts (KARMA_PART for "karma:") and its mark
// (LINKS_MARK), as Lua strings.
var constants = strings.NewReplacer(func() []string {
	pairs := []string{
		"MIN_SECONDS", schema.FormatFloat(schema.MinSeconds),
		"MAX_SECONDS", schema.FormatFloat(schema.MaxSeconds),
		"MAX_COUNT_DIGITS", strconv.Itoa(schema.MaxCountDigits),
		"MAX_GROUP_BYTES", strconv.Itoa(MaxGroupBytes),
	}
	for _, ix := range schema.Indexes {
		for _, part := range ix.Parts {
			pairs = append(pairs, PartConstant(part.Key), strconv.Quote(part.Key))
		}
		if ix.Mark != "" && !ix.PerOrder {
			pairs = append(pairs, strings.ToUpper(ix.Name)+"_MARK", strconv.Quote(ix.Mark))
		}
	}
	return pairs
}()...)

// PartConstant is the name the scripts give a key's part: KARMA_PART for
// "karma:".
func PartConstant(part string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSuffix(part, ":"), "-", "_")) + "_PART"
}

// A Part is one definition of the library: a block of lines with no blank
// line in it, its comment first, that defines the local Name.
type Part struct {
	Name, Text string
}

// Library is the library's definitions, in the order they are written
// before a script; a block that defines nothing (a file's own comment) is
// left out.
func Library() []Part {
	var parts []Part
	for _, file := range libraryFiles {
		for _, block := range strings.Split(Source("lib/"+file+".lua"), "\n\n") {
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
				parts = append(parts, Part{Name: def[:end], Text: strings.TrimSpace(block) + "\n\n"})
				break
			}
		}
	}
	return parts
}

// libraryFor gives the parts code uses, and the parts those use, in the
// library's order: a script defines every function before it on every
// call, so it gets only those it needs.
func libraryFor(parts []Part, code string) string {
	used := map[string]bool{}
	var need func(text string)
	need = func(text string) {
		code := luaCode(text)
		for _, p := range parts {
			if !used[p.Name] && usesName(code, p.Name) {
				used[p.Name] = true
				need(p.Text)
			}
		}
	}
	need(code)
	var b strings.Builder
	for _, p := range parts {
		if used[p.Name] {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// LibraryFor is libraryFor of the library, with its numbers written in,
// for tests that run the library's functions.
func LibraryFor(code string) string { return constants.Replace(libraryFor(Library(), code)) }

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
