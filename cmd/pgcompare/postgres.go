package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgSchema is where pgcompare's tables are, on any server.
const pgSchema = "pgcompare"

// schemaSQL makes Lemmy's tables for posts and their votes, without the
// indexes, which a bulk load builds after the rows are in (indexSQL).
// reddit_hot is the library's ByHot, in SQL: Postgres's log is log10.
const schemaSQL = `
CREATE FUNCTION reddit_hot(score integer, published timestamptz) RETURNS double precision
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT sign(score::float8) * log(greatest(abs(score), 1)::float8)
		+ (extract(epoch FROM published)::float8 - 1134028003) / 45000
$$;
CREATE TABLE post (
	id bigserial PRIMARY KEY,
	title text NOT NULL,
	link text NOT NULL,
	poster text NOT NULL,
	published timestamptz NOT NULL DEFAULT now(),
	score integer NOT NULL DEFAULT 1,
	upvotes integer NOT NULL DEFAULT 1,
	downvotes integer NOT NULL DEFAULT 0,
	hot_rank double precision NOT NULL
);
CREATE TABLE post_like (
	post_id bigint NOT NULL,
	person text NOT NULL,
	score smallint NOT NULL CHECK (score IN (-1, 1))
);`

// indexSQL builds the keys and the listings' indexes once the rows are in.
const indexSQL = `
ALTER TABLE post_like ADD PRIMARY KEY (post_id, person);
ALTER TABLE post_like ADD FOREIGN KEY (post_id) REFERENCES post (id) ON DELETE CASCADE;
CREATE INDEX post_hot ON post (hot_rank DESC, published DESC);
CREATE INDEX post_top ON post (score DESC, published DESC);
CREATE INDEX post_new ON post (published DESC);
SELECT setval(pg_get_serial_sequence('post', 'id'), (SELECT max(id) FROM post));`

// voteSQL casts person's vote $3 (1 up, -1 down) on post $1 in one
// statement, so one round trip and one transaction: it upserts the like,
// and moves the post's counts, score and hot rank by the difference from
// the like before (all CTEs see the same snapshot, so prior is the like
// before the upsert). A vote the person has cast already changes nothing,
// and updates no row.
const voteSQL = `
WITH prior AS (
	SELECT score FROM post_like WHERE post_id = $1 AND person = $2
), cast_vote AS (
	INSERT INTO post_like AS l (post_id, person, score) VALUES ($1, $2, $3)
	ON CONFLICT (post_id, person) DO UPDATE SET score = excluded.score
	WHERE l.score <> excluded.score
	RETURNING score
), delta AS (
	SELECT (c.score = 1)::int - coalesce((SELECT (score = 1)::int FROM prior), 0) AS up,
		(c.score = -1)::int - coalesce((SELECT (score = -1)::int FROM prior), 0) AS down
	FROM cast_vote c
)
UPDATE post p SET upvotes = p.upvotes + d.up, downvotes = p.downvotes + d.down,
	score = p.score + d.up - d.down,
	hot_rank = reddit_hot(p.score + d.up - d.down, p.published)
FROM delta d
WHERE p.id = $1`

// The listings' orders, each served by an index of indexSQL: like the
// library's ByVotes, ByTime and ByHot.
const (
	orderTop = "score DESC, published DESC"
	orderNew = "published DESC"
	orderHot = "hot_rank DESC, published DESC"
)

// pageSQL reads a page of posts in order, full rows: $1 posts after
// skipping $2.
func pageSQL(order string) string {
	return "SELECT id, title, link, poster, published, score, upvotes, downvotes, hot_rank FROM post ORDER BY " +
		order + " LIMIT $1 OFFSET $2"
}

// rankSQL is post $1's place in top: one more than the posts ahead of it,
// counted on post_top's index.
const rankSQL = `
SELECT count(*) + 1 FROM post p, post a
WHERE a.id = $1 AND (p.score, p.published) > (a.score, a.published)`

// A pgPost is a row of post, as a page reads it.
type pgPost struct {
	ID                        int64
	Title, Link, Poster       string
	Published                 time.Time
	Score, Upvotes, Downvotes int32
	HotRank                   float64
}

// postgres is the Postgres side: a pool, and what the load left.
type postgres struct {
	pool           *pgxpool.Pool
	dsn            string
	version, where string
	given          bool // a server pgcompare did not start, whose schema it drops at exit
	// sizePost and sizeLike are pg_total_relation_size of post and
	// post_like after the load: tables, indexes and TOAST.
	sizePost, sizeLike int64
}

// connectPostgres opens a pool of at most conns connections whose
// sessions work in pgSchema, with synchronous_commit off (a commit does
// not wait for its WAL to reach disk), dialling through dial if not nil.
func connectPostgres(ctx context.Context, dsn string, conns int, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(conns)
	cfg.ConnConfig.RuntimeParams["search_path"] = pgSchema
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
	if dial != nil {
		cfg.ConnConfig.DialFunc = dial
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}

// openPostgres connects to dsn and makes the schema, which must not exist
// (or is dropped first, with reset).
func openPostgres(ctx context.Context, dsn string, conns int, given, reset bool) (*postgres, error) {
	pool, err := connectPostgres(ctx, dsn, conns, nil)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	p := &postgres{pool: pool, dsn: dsn, given: given}
	cfg := pool.Config().ConnConfig
	p.where = fmt.Sprintf("%s:%d", cfg.Host, cfg.Port)
	err = pool.QueryRow(ctx, "SHOW server_version").Scan(&p.version)
	var exists bool
	if err == nil {
		err = pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", pgSchema).Scan(&exists)
	}
	if err == nil && exists {
		if reset {
			_, err = pool.Exec(ctx, "DROP SCHEMA "+pgSchema+" CASCADE")
		} else {
			err = fmt.Errorf("schema %s exists, from an earlier run: give -reset to drop it", pgSchema)
		}
	}
	if err == nil {
		_, err = pool.Exec(ctx, "CREATE SCHEMA "+pgSchema+";"+schemaSQL)
	}
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres at %s: %w", p.where, err)
	}
	return p, nil
}

