package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
)

// A way is one way of running an operation: given a client's number, it
// readies that client (a session, say) and gives what one request does.
type way func(ctx context.Context, client int) (do func(i int) error, err error)

// An operation is measured both ways: over HTTP and through the library.
type operation struct {
	name         string
	http, direct way
}

// operations are the front page, the API's listing and a vote, each over
// HTTP and as the library calls newsd's handler makes for it.
func operations(base string, store *voting.Store, ids []string) []operation {
	get := func(path string) way {
		return httpWay(base, "reader", func(c *http.Client, i int) (*http.Request, error) {
			return http.NewRequest("GET", base+path, nil)
		})
	}
	// The calls newsd makes for a listing's page: the count, the page and
	// the cursor after it.
	listing := func(ctx context.Context) ([]voting.Article, error) {
		if _, err := store.Count(ctx, voting.Query{Order: voting.ByHot}); err != nil {
			return nil, err
		}
		page, err := store.GetArticles(ctx, 1, voting.ByHot)
		if err == nil && len(page) > 0 {
			_, err = store.Cursor(ctx, page[len(page)-1].ID, voting.Query{Order: voting.ByHot})
		}
		return page, err
	}
	return []operation{
		{
			name: "front page (HTML, hot, logged in)",
			http: get("/"),
			direct: func(ctx context.Context, client int) (func(int) error, error) {
				user := fmt.Sprintf("reader-%d", client)
				return func(int) error {
					page, err := listing(ctx)
					if err != nil {
						return err
					}
					ids := make([]string, len(page))
					for i, a := range page {
						ids[i] = a.ID
					}
					if _, err := store.UserVotes(ctx, user, ids...); err != nil {
						return err
					}
					_, _, err = store.Groups(ctx, voting.Paging{Page: 1})
					return err
				}, nil
			},
		},
		{
			name: "listing (JSON, hot)",
			http: get("/api/articles?order=hot"),
			direct: func(ctx context.Context, client int) (func(int) error, error) {
				return func(int) error { _, err := listing(ctx); return err }, nil
			},
		},
		{
			name: "vote (JSON)",
			http: httpWay(base, "http-voter", func(c *http.Client, i int) (*http.Request, error) {
				id, dir := target(ids, i)
				req, err := http.NewRequest("POST", base+"/api/articles/"+id+"/vote",
					strings.NewReader(`{"direction":"`+dir.String()+`"}`))
				if req != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				return req, err
			}),
			direct: func(ctx context.Context, client int) (func(int) error, error) {
				user := fmt.Sprintf("direct-voter-%d", client)
				return func(i int) error {
					id, dir := target(ids, i)
					if err := store.Vote(ctx, user, id, dir); err != nil {
						return err
					}
					_, err := store.Article(ctx, id)
					return err
				}, nil
			},
		},
	}
}

// target is a client's i-th vote: each article of ids in turn, up the
// first time round, taken back the next, so that no vote is one the user
// has already.
func target(ids []string, i int) (string, voting.Direction) {
	if i/len(ids)%2 == 0 {
		return ids[i%len(ids)], voting.Up
	}
	return ids[i%len(ids)], voting.None
}

// httpWay sends request's requests as a user of its own per client, named
// after role, logged in through the API; a client's count of requests goes
// on from round to round, so that its votes keep alternating.
func httpWay(base, role string, request func(c *http.Client, i int) (*http.Request, error)) way {
	var mu sync.Mutex
	clients := map[int]*http.Client{}
	return func(ctx context.Context, client int) (func(int) error, error) {
		mu.Lock()
		c := clients[client]
		mu.Unlock()
		if c == nil {
			jar, _ := cookiejar.New(nil)
			c = &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			res, err := c.Post(base+"/api/login", "application/json",
				strings.NewReader(fmt.Sprintf(`{"user":"%s-%d"}`, role, client)))
			if err != nil {
				return nil, err
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("login: %s", res.Status)
			}
			mu.Lock()
			clients[client] = c
			mu.Unlock()
		}
		return func(i int) error {
			req, err := request(c, i)
			if err != nil {
				return err
			}
			res, err := c.Do(req.WithContext(ctx))
			if err != nil {
				return err
			}
			defer res.Body.Close()
			body, err := io.ReadAll(res.Body)
			if err == nil && res.StatusCode >= 300 {
				err = fmt.Errorf("%s %s: %s %s", req.Method, req.URL.Path, res.Status, body)
			}
			return err
		}, nil
	}
}

// A result is what runs of a way measured: requests, the time they took,
// each one's latency, and the Redis commands they caused.
type result struct {
	requests  int
	elapsed   time.Duration
	latencies []time.Duration
	commands  int64
}

func (r *result) add(o result) {
	r.requests += o.requests
	r.elapsed += o.elapsed
	r.latencies = append(r.latencies, o.latencies...)
	r.commands += o.commands
}

// perSecond is the requests per second.
func (r result) perSecond() float64 { return float64(r.requests) / r.elapsed.Seconds() }

// percentile is the latency below which p of the requests fell.
func (r result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	sorted := slices.Clone(r.latencies)
	slices.Sort(sorted)
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// commandsPerRequest is the Redis commands per request.
func (r result) commandsPerRequest() float64 { return float64(r.commands) / float64(r.requests) }

// measure runs clients clients of w for d, and counts the Redis commands
// they caused from INFO commandstats before and after.
func measure(ctx context.Context, pool *redis.Pool, clients int, d time.Duration, w way) (result, error) {
	dos := make([]func(int) error, clients)
	counts := make([]int, clients)
	for c := range clients {
		var err error
		if dos[c], err = w(ctx, c); err != nil {
			return result{}, err
		}
	}
	before, err := commandCalls(pool)
	if err != nil {
		return result{}, err
	}
	var mu sync.Mutex
	var r result
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				t := time.Now()
				if err := dos[c](counts[c] + i); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				lat = append(lat, time.Since(t))
			}
			mu.Lock()
			r.latencies = append(r.latencies, lat...)
			counts[c] += len(lat)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	r.requests = len(r.latencies)
	if firstErr != nil {
		return r, firstErr
	}
	after, err := commandCalls(pool)
	r.commands = after - before - 1 // the first INFO itself
	return r, err
}

// commandCalls is the number of commands Redis has run, from INFO
// commandstats.
func commandCalls(pool *redis.Pool) (int64, error) {
	c := pool.Get()
	defer c.Close()
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		return 0, err
	}
	var total int64
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, ":calls=")
		if !ok {
			continue
		}
		var n int64
		fmt.Sscanf(rest, "%d", &n)
		total += n
	}
	return total, nil
}

// writeTable writes the results, each operation's over HTTP and directly,
// as a Markdown table.
func writeTable(w io.Writer, ops []operation, results []result) {
	fmt.Fprintln(w, "| operation | way | requests/s | p50 | p99 | Redis commands per request | time per request, HTTP / direct |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: |")
	for i, op := range ops {
		h, d := results[2*i], results[2*i+1]
		for j, r := range []result{h, d} {
			ratio := ""
			if j == 0 {
				ratio = fmt.Sprintf("**%.2fx**", d.perSecond()/h.perSecond())
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %.2f | %s |\n", op.name, []string{"HTTP", "direct"}[j],
				r.perSecond(), ms(r.percentile(0.50)), ms(r.percentile(0.99)), r.commandsPerRequest(), ratio)
		}
	}
}

// ms writes a latency in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
