package voting_test

// Tests on a real Redis Cluster, given by VOTING_REDIS_CLUSTER (scripts/test
// starts a three-node one): namespaces spread over nodes, prefixes without a
// hash tag refused, and a namespace's slot moved while votes run.

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/articlevote/voting"
	"github.com/gomodule/redigo/redis"
	"github.com/mna/redisc"
)

// clusterNodes returns the cluster's node addresses, or skips the test.
func clusterNodes(t *testing.T) []string {
	t.Helper()
	nodes := os.Getenv(redisClusterEnv)
	if nodes == "" {
		t.Skip("set " + redisClusterEnv + " to a Redis Cluster's nodes (scripts/test starts one) to run this test")
	}
	return strings.Split(nodes, ",")
}

// nodeOf returns the address of the node that serves key's slot.
func nodeOf(t *testing.T, cluster *redisc.Cluster, key string) string {
	t.Helper()
	owners := map[string]bool{}
	err := cluster.EachNode(false, func(addr string, c redis.Conn) error {
		slots, err := redis.Values(c.Do("CLUSTER", "SLOTS"))
		if err != nil {
			return err
		}
		slot := redisc.Slot(key)
		for _, s := range slots {
			r, _ := redis.Values(s, nil)
			lo, _ := redis.Int(r[0], nil)
			hi, _ := redis.Int(r[1], nil)
			if slot >= lo && slot <= hi {
				node, _ := redis.Values(r[2], nil)
				host, _ := redis.String(node[0], nil)
				port, _ := redis.Int(node[1], nil)
				owners[fmt.Sprintf("%s:%d", host, port)] = true
			}
		}
		return nil
	})
	if err != nil || len(owners) != 1 {
		t.Fatalf("owner of %s: %v, %v", key, owners, err)
	}
	for addr := range owners {
		return addr
	}
	return ""
}

func TestClusterRefusesPrefixWithoutHashTag(t *testing.T) {
	cluster := newCluster(t, clusterNodes(t))
	defer cluster.Close()
	for _, prefix := range []string{"", "news:", "{}news:", "{}:", "{}{news}:", "{news:", "news}:", "}{news:"} {
		if _, err := voting.New(cluster, noBuilder, voting.WithPrefix(prefix)); !errors.Is(err, voting.ErrInvalid) {
			t.Errorf("New on a cluster with prefix %q = %v, want ErrInvalid", prefix, err)
		}
	}
	for _, prefix := range []string{"{news}:", "site:{news}:", "{a}"} {
		if _, err := voting.New(cluster, noBuilder, voting.WithPrefix(prefix)); err != nil {
			t.Errorf("New on a cluster with prefix %q: %v", prefix, err)
		}
	}
}

// bindConn is a connection with a cluster client's Bind, which records the
// keys it is bound by.
type bindConn struct {
	redis.Conn
	bound *[]string
}

func (c bindConn) Bind(keys ...string) error {
	*c.bound = append(*c.bound, keys...)
	return nil
}

// TestPrefixWithAnEmptyHashTagIsNoTag: Redis Cluster takes "{}" for no hash
// tag (the slot is then the whole key's), so a prefix whose first braces
// are empty, "{}:" or "{}{news}:", would spread a namespace's keys over the
// cluster: New through a cluster client's connections refuses it, as it
// refuses a prefix with no braces, and takes "{news}:". Through a
// connection of one server, as a cluster client's would look.
func TestPrefixWithAnEmptyHashTagIsNoTag(t *testing.T) {
	e := newEnv(t)
	var bound []string
	p := wrapPool{e.redis(), func(c redis.Conn) redis.Conn { return bindConn{c, &bound} }}
	for _, prefix := range []string{"{}:", "{}{news}:", "x{}y{news}:", "news:", "}{news:"} {
		if _, err := voting.New(p, noBuilder, voting.WithPrefix(prefix)); !errors.Is(err, voting.ErrInvalid) || !strings.Contains(err.Error(), "hash tag") {
			t.Errorf("New through a cluster client with prefix %q = %v, want ErrInvalid for its hash tag", prefix, err)
		}
	}
	s, err := voting.New(p, noBuilder, voting.WithPrefix("{news}:"))
	if err != nil {
		t.Fatalf("New through a cluster client with prefix {news}: %v", err)
	}
	if _, err := s.Count(ctx, voting.Query{Order: voting.ByScore}); err != nil {
		t.Fatal(err)
	}
	if len(bound) == 0 || bound[len(bound)-1] != "{news}:article:" {
		t.Errorf("the call bound its connection by %q, want the counter's key", bound)
	}
}

