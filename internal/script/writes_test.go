package script

// Tests of what a script's header says of its writes (WRITES: never or
// reply), by which a read leaves the client-side cache as it is.

import (
	"regexp"
	"testing"
)

// Commands the scripts name, by what they do; every word in capitals a
// script quotes is one of these or an argument (argWords), so that a new
// command is placed here before any script may use it.
var (
	readCommands = map[string]bool{
		"EXISTS": true, "GET": true, "HGET": true, "HGETALL": true, "HKEYS": true, "HLEN": true, "HMGET": true,
		"SCARD": true, "SISMEMBER": true, "SMEMBERS": true, "SSCAN": true, "ZCARD": true, "ZCOUNT": true,
		"ZMSCORE": true, "ZRANGE": true, "ZRANGEBYLEX": true, "ZRANGEBYSCORE": true, "ZRANK": true,
		"ZREVRANGE": true, "ZREVRANK": true, "ZSCORE": true,
	}
	writeCommands = map[string]bool{
		"DEL": true, "HDEL": true, "HINCRBY": true, "HSET": true, "HSETNX": true, "INCR": true, "PEXPIRE": true,
		"RENAME": true, "SADD": true, "SET": true, "SPOP": true, "SREM": true, "UNLINK": true, "ZADD": true, "ZINCRBY": true,
		"ZINTERSTORE": true, "ZREM": true,
	}
	argWords = map[string]bool{"WITHSCORES": true, "LIMIT": true, "WEIGHTS": true, "COUNT": true, "XX": true, "NX": true, "PX": true,
		"GT": true, "WRONGTYPE": true}
)

var quotedCapitals = regexp.MustCompile(`'([A-Z]{2,})'`)

// TestWritesSaysWhatAScriptWrites: a script whose header says it never
// writes names no writing command, one that says its reply tells names
// some, and a script that names none says it never writes, so that none
// empties the cache for nothing.
func TestWritesSaysWhatAScriptWrites(t *testing.T) {
	for _, sc := range append(All(), Variants()...) {
		writes := false
		src := sc.Source()
		for _, m := range quotedCapitals.FindAllStringSubmatch(src, -1) {
			word := m[1]
			switch {
			case writeCommands[word]:
				writes = true
			case readCommands[word], argWords[word]:
			default:
				t.Errorf("%s names %s, which this test does not place among reads, writes or arguments", sc.Name(), word)
			}
		}
		switch w := sc.Writes(); {
		case w == "never" && writes:
			t.Errorf("%s says it never writes, and names a writing command", sc.Name())
		case w != "never" && !writes:
			t.Errorf("%s names no writing command: its header should say WRITES: never", sc.Name())
		}
	}
	for name, want := range map[string]string{"after.lua": "never", "comment_after.lua": "never", "trim_window.lua": "reply"} {
		if got := load(name).Writes(); got != want {
			t.Errorf("%s: WRITES %q, want %q", name, got, want)
		}
	}
	if _, err := parseHeader("x.lua", "-- KEYS: a\n-- ARGV: b\n-- WRITES: seldom\n"); err == nil {
		t.Error("a header saying WRITES: seldom was taken")
	}
}

// TestTrimWindowSaysWhenItWrote: trim_window.lua's status says "wrote"
// exactly when it took members out or moved its mark, and Eval's Writes
// reads it so.
func TestTrimWindowSaysWhenItWrote(t *testing.T) {
	for name, c := range luaConns(t) {
		t.Run(name, func(t *testing.T) {
			p := "writes-test:" + name + ":"
			for _, k := range []string{"window", "time", "trimmed", "indexed", "articles"} {
				if _, err := c.Do("DEL", p+k); err != nil {
					t.Fatal(err)
				}
			}
			for i, at := range []string{"1795305600", "1795305660", "1795305720"} {
				for _, k := range []string{"window", "time"} {
					if _, err := c.Do("ZADD", p+k, at, "a"+string(rune('1'+i))); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, step := range []struct {
				cut   string
				batch int
				want  string
			}{
				{"1795305660", 10, "ok wrote"},  // a1 and a2 leave; the mark moves to the cut
				{"1795305660", 10, "ok"},        // trimmed to the cut already
				{"1795305720", 1, "more wrote"}, // a3 leaves, one step of one
				{"1795305720", 1, "ok"},         // the mark is at the cut
				{"1795305600", 10, "ok"},        // a cut before the mark
				{"1795305780", 10, "ok"},        // the window is empty: nothing to take out, no mark to move
			} {
				tw := TrimWindow{Window: p + "window", ByTime: p + "time", Trimmed: p + "trimmed", Indexed: p + "indexed",
					Articles: p + "articles", Field: "top-day", Cut: step.cut, Batch: step.batch}
				e := tw.Call().Eval()
				args := append([]any{e.Source}, e.Args[1:]...)
				reply, err := c.Do("EVAL", args...)
				got, serr := ReadStatus(reply, err)
				if serr != nil || got.Word+map[bool]string{true: " " + got.Detail, false: ""}[got.Detail != ""] != step.want {
					t.Fatalf("trim to %s by %d: %v, %v; want %q", step.cut, step.batch, reply, serr, step.want)
				}
				if wrote := e.Writes(reply, err); wrote != (got.Detail == Wrote) {
					t.Errorf("trim to %s by %d answered %v: Writes says %v", step.cut, step.batch, reply, wrote)
				}
			}
		})
	}
}
