package script

// Tests of the scripts themselves: the value of each kind of index against
// the Go model, the library's linking, each script's header against the Go
// that builds its arguments, the check that a script read what it was
// sent, and luacheck. They run the Lua on miniredis, and on a real server
// too when VOTING_REDIS_ADDR names one.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/alicebob/miniredis/v2"
	"github.com/articlevote/voting/internal/model"
	"github.com/articlevote/voting/internal/schema"
	"github.com/gomodule/redigo/redis"
)

// luaConns are connections to the servers the Lua is run on.
func luaConns(t *testing.T) map[string]redis.Conn {
	t.Helper()
	conns := map[string]redis.Conn{}
	mr := miniredis.RunT(t)
	dial := func(name, addr string) {
		c, err := redis.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { c.Close() })
		conns[name] = c
	}
	dial("miniredis", mr.Addr())
	if addr := os.Getenv("VOTING_REDIS_ADDR"); addr != "" {
		dial("redis", addr)
	}
	return conns
}

// valueScript evaluates the library's value for the kind and counts in ARGV.
var valueScript = LibraryFor("value number") +
	"return number(value(ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])))"

// TestValueOfEachKind: for every kind of index the orders table names, the
// one Lua function that says what an index holds agrees with the Go
// model, for random counts.
func TestValueOfEachKind(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, c := range luaConns(t) {
		seen := map[schema.Kind]bool{}
		for _, spec := range schema.Orders {
			if seen[spec.Kind] {
				continue
			}
			seen[spec.Kind] = true
			for range 50 {
				posted := 1.7e9 + float64(rng.IntN(1e8)) + float64(rng.IntN(1e6))/1e6
				ups, downs := float64(rng.IntN(1000)), float64(rng.IntN(1000))
				score := posted + 432*(ups-downs)
				reply, err := redis.String(c.Do("EVAL", valueScript, 0, string(spec.Kind),
					schema.FormatFloat(posted), schema.FormatFloat(ups), schema.FormatFloat(downs), schema.FormatFloat(score)))
				if err != nil {
					t.Fatalf("%s: value(%s): %v", name, spec.Kind, err)
				}
				got, _ := strconv.ParseFloat(reply, 64)
				if !model.ValueMatches(spec.Kind, got, posted, ups, downs, score) {
					want, _ := model.Value(spec.Kind, posted, ups, downs, score)
					t.Errorf("%s: value(%s, %v, %v up, %v down, %v) = %v, want %v", name, spec.Kind, posted, ups, downs, score, got, want)
				}
			}
		}
	}
}

// TestValueRefusesAnUnknownKind: a kind the function does not know is an
// error, never a default.
// TestHotAndBestAtKnownPoints: Reddit's hot ranking and the Wilson lower
// bound at points worked out by hand, in Lua and in the Go model, so that a
// formula wrong in both is caught too.
func TestHotAndBestAtKnownPoints(t *testing.T) {
	const epoch, z = 1134028003, 1.281551565545
	cases := []struct {
		kind               schema.Kind
		posted, ups, downs float64
		want               float64
	}{
		{schema.KindHot, epoch, 1, 1, 0},                     // no net vote, at Reddit's epoch
		{schema.KindHot, epoch, 11, 1, 1},                    // ten net votes: log10(10)
		{schema.KindHot, epoch, 1, 101, -2},                  // a hundred net down-votes
		{schema.KindHot, epoch + 45000, 2, 1, 1},             // 12.5 hours later, one net vote
		{schema.KindHot, epoch + 90000, 1, 0, 2},             // 25 hours later
		{schema.KindBest, 1e9, 0, 0, 0},                      // no vote
		{schema.KindBest, 1e9, 1, 0, 1 / (1 + z*z)},          // p = 1, n = 1: (1 + z²/2 - z²/2) / (1 + z²)
		{schema.KindBest, 1e9, 0, 1, 0},                      // p = 0, n = 1: (z²/2 - z²/2) / (1 + z²)
		{schema.KindBest, 1e9, 500, 500, 0.4797535099072844}, // p = 1/2, n = 1000, worked out apart
	}
	for name, c := range luaConns(t) {
		for _, tc := range cases {
			got, err := redis.Float64(c.Do("EVAL", valueScript, 0, string(tc.kind),
				schema.FormatFloat(tc.posted), schema.FormatFloat(tc.ups), schema.FormatFloat(tc.downs), "0"))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			model, _ := model.Value(tc.kind, tc.posted, tc.ups, tc.downs, 0)
			for what, v := range map[string]float64{"Lua on " + name: got, "the Go model": model} {
				if math.Abs(v-tc.want) > 1e-12 {
					t.Errorf("%s: %s of %v up, %v down, posted %v = %.15g, want %.15g", what, tc.kind, tc.ups, tc.downs, tc.posted, v, tc.want)
				}
			}
		}
	}
}

