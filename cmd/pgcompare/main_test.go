package main

import (
	"io"
	"slices"
	"testing"
	"time"
)

func TestParseClients(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"1,16", []int{1, 16}},
		{"4", []int{4}},
		{" 16 , 1 ", []int{16, 1}},
		{"64", []int{64}},
	} {
		got, err := parseClients(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseClients(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "0", "-1", "65", "x", "1,,2", "1,1", "1.5"} {
		if got, err := parseClients(in); err == nil {
			t.Errorf("parseClients(%q) = %v, want an error", in, got)
		}
	}
}

func TestFlagDefaultsAreTheIssues(t *testing.T) {
	c, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.posts != 100_000 || c.votes != 1_000_000 || !slices.Equal(c.clients, []int{1, 16}) ||
		c.rounds != 5 || c.duration != 2*time.Second || c.redisAddr != "" || c.postgresDSN != "" {
		t.Errorf("defaults = %+v", c)
	}
	c, err = parseFlags([]string{"-clients", "2,8", "-posts", "2000", "-votes", "20000", "-duration", "500ms"}, io.Discard)
	if err != nil || !slices.Equal(c.clients, []int{2, 8}) || c.posts != 2000 || c.votes != 20000 || c.duration != 500*time.Millisecond {
		t.Errorf("parsed %+v, %v", c, err)
	}
}

func TestFlagsRefuse(t *testing.T) {
	for name, args := range map[string][]string{
		"one post":            {"-posts", "1"},
		"negative votes":      {"-votes", "-1"},
		"more votes than can": {"-posts", "10", "-voters", "10", "-votes", "51"},
		"no voters":           {"-voters", "0"},
		"no rounds":           {"-rounds", "0"},
		"no duration":         {"-duration", "0s"},
		"no loaders":          {"-load-clients", "0"},
		"bad clients":         {"-clients", "1,0"},
		"an argument":         {"extra"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%s: parseFlags(%q) took them", name, args)
		}
	}
}