// close drops the schema on a server pgcompare did not start, and closes
// the pool.
func (p *postgres) close() error {
	var err error
	if p.given {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, err = p.pool.Exec(ctx, "DROP SCHEMA "+pgSchema+" CASCADE")
	}
	p.pool.Close()
	return err
}

// load copies d's posts, under the library's ids, and their likes (the
// poster's own and the votes) into the tables, then builds the indexes,
// vacuums and analyzes, and notes the tables' sizes.
func (p *postgres) load(ctx context.Context, d *dataset, ids []int64) error {
	i := 0
	_, err := p.pool.CopyFrom(ctx, pgx.Identifier{"post"},
		[]string{"id", "title", "link", "poster", "published", "score", "upvotes", "downvotes", "hot_rank"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i == d.posts {
				return nil, nil
			}
			points := int64(d.up[i] - d.down[i])
			published := d.published(i)
			row := []any{ids[i], title(i), link(i), poster(i), published, points, d.up[i], d.down[i], hot(points, published)}
			i++
			return row, nil
		}))
	if err != nil {
		return fmt.Errorf("copy post: %w", err)
	}
	i = 0
	_, err = p.pool.CopyFrom(ctx, pgx.Identifier{"post_like"}, []string{"post_id", "person", "score"},
		pgx.CopyFromFunc(func() ([]any, error) {
			switch {
			case i < d.posts:
				i++
				return []any{ids[i-1], poster(i - 1), int16(1)}, nil
			case i < d.posts+len(d.votes):
				v := d.votes[i-d.posts]
				i++
				score := int16(-1)
				if v.up {
					score = 1
				}
				return []any{ids[v.post], voter(v.voter), score}, nil
			}
			return nil, nil
		}))
	if err != nil {
		return fmt.Errorf("copy post_like: %w", err)
	}
	if _, err := p.pool.Exec(ctx, indexSQL); err != nil {
		return err
	}
	if _, err := p.pool.Exec(ctx, "VACUUM ANALYZE post, post_like"); err != nil {
		return err
	}
	return p.pool.QueryRow(ctx, "SELECT pg_total_relation_size('post'), pg_total_relation_size('post_like')").
		Scan(&p.sizePost, &p.sizeLike)
}

// page reads a page of posts in order.
func page(ctx context.Context, pool *pgxpool.Pool, sql string, n int) ([]pgPost, error) {
	rows, err := pool.Query(ctx, sql, pageSize, (n-1)*pageSize)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	posts := make([]pgPost, 0, pageSize)
	for rows.Next() {
		var p pgPost
		if err := rows.Scan(&p.ID, &p.Title, &p.Link, &p.Poster, &p.Published, &p.Score, &p.Upvotes, &p.Downvotes, &p.HotRank); err != nil {
			return nil, err
		}
		posts = append(posts, p)
	}
	return posts, rows.Err()
}

// postgresOps are the measured operations through pool.
func postgresOps(pool *pgxpool.Pool, t *targets) [numOps]doFunc {
	pageOf := func(order string, n int) doFunc {
		sql := pageSQL(order)
		return func(ctx context.Context, _, _ int) error {
			posts, err := page(ctx, pool, sql, n)
			if err == nil && len(posts) == 0 {
				err = fmt.Errorf("page %d of %s is empty", n, order)
			}
			return err
		}
	}
	// The mixed operations' voters are their own (mixedVoter), so that
	// each of their votes changes the voter's vote too.
	voteOf := func(suffix string) doFunc {
		return func(ctx context.Context, client, i int) error {
			user := t.users[client] + suffix
			k, up := voteAt(len(t.votes), len(t.users), client, i)
			score := int16(-1)
			if up {
				score = 1
			}
			tag, err := pool.Exec(ctx, voteSQL, t.pgIDs[t.votes[k]], user, score)
			if err == nil && tag.RowsAffected() != 1 {
				err = fmt.Errorf("vote %d of %s on post %d changed nothing", i, user, t.pgIDs[t.votes[k]])
			}
			return err
		}
	}
	return [numOps]doFunc{
		opVote:      voteOf(""),
		opTop:       pageOf(orderTop, 1),
		opNew:       pageOf(orderNew, 1),
		opHot:       pageOf(orderHot, 1),
		opDeep:      pageOf(orderTop, t.deep),
		opTopCached: pageOf(orderTop, 1),
		opNewCached: pageOf(orderNew, 1),
		opHotCached: pageOf(orderHot, 1),
		opMixed100:  mixed(100, voteOf(mixedVoter(100)), pageOf(orderTop, 1)),
		opMixed10:   mixed(10, voteOf(mixedVoter(10)), pageOf(orderTop, 1)),
		opRank: func(ctx context.Context, client, i int) error {
			var rank int64
			return pool.QueryRow(ctx, rankSQL, t.pgIDs[t.ranks[rankAt(len(t.ranks), client, i)]]).Scan(&rank)
		},
	}
}
