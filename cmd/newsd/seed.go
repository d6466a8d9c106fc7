package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/articlevote/voting"
)

// sampleUsers post and vote on the sample articles.
var sampleUsers = []string{"mkern", "ada_l", "tomasz", "priya.r", "jlowe", "nadia", "okafor", "sven", "hikaru", "marta_g",
	"dwright", "li.wei", "benoit", "rchen", "kofi", "elena_v", "pjm", "sam_o", "yusuf", "ingrid"}

// sampleSites are where each group's articles link: a host, with the
// start of a path where a site keeps one per author or per month. The
// sites are made up; their links need not resolve.
var sampleSites = map[string][]string{
	"programming": {"blog.tinyloops.dev", "eng.harborlight.io", "notes.quietcompiler.org", "dev.to/okafor",
		"medium.com/@marta_g", "www.codeandcoffee.net/posts"},
	"redis":     {"cachecraft.dev", "eng.pinecrest.app/blog", "blog.kvstore.io", "opsnotes.net/2025"},
	"databases": {"blog.tuplespace.dev", "engineering.fernhill.com", "postgresnotes.org", "www.dataweekly.news/issue-212"},
	"science":   {"sciencedesk.org/2025/04", "labnotes.news", "www.skyandfield.org/articles", "news.oceanlab.edu"},
	"books":     {"thebookreview.net", "longshelf.substack.com/p", "www.litquarterly.org/essays", "readingroom.blog"},
	"music":     {"synthnotes.net", "www.basslinemag.com/features", "tapeloop.fm", "listeningroom.blog/posts"},
}

