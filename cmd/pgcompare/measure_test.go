package main

import (
	"context"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
)

func TestScheduleRunsEachUnitOnBothSidesEachRound(t *testing.T) {
	const units, rounds = 12, 5
	firsts := map[int]bool{}
	for round := range rounds {
		steps := schedule(units, rounds, round)
		if len(steps) != 2*units {
			t.Fatalf("round %d has %d steps, want %d", round, len(steps), 2*units)
		}
		seen := map[step]bool{}
		for i, st := range steps {
			if seen[st] {
				t.Fatalf("round %d runs %v twice", round, st)
			}
			seen[st] = true
			if i%2 == 1 && (steps[i-1].unit != st.unit || steps[i-1].side == st.side) {
				t.Fatalf("round %d: step %d, %v, does not follow %v on the other side", round, i, st, steps[i-1])
			}
		}
		if want := side(round % 2); steps[0].side != want {
			t.Errorf("round %d starts on side %d, want %d", round, steps[0].side, want)
		}
		firsts[steps[0].unit] = true
	}
	if len(firsts) != rounds {
		t.Errorf("the rounds start on %d units, want %d different", len(firsts), rounds)
	}
}

func TestMedianAndRatios(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	xs := []float64{4, 1, 3}
	median(xs)
	if xs[0] != 4 {
		t.Error("median sorted its argument")
	}
	got := ratios([]float64{2, 9, 3, 7}, []float64{1, 3, 0})
	if len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("ratios = %v, want [2 3]: a round with Postgres at 0 and one the library lacks are left out", got)
	}
}

func TestParallelCallsEachOnceAndStopsAtAnError(t *testing.T) {
	var calls [1000]atomic.Int32
	err := parallel(context.Background(), len(calls), 7, func(_ context.Context, w, i int) error {
		if w < 0 || w >= 7 {
			t.Errorf("worker %d", w)
		}
		calls[i].Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Fatalf("call %d made %d times", i, n)
		}
	}
	boom := errors.New("boom")
	var made atomic.Int32
	err = parallel(context.Background(), 100000, 4, func(_ context.Context, _, i int) error {
		made.Add(1)
		if i == 10 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || made.Load() > 1000 {
		t.Errorf("parallel = %v after %d calls, want boom soon", err, made.Load())
	}
}

func TestTrafficCountsRoundTrips(t *testing.T) {
	server, client := net.Pipe()
	go func() {
		// Answer each request, of however many writes, with one reply.
		buf := make([]byte, 64)
		for {
			n, err := server.Read(buf)
			if err != nil {
				return
			}
			if buf[n-1] == '\n' {
				server.Write([]byte("ok\n"))
			}
		}
	}()
	defer server.Close()
	var tr traffic
	c := &tripConn{Conn: client, t: &tr}
	c.read.Store(true)
	request := func(parts ...string) {
		for _, p := range parts {
			if _, err := c.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := io.ReadFull(c, make([]byte, 3)); err != nil {
			t.Fatal(err)
		}
	}
	request("GET a\n")
	request("MULTI ", "GET b ", "EXEC\n") // a pipeline written in parts
	request("PING\n")
	if got := tr.trips.Load(); got != 3 {
		t.Errorf("%d round trips counted, want 3", got)
	}
}