func TestValueRefusesAnUnknownKind(t *testing.T) {
	for name, c := range luaConns(t) {
		_, err := c.Do("EVAL", valueScript, 0, "hotness", "1", "1", "0", "1")
		if err == nil || !strings.Contains(err.Error(), `unknown index kind "hotness"`) {
			t.Errorf("%s: value of an unknown kind: %v, want an error naming it", name, err)
		}
	}
}

// TestLibraryLinksWhatAScriptUses: a script gets the library's functions
// it names in its code (not in its comments or strings), the functions
// those name, and no others; every block of the library defines one of
// them, once.
func TestLibraryLinksWhatAScriptUses(t *testing.T) {
	parts := Library()
	names := map[string]bool{}
	for _, p := range parts {
		if names[p.Name] {
			t.Errorf("the library defines %s twice", p.Name)
		}
		names[p.Name] = true
		if strings.Count("\n"+p.Text, "\nlocal ") != 1 {
			t.Errorf("the library's block of %s defines more than one name:\n%s", p.Name, p.Text)
		}
	}
	for _, want := range []string{"try", "move", "value", "agedOut", "columns", "sent"} {
		if !names[want] {
			t.Errorf("the library has no %s", want)
		}
	}
	linked := func(body string) string {
		var got []string
		for _, p := range parts {
			if strings.Contains(libraryFor(parts, body), p.Text) {
				got = append(got, p.Name)
			}
		}
		return strings.Join(got, " ")
	}
	for body, want := range map[string]string{
		"return 1 -- value and move are named in this comment only": "",
		"return 'move'":                "",
		"local x = t.move":             "",
		"return move(k, m, '1', 2)":    "refused journal undo journalled move",
		"return value('net', 1, 2, 3)": "quote controversy hot best value",
	} {
		if got := linked(body); got != want {
			t.Errorf("a script of %q links %q, want %q", body, got, want)
		}
	}
}