// sampleArticles are the sample titles, each with its groups, the first
// the one whose sites it links to.
var sampleArticles = []struct{ groups, title string }{
	{"programming", "Go 1.24's Swiss-table maps, benchmarked on real workloads"},
	{"programming", "What I learned writing a Lisp interpreter in 500 lines of C"},
	{"programming", "The surprising cost of small allocations in Rust"},
	{"programming", "Structured concurrency, explained with diagrams"},
	{"programming", "A practical guide to property-based testing"},
	{"programming", "How our monorepo build went from 40 minutes to 4"},
	{"programming", "Error-handling patterns that survived five years in production"},
	{"programming", "The Linux page cache for application developers"},
	{"programming", "Writing a regex engine from scratch"},
	{"programming", "Zig's comptime is not a macro system"},
	{"programming", "How we cut p99 latency in half by removing one mutex"},
	{"programming", "Show: a terminal UI for browsing git history"},
	{"programming", "On naming things: a field guide for code reviewers"},
	{"programming", "Profiling Python without changing a line of code"},
	{"programming", "The case against microservices for a team of five"},
	{"programming", "Designing APIs that are hard to misuse"},
	{"programming", "A gentle introduction to the WebAssembly component model"},
	{"programming databases", "SQLite as an application file format, ten years on"},
	{"programming", "Fuzzing our JSON parser found 14 bugs in a weekend"},
	{"programming", "Generics in Go, three years later"},
	{"programming", "How garbage collectors find their roots"},
	{"programming", "Reading the V8 source: how hidden classes work"},
	{"programming", "A visual guide to Git's internals"},
	{"programming", "Make is still the best task runner"},
	{"programming", "Tail calls, trampolines and the stack you don't see"},

	{"redis", "How Redis implements sorted sets with a skiplist"},
	{"redis", "Rate limiting with Redis and Lua, done right"},
	{"redis", "What happens when Redis runs out of memory"},
	{"redis", "Redis Streams or Kafka for a small team?"},
	{"redis", "A leaderboard for ten million players on one Redis node"},
	{"redis", "Three years of Redis Cluster in production"},
	{"redis", "Why our Redis latency spiked every hour (it was the RDB fork)"},
	{"redis", "Redis persistence explained: RDB, AOF, or both"},
	{"redis", "Naming Redis keys so that you won't regret it"},
	{"redis", "Distributed locks with Redis: what Redlock does and doesn't promise"},
	{"redis", "Cache-aside, write-through and the thundering herd"},
	{"redis", "Pipelining cut our Redis round trips by 90%"},
	{"redis", "Inside Redis's event loop"},
	{"redis", "Reliable job queues on Redis with BLMOVE"},
	{"redis", "Small hashes in Redis: listpacks explained"},
	{"redis", "Keyspace notifications: the pub/sub you didn't know you had"},
	{"redis", "Migrating 2 TB of Redis data with zero downtime"},
	{"redis", "Counting unique visitors with HyperLogLog"},
	{"redis", "Redis Lua scripts are atomic, but not free"},
	{"redis", "Valkey or Redis after the license change: what we chose and why"},
	{"redis", "Geospatial queries in Redis for a delivery app"},
	{"redis", "Debugging a slow Redis with SLOWLOG and LATENCY DOCTOR"},
	{"redis", "Read replicas and stale reads: a Redis story"},
	{"redis databases", "Modeling a social feed with Redis sorted sets"},
	{"redis", "How Redis expires keys without scanning them all"},

	{"databases", "How Postgres MVCC works, and why VACUUM matters"},
	{"databases", "B-trees and LSM trees: a practical comparison"},
	{"databases", "Why we moved from MongoDB back to Postgres"},
	{"databases", "The write-ahead log, from first principles"},
	{"databases", "Finding the indexes Postgres never uses"},
	{"databases", "Jepsen-style testing of our own database, on a budget"},
	{"databases", "Isolation levels are confusing, so here are pictures"},
	{"databases", "DuckDB for analytics in production: a year in"},
	{"databases", "How query planners estimate row counts, and get them wrong"},
	{"databases", "Zero-downtime schema migrations in MySQL"},
	{"databases", "Consistent hashing, illustrated"},
	{"databases", "A tour of ClickHouse's MergeTree engine"},
	{"databases", "Time-series data in plain Postgres with partitioning"},
	{"databases", "Raft in plain words"},
	{"databases", "What every developer should know about connection pools"},
	{"databases", "The case for boring databases"},
	{"databases", "Backups you have not restored are not backups"},
	{"databases", "Designing a schema for multi-tenant SaaS"},
	{"databases", "N+1 queries: finding them before your users do"},
	{"databases", "Vector search in Postgres with pgvector, benchmarked"},
	{"databases", "How Spanner uses TrueTime"},
	{"databases programming", "Building a tiny key-value store in Go"},
	{"databases", "Foreign keys are worth what they cost"},
	{"databases", "Why COUNT(*) is slow on large tables"},

	{"science", "Webb telescope finds carbon dioxide in an exoplanet's atmosphere"},
	{"science", "How tardigrades survive being dried out"},
	{"science", "A new map of the human gut microbiome"},
	{"science", "Why is the night sky dark? Olbers' paradox explained"},
	{"science", "Physicists measure gravity at the smallest scale yet"},
	{"science", "The quiet revolution in weather forecasting"},
	{"science", "Octopuses edit their own RNA in cold water"},
	{"science", "The mathematics of sand dunes"},
	{"science", "Bees can count to four, a new study suggests"},
	{"science", "How lithium-ion batteries age"},
	{"science", "A 'living fossil' fish turns out to live for a century"},
	{"science", "The search for dark matter moves underground"},
	{"science", "Deep-sea mining and what it would disturb"},
	{"science", "Three ways to measure the age of the universe"},
	{"science", "A field guide to the clouds"},
	{"science", "How ancient DNA rewrote European prehistory"},
	{"science", "Solar cycle 25 is peaking earlier than forecast"},
	{"science", "The chemistry of a good cup of coffee"},
	{"science", "Alpine glaciers lost a tenth of their volume in two years"},
	{"science", "Crows recognise faces and hold grudges"},
	{"science", "Quantum error correction passes a milestone"},
	{"science", "Sleep spindles and how memories are consolidated"},

	{"books programming", "The books that shaped a generation of programmers"},
	{"books", "Why I reread Middlemarch every decade"},
	{"books", "'The Ministry for the Future', five years later"},
	{"books", "The lost art of the index"},
	{"books", "How translators handle puns"},
	{"books databases", "A reading list for learning distributed systems"},
	{"books", "Ursula K. Le Guin's essays on writing"},
	{"books", "A short history of the paperback"},
	{"books science", "What 'Gödel, Escher, Bach' gets right about minds"},
	{"books databases", "Notes on 'Designing Data-Intensive Applications'"},
	{"books", "Independent bookshops are quietly thriving"},
	{"books", "On reading slowly"},
	{"books", "'Piranesi' and the architecture of memory"},
	{"books", "The strange afterlife of pulp science fiction"},
	{"books programming", "Why 'The Mythical Man-Month' still holds up"},
	{"books", "How libraries decide what to keep"},
	{"books programming", "Reading Borges as a programmer"},
	{"books science", "The best science books of the year"},
	{"books", "Marginalia: what readers wrote in old books"},
	{"books", "A year of reading only translated fiction"},
	{"books", "The typography of the first printed books"},
	{"books programming", "What makes a good technical book"},

	{"music", "How a synthesizer makes a string sound"},
	{"music science", "The physics of guitar feedback"},
	{"music", "Why vinyl came back"},
	{"music", "A short history of the drum machine"},
	{"music", "Learning jazz harmony as an adult"},
	{"music", "The loudness war is over. Who won?"},
	{"music programming", "Making music with Csound and a text editor"},
	{"music science", "What makes a melody catchy, according to researchers"},
	{"music", "The economics of streaming for independent musicians"},
	{"music programming", "Building a MIDI controller with an Arduino"},
	{"music", "Bach's Goldberg Variations, bar by bar"},
	{"music", "Equal temperament and its critics"},
	{"music", "Why film scores all sound the same now"},
	{"music", "How cassette culture spread music in the 1980s"},
	{"music", "A beginner's guide to modular synthesis"},
	{"music science", "Sampling rates, and what you can actually hear"},
	{"music", "The forgotten women of early electronic music"},
	{"music", "Field recording on a budget"},
	{"music programming", "Algorithmic composition with Markov chains"},
	{"music", "Why orchestras tune to the oboe"},
	{"music", "Reviving a 1970s tape echo"},
	{"music science", "Why we hear the missing fundamental"},
	{"music programming", "Live coding music with TidalCycles"},
	{"music", "The rise of the bedroom producer"},
}