func TestClusterNamespacesSpreadOverNodes(t *testing.T) {
	cluster := newCluster(t, clusterNodes(t))
	defer cluster.Close()
	run := randomHex(4)
	nodes := map[string][]string{}
	for i := 0; i < 12; i++ {
		prefix := fmt.Sprintf("{site-%s-%d}:", run, i)
		s, err := voting.New(cluster, noBuilder, voting.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		id, err := s.PostArticle(ctx, "alice", "hello "+prefix, "https://example.com/", "news")
		if err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		if err := s.Vote(ctx, "bob", id, voting.Up); err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		for _, list := range []func() ([]voting.Article, error){
			func() ([]voting.Article, error) { return s.GetArticles(ctx, 1, voting.ByScore) },
			func() ([]voting.Article, error) { return s.GetGroupArticles(ctx, "news", 1, voting.ByTime) },
		} {
			articles, err := list()
			if err != nil || len(articles) != 1 || articles[0].Upvotes != 2 {
				t.Fatalf("%s: listing = %+v, %v", prefix, articles, err)
			}
		}
		addr := nodeOf(t, cluster, prefix+"article:")
		nodes[addr] = append(nodes[addr], prefix)
		c := cluster.Get()
		redisc.BindConn(c, prefix+"article:")
		keys, err := redis.Strings(c.Do("KEYS", prefix+"*"))
		if err == nil && len(keys) > 0 {
			args := make([]any, len(keys))
			for i, k := range keys {
				args[i] = k
			}
			_, err = c.Do("DEL", args...)
		}
		c.Close()
		// article:, article:1, score:, time:, voted:1, group:news, groups:1,
		// groupsizes:, the poster's posts:<user>, the namespace's settings:
		// and indexed:, and the group's live indexes live:score:news and
		// live:time:news.
		if err != nil || len(keys) != 13 {
			t.Errorf("%s: %d keys on its node %s (%v), want all 13", prefix, len(keys), addr, err)
		}
	}
	t.Logf("namespaces by node: %v", nodes)
	if len(nodes) < 2 {
		t.Errorf("12 namespaces all landed on one node: %v", nodes)
	}
}

// nodeID returns the cluster node id of the node at addr.
func nodeID(t *testing.T, addr string) string {
	t.Helper()
	c, err := redis.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id, err := redis.String(c.Do("CLUSTER", "MYID"))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// moveSlot moves slot from the node at from to the node at to, key by key,
// as redis-cli --cluster reshard does.
func moveSlot(t *testing.T, nodes []string, slot int, from, to string) {
	t.Helper()
	fromID, toID := nodeID(t, from), nodeID(t, to)
	dial := func(addr string) redis.Conn {
		c, err := redis.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	src, dst := dial(from), dial(to)
	defer src.Close()
	defer dst.Close()
	must := func(c redis.Conn, args ...any) any {
		t.Helper()
		reply, err := c.Do(args[0].(string), args[1:]...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return reply
	}
	must(dst, "CLUSTER", "SETSLOT", slot, "IMPORTING", fromID)
	must(src, "CLUSTER", "SETSLOT", slot, "MIGRATING", toID)
	host, port, _ := strings.Cut(to, ":")
	for {
		keys, err := redis.Strings(src.Do("CLUSTER", "GETKEYSINSLOT", slot, 10))
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		must(src, args...)
		time.Sleep(2 * time.Millisecond) // let the voters hit the slot mid-move
	}
	for _, addr := range nodes {
		c := dial(addr)
		must(c, "CLUSTER", "SETSLOT", slot, "NODE", toID)
		c.Close()
	}
}

func TestClusterSlotMovesWhileVotesRun(t *testing.T) {
	nodes := clusterNodes(t)
	e := newEnvCluster(t, nodes, "")
	cluster := e.pool.(*redisc.Cluster)
	slot := redisc.Slot(e.key("article:"))
	from := nodeOf(t, cluster, e.key("article:"))
	var to string
	for _, n := range nodes {
		if n != from {
			to = n
			break
		}
	}
	var ids []string
	for i := 0; i < 20; i++ {
		ids = append(ids, e.post("alice", fmt.Sprintf("moving %d", i), "news"))
	}

	var calls atomic.Int64
	v := startVoters(e, ids, true, func() error {
		if calls.Add(1)%5 != 0 {
			return nil
		}
		_, err := e.store.GetGroupArticles(ctx, "news", 1, voting.ByScore)
		return err
	})
	time.Sleep(100 * time.Millisecond)
	moveSlot(t, nodes, slot, from, to)
	time.Sleep(100 * time.Millisecond)
	acked := v.halt()

	if err := cluster.Refresh(); err != nil {
		t.Fatal(err)
	}
	if now := nodeOf(t, cluster, e.key("article:")); now != to {
		t.Fatalf("the slot is on %s, want %s", now, to)
	}
	failed := v.failed.Load()
	t.Logf("slot %d moved from %s to %s under %d acknowledged votes, %d failed calls", slot, from, to, len(acked), failed)
	if failed > 0 {
		t.Errorf("%d calls failed while the slot moved", failed)
	}
	if lost := e.lostVotes(acked); lost > 0 {
		t.Errorf("%d of %d acknowledged votes are missing after the move", lost, len(acked))
	}
	e.checkInvariants(voting.DefaultVoteWeight, voting.DefaultCutoff)
}