// TestScriptsPassLuacheck runs luacheck on each script as Redis runs it,
// the library's functions linked in, when luacheck is installed
// (scripts/test installs it; with CI=true it is required).
func TestScriptsPassLuacheck(t *testing.T) {
	luacheck, err := exec.LookPath("luacheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("luacheck is required when CI=true: %v", err)
		}
		t.Skip("luacheck is not installed (Debian's lua-check; scripts/test installs it)")
	}
	dir := t.TempDir()
	var files []string
	for i, sc := range append(All(), Variants()...) {
		file := filepath.Join(dir, fmt.Sprintf("%d-%s", i, sc.Name()))
		if err := os.WriteFile(file, []byte(sc.Source()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	args := append([]string{"--no-color", "--std", "lua51", "--globals", "redis", "KEYS", "ARGV", "--no-max-line-length"}, files...)
	if out, err := exec.Command(luacheck, args...).CombinedOutput(); err != nil {
		t.Errorf("luacheck: %v\n%s", err, out)
	}
}

// decimalScript writes the number ARGV[1] with the library's decimal;
// markScript gives the library's mark of ARGV[1], a time as Redis writes a
// score, or false for none.
var (
	decimalScript = LibraryFor("decimal") + "return decimal(tonumber(ARGV[1]))"
	markScript    = LibraryFor("mark") + "return mark(ARGV[1]) or false"
)

// TestDecimalWritesPlainDecimals: decimal writes a number as schema.FormatFloat
// does, in plain decimal with the fewest digits that read back as exactly
// the number, for numbers that Redis writes with an exponent (%.17g near 0
// or from 10^17) and for random ones of many sizes. (The script is sent
// each number as schema.FormatFloat writes it, below 2^63: miniredis's Lua reads
// neither "1e-05" nor a whole number past an int64.)
func TestDecimalWritesPlainDecimals(t *testing.T) {
	numbers := []float64{
		1e-5, 1e-6, -1e-5, 9.9e-5, 1.5e-7, -2.5e-10, 1.2345678901234567e-08, 1e-300, 5e-324,
		2.2250738585072014e-308, 1e17, 1.2345e18, -9.007199254740993e15,
		0, 1e-4, 123.456, 1795305600.123456, schema.MinSeconds, math.Nextafter(schema.MaxSeconds, 0),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		f := (rng.Float64() + 0.5) * math.Pow(10, float64(rng.IntN(58)-40))
		if rng.IntN(2) == 0 {
			f = -f
		}
		numbers = append(numbers, f)
	}
	for name, c := range luaConns(t) {
		for _, x := range numbers {
			got, err := redis.String(c.Do("EVAL", decimalScript, 0, schema.FormatFloat(x)))
			if err != nil {
				t.Fatalf("%s: decimal(%v): %v", name, x, err)
			}
			if want := schema.FormatFloat(x); got != want {
				t.Errorf("%s: decimal(%v) = %q, want %q", name, x, got, want)
			}
			if back, err := strconv.ParseFloat(got, 64); err != nil || back != x || strings.ContainsAny(got, "eE") {
				t.Errorf("%s: decimal(%v) = %q, which does not read back as it in plain decimal", name, x, got)
			}
		}
	}
}

// TestMarkIsAPostingTime: a window's mark is its time as seconds reads it,
// the same number in plain decimal; a time seconds would refuse, before
// the first posting time or not a number at all, gives no mark.
func TestMarkIsAPostingTime(t *testing.T) {
	tests := map[string]any{
		"1.0000000000000001e-05":  "0.00001",
		"-9.9999999999999995e-07": "-0.000001",
		"1.5e-7":                  "0.00000015",
		"1795305600.123456":       "1795305600.123456",
		"-62135596800":            "-62135596800",
		"253402300799.99997":      "253402300799.99997",
		"-62135596800.01":         nil,
		"-62135683200":            nil,
		"253402300800":            nil,
		"-inf":                    nil,
		"inf":                     nil,
		"nan":                     nil,
	}
	for name, c := range luaConns(t) {
		for text, want := range tests {
			reply, err := c.Do("EVAL", markScript, 0, text)
			if err != nil {
				t.Fatalf("%s: mark(%s): %v", name, text, err)
			}
			var got any
			if b, ok := reply.([]byte); ok {
				got = string(b)
			}
			if got != want {
				t.Errorf("%s: mark(%s) = %v, want %v", name, text, got, want)
			}
		}
	}
}

// TestEachKindOfIndexHasItsLibrary: a kind of index whose description
// (schema.Indexes) names a file of the library has it, and the file
// defines a function.
func TestEachKindOfIndexHasItsLibrary(t *testing.T) {
	for _, ix := range schema.Indexes {
		if ix.Lib == "" {
			continue
		}
		file := "lib/" + ix.Lib + ".lua"
		src, err := luaFiles.ReadFile("lua/" + file)
		if err != nil {
			t.Errorf("the %s indexes' library %s: %v", ix.Name, file, err)
			continue
		}
		if !strings.Contains(string(src), "\nlocal function ") {
			t.Errorf("the %s indexes' library %s defines no function", ix.Name, file)
		}
		found := false
		for _, f := range libraryFiles {
			found = found || f == ix.Lib
		}
		if !found {
			t.Errorf("the %s indexes' library %s is not among the files the loader reads", ix.Name, file)
		}
	}
}

// noComment is hooksScript's answer of the comments' events where no hook
// runs.
const noComment = "CommentPost:- CommentVote:- CommentDelete:- CommentPurge:- CommentReindex:-"

// hooksScript answers, for each event's table of hooks, the kinds whose
// hooks run and the fields they read: "Post:- Vote:- Edit:links[link
// time] ...", "-" for no hook.
const hooksScript = `
local out = {}
for _, ev in ipairs({{'Post', onPost}, {'Vote', onVote}, {'Edit', onEdit}, {'Delete', onDelete}, {'Reindex', onReindex},
		{'CommentPost', onCommentPost}, {'CommentVote', onCommentVote}, {'CommentDelete', onCommentDelete},
		{'CommentPurge', onCommentPurge}, {'CommentReindex', onCommentReindex}}) do
	local hooks, names = ev[2], {}
	if hooks then
		for i = 1, #hooks, 2 do
			names[#names + 1] = hooks[i]
		end
		out[#out + 1] = ev[1] .. ':' .. table.concat(names, ',') .. '[' .. table.concat(hooks.fields, ' ') .. ']'
	else
		out[#out + 1] = ev[1] .. ':-'
	end
end
return table.concat(out, ' ')
`

// TestHooks: each kind of index an option keeps has hooks (hookedKinds);
// the variant of a script for a set of kinds kept runs the hooks of those
// kinds only (the namespace's settings say what every write keeps), with
// the fields of the article's hash they read;
// a variant holds no hook it does not run, and a call runs the variant of
// its Kinds.
func TestHooks(t *testing.T) {
	for _, ix := range schema.Indexes {
		want := ix.Name == "karma" || ix.Name == "links" || ix.Name == "active"
		if got := slices.Contains(hookedKinds, ix.Name); got != want {
			t.Errorf("%q has hooks: %v, want %v", ix.Name, got, want)
		}
	}
	lib := Library()
	for name, c := range luaConns(t) {
		for _, tc := range []struct {
			kept []string
			want string
		}{
			{nil, "Post:- Vote:- Edit:- Delete:- Reindex:- " + noComment},
			{[]string{"karma"}, "Post:karma[poster karma] Vote:karma[poster karma] Edit:- " +
				"Delete:karma[poster karma] Reindex:karma[poster karma] CommentPost:karma[poster karma] " +
				"CommentVote:karma[poster karma] CommentDelete:karma[poster karma] CommentPurge:karma[poster karma] " +
				"CommentReindex:karma[poster karma]"},
			{[]string{"links"}, "Post:links[link time] Vote:- Edit:links[link time] Delete:links[link time] " +
				"Reindex:links[link time] " + noComment},
			{[]string{"links", "karma"}, "Post:karma,links[poster karma link time] Vote:karma[poster karma] " +
				"Edit:links[link time] Delete:karma,links[poster karma link time] " +
				"Reindex:karma,links[poster karma link time] CommentPost:karma[poster karma] " +
				"CommentVote:karma[poster karma] CommentDelete:karma[poster karma] CommentPurge:karma[poster karma] " +
				"CommentReindex:karma[poster karma]"},
			{[]string{"active"}, "Post:active[poster] Vote:- Edit:- Delete:- Reindex:active[poster] " +
				"CommentPost:active[poster] CommentVote:- CommentDelete:- CommentPurge:- CommentReindex:active[poster]"},
		} {
			k := KindsOf(tc.kept)
			src := constants.Replace(libraryFor(append(slices.Clip(lib), hookTables(definedNames(lib), k)...), hooksScript) + hooksScript)
			got, err := redis.String(c.Do("EVAL", src, 0))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if want := tc.want; got != want {
				t.Errorf("%s: keeping %v, the hooks\n\t%s\nwant\n\t%s", name, tc.kept, got, want)
			}
		}
	}
	for _, tc := range []struct {
		kept []string
		call Call
	}{
		{nil, (&Vote{Settings: &VoteSettings{}}).Call()},
		{[]string{"karma"}, (&Vote{Settings: &VoteSettings{Kinds: KindsOf([]string{"karma"})}}).Call()},
		{[]string{"links"}, (&Post{Kinds: KindsOf([]string{"links"}), Built: NewNames(nil), Unbuilt: NewNames(nil)}).Call()},
		{nil, (&CommentVote{}).Call()},
		{[]string{"karma"}, (&CommentVote{Kinds: KindsOf([]string{"karma"})}).Call()},
		{[]string{"active"}, (&CommentPost{Kinds: KindsOf([]string{"active"})}).Call()},
	} {
		src := tc.call.Script.Source()
		for _, kind := range []string{"karma", "links", "active"} {
			var event string
			for _, w := range strings.Split(strings.TrimSuffix(tc.call.Script.Name(), ".lua"), "_") {
				event += strings.ToUpper(w[:1]) + w[1:]
			}
			hook := regexp.MustCompile(`\nlocal (function )?` + kind + "On" + event + `\b`)
			if got, want := hook.MatchString(src), slices.Contains(tc.kept, kind); got != want {
				t.Errorf("%s keeping %v: holds %s: %v, want %v", tc.call.Script.Name(), tc.kept, hook, got, want)
			}
		}
	}
}

// TestVariantsAreMadeOnce: a variant is made when first asked for, and
// every call after, however many race to make it, gets the one made first.
func TestVariantsAreMadeOnce(t *testing.T) {
	v := loadVariants("comment_vote.lua")
	for k := range v.scripts {
		if v.scripts[k].Load() != nil {
			t.Fatalf("variant %d made before it was asked for", k)
		}
	}
	k := KindsOf([]string{"karma", "active"})
	got := make([]*Script, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = v.of(k)
		}()
	}
	wg.Wait()
	for i, s := range got {
		if s != got[0] {
			t.Fatalf("call %d got another variant than call 0", i)
		}
	}
	if want := commentVoteScript.of(k); got[0].SHA() != want.SHA() {
		t.Errorf("variant %d's SHA %v, the package's %v", k, got[0].SHA(), want.SHA())
	}
	for j := range v.scripts {
		if made := v.scripts[j].Load() != nil; made != (Kinds(j) == k) {
			t.Errorf("variant %d made: %v", j, made)
		}
	}
}