// seed posts n sample articles over the past six days, in a shuffled
// order, each in its groups, with votes from the sample users that make
// some rise and some sink: a few are loved, a few are disputed, most get a
// handful. Past the samples it posts them again, as sites see old articles
// posted again: the year in the title, the link an archived copy.
func seed(ctx context.Context, pool voting.Pool, prefix string, n int, now time.Time) error {
	rng := rand.New(rand.NewPCG(1, 2))
	clock := now.Add(-6 * 24 * time.Hour)
	// A Store of the same namespace and options whose clock walks through
	// the past six days, so that the articles have their ages.
	s, err := newStore(pool, prefix, func() time.Time { return clock })
	if err != nil {
		return err
	}
	defer s.Close()
	order := rng.Perm(len(sampleArticles))
	step := 6 * 24 * time.Hour / time.Duration(n+1)
	for i := range n {
		clock = clock.Add(step)
		sample := sampleArticles[order[i%len(order)]]
		groups := strings.Fields(sample.groups)
		sites := sampleSites[groups[0]]
		title, link := sample.title, "https://"+sites[order[i%len(order)]%len(sites)]+"/"+slug(sample.title)
		if again := i / len(order); again > 0 {
			year := 2025 - again
			title = fmt.Sprintf("%s (%d)", title, year)
			link = fmt.Sprintf("https://web.archive.org/web/%d/%s", year, link)
		}
		poster := sampleUsers[rng.IntN(len(sampleUsers))]
		id, err := s.PostArticle(ctx, poster, title, link, groups...)
		if err != nil {
			return err
		}
		ups, downs := rng.IntN(4), rng.IntN(2)
		switch rng.IntN(10) {
		case 0:
			ups = 8 + rng.IntN(12) // loved
		case 1:
			ups, downs = 4+rng.IntN(6), 4+rng.IntN(6) // disputed
		}
		for j, user := range rng.Perm(len(sampleUsers)) {
			dir := voting.Up
			switch {
			case j >= ups+downs:
				continue
			case j >= ups:
				dir = voting.Down
			}
			if err := s.Vote(ctx, sampleUsers[user], id, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// slug is a title as a path writes it: lower-case letters and digits, a
// hyphen for each run of anything else.
func slug(title string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			hyphen = false
		case r == '\'':
			// "Go's" is "gos", as blogs write it.
		default:
			hyphen = true
		}
	}
	return b.String()
}
