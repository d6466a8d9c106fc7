// Package model holds the tests' models of what the scripts compute, in
// Go: what an index of each kind holds, and how an article that shares a
// link is written in linkshares:. The scripts' tests hold the Lua to them,
// and the voting package's invariant checker the stored state; nothing but
// tests imports it.
package model

import (
	"fmt"
	"math"
	"strings"

	"github.com/articlevote/voting/internal/schema"
)

// Value is what an index of each kind holds, computed in Go from the
// article's posting time, up-votes, down-votes and score. exact is false
// for a kind computed with a power, so that Lua's value may differ from
// Go's in its last bits.
func Value(kind schema.Kind, posted, ups, downs, score float64) (want float64, exact bool) {
	switch kind {
	case schema.KindScore:
		return score, true
	case schema.KindTime:
		return posted, true
	case schema.KindNet:
		return ups - downs, true
	case schema.KindControversy:
		if ups <= 0 || downs <= 0 {
			return 0, true
		}
		return math.Pow(ups+downs, math.Min(ups, downs)/math.Max(ups, downs)), false
	case schema.KindHot:
		s := ups - downs
		order := math.Log10(math.Max(math.Abs(s), 1))
		sign := 0.0
		if s > 0 {
			sign = 1
		} else if s < 0 {
			sign = -1
		}
		return sign*order + (posted-1134028003)/45000, false
	case schema.KindBest:
		n := ups + downs
		if n == 0 {
			return 0, true
		}
		const z = 1.281551565545
		p := ups / n
		return (p + z*z/(2*n) - z*math.Sqrt(p*(1-p)/n+z*z/(4*n*n))) / (1 + z*z/n), false
	}
	panic("no Go computation for the index kind " + string(kind))
}

// ValueMatches reports whether got, a value of an index of the kind, is
// the one Value gives: exactly, or for an inexact kind to within rounding,
// relative, or absolute near 0.
func ValueMatches(kind schema.Kind, got, posted, ups, downs, score float64) bool {
	want, exact := Value(kind, posted, ups, downs, score)
	// Near 0 (best with no up-votes: 0 in Lua, -4e-17 in Go) the rounding
	// is absolute.
	return got == want || !exact && math.Abs(got-want) <= 1e-9*math.Max(1, math.Max(math.Abs(got), math.Abs(want)))
}

// LinkShare is the member of linkshares: of the article id, posted at
// posted (Unix seconds), whose link key another article holds, as the
// scripts' shareOf writes it.
func LinkShare(key string, posted float64, id string) string {
	whole := math.Floor(posted)
	fraction := fmt.Sprintf("%.9f", posted-whole)
	if fraction[0] == '1' {
		fraction = "999999999" // a fraction that rounds up to a whole second
	} else {
		fraction = fraction[2:]
	}
	return key + "\x00" + fmt.Sprintf("%012d", int64(whole-schema.MinSeconds)) + fraction + strings.Repeat("0", 19-len(id)) + id
}
