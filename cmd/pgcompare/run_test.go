package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestRunSmall runs the whole program at a tiny scale on servers of its
// own: a private redis-server and a throwaway PostgreSQL cluster. It runs
// only with PGCOMPARE_SERVERS=1: two servers under load for seconds would
// stall the library's own timing tests, which go test runs beside it.
func TestRunSmall(t *testing.T) {
	if testing.Short() || os.Getenv("PGCOMPARE_SERVERS") != "1" {
		t.Skip("starts two servers: set PGCOMPARE_SERVERS=1 to run it")
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("no redis-server:", err)
	}
	if _, _, err := postgresBinaries(""); err != nil {
		t.Skip("no PostgreSQL binaries:", err)
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"-posts", "300", "-votes", "3000", "-voters", "500",
		"-clients", "1,2", "-rounds", "2", "-duration", "50ms", "-count", "20", "-load-clients", "4"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"both front pages (top, page 1) start with", "| vote | 1 | ", "| top, page 12 | 2 | ",
		"| an article's rank in top | 2 | ", "| library: Redis used_memory |", "| Postgres: post and post_like, with indexes |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	// A vote is one command and one round trip on each side; a page is
	// two round trips of the library's against one query.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\| vote \| 1 \| \d+ \| \d+ \| [^|]+ \| 1 / [\d.]+ \| 1 / 1 \|`),
		regexp.MustCompile(`\| top, page 1 \| 1 \| \d+ \| \d+ \| [^|]+ \| [\d.]+ / [\d.]+ \| 2 / 1 \|`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("the report has no line matching %s:\n%s", want, out.String())
		}
	}
}
