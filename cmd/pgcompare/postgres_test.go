package main

import (
	"strings"
	"testing"
)

func TestPageSQL(t *testing.T) {
	for order, index := range map[string]string{orderTop: "post_top", orderNew: "post_new", orderHot: "post_hot"} {
		sql := pageSQL(order)
		if !strings.HasPrefix(sql, "SELECT id, title, link, poster, published, score, upvotes, downvotes, hot_rank FROM post ") ||
			!strings.HasSuffix(sql, " ORDER BY "+order+" LIMIT $1 OFFSET $2") {
			t.Errorf("pageSQL(%q) = %q", order, sql)
		}
		// Each order is an index's, column for column, so that a page
		// is read off the index.
		if !strings.Contains(indexSQL, "CREATE INDEX "+index+" ON post ("+order+");") {
			t.Errorf("no index %s on (%s) in indexSQL", index, order)
		}
	}
}

func TestVoteSQLIsOneStatement(t *testing.T) {
	// One statement is one round trip and one transaction.
	if strings.Count(voteSQL, ";") != 0 || !strings.Contains(voteSQL, "ON CONFLICT (post_id, person)") ||
		!strings.Contains(voteSQL, "reddit_hot(") || !strings.Contains(schemaSQL, "CREATE FUNCTION reddit_hot(") {
		t.Errorf("voteSQL is not one statement that upserts the like and moves the counts and hot rank:\n%s", voteSQL)
	}
}
