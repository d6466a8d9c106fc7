package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/articlevote/voting"
)

func TestPercentile(t *testing.T) {
	var r result
	for i := 100; i >= 1; i-- {
		r.latencies = append(r.latencies, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{0.5: 50 * time.Millisecond, 0.99: 99 * time.Millisecond,
		1: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := r.percentile(p); got != want {
			t.Errorf("percentile(%v) = %v, want %v", p, got, want)
		}
	}
	if got := (result{}).percentile(0.5); got != 0 {
		t.Errorf("percentile of nothing = %v", got)
	}
}

func TestTargetAlternates(t *testing.T) {
	ids := []string{"1", "2"}
	var got []string
	for i := range 6 {
		id, dir := target(ids, i)
		got = append(got, id+" "+dir.String())
	}
	want := "1 up,2 up,1 none,2 none,1 up,2 up"
	if strings.Join(got, ",") != want {
		t.Errorf("targets %v, want %s", got, want)
	}
	if _, dir := target(ids, 2); dir != voting.None {
		t.Errorf("the third vote is %v, want None", dir)
	}
}

func TestTable(t *testing.T) {
	ops := []operation{{name: "vote"}}
	results := []result{
		{requests: 100, elapsed: time.Second, latencies: []time.Duration{time.Millisecond}, commands: 700},
		{requests: 200, elapsed: time.Second, latencies: []time.Duration{time.Millisecond}, commands: 1400},
	}
	var b bytes.Buffer
	writeTable(&b, ops, results)
	for _, want := range []string{"| vote | HTTP | 100 | 1.00 ms | 1.00 ms | 7.00 | **2.00x** |", "| vote | direct | 200 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"-redis", "x", "-newsd", "http://h"}, {"-redis", "x", "-clients", "0"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) took them", args)
		}
	}
	c, err := parseFlags([]string{"-redis", "127.0.0.1:6379"}, io.Discard)
	if err != nil || c.clients != 16 || c.rounds != 2 || c.seed != 1000 {
		t.Errorf("defaults = %+v, %v", c, err)
	}
}
