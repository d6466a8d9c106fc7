package schema

// This file holds how an article's numbers are written to Redis and read
// back: posting times as Unix seconds, counters as decimal integers. The
// same rules are written again in Lua (the scripts' library), so that a listing, Article
// and Vote agree on which stored values are sound; a value outside them is
// reported with ErrCorrupt, not guessed at.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/articlevote/voting/internal/errs"
)

// MinSeconds and MaxSeconds bound posting times and clock readings: their
// Unix seconds lie from MinSeconds (0001-01-01T00:00:00Z) up to, not
// including, MaxSeconds (10000-01-01T00:00:00Z), the years 1 to 9999 that
// JSON's RFC 3339 times can carry. Within them a posting time, a cutoff and
// a voter set's time to live are finite and exact to the millisecond, in Go
// and in Lua: in milliseconds they stay below 2^53.
const (
	MinSeconds = -62135596800
	MaxSeconds = 253402300800
)

// MaxCountDigits bounds the digits of a stored counter, so that no
// HINCRBY on it can overflow.
const MaxCountDigits = 18

// FormatFloat writes f in the fewest digits that read back as f.
func FormatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// UnixSeconds writes t as Unix seconds, with a fraction to the microsecond
// when t has one, as the book stores time.time().
func UnixSeconds(t time.Time) string {
	us := t.UnixMicro()
	var buf [32]byte
	b := buf[:0]
	if us < 0 {
		b, us = append(b, '-'), -us
	}
	b = strconv.AppendInt(b, us/1e6, 10)
	if frac := us % 1e6; frac != 0 {
		b = append(b, '.')
		for unit := int64(1e5); frac != 0; unit /= 10 {
			b = append(b, byte('0'+frac/unit))
			frac %= unit
		}
	}
	return string(b)
}

// CheckClock refuses a clock reading outside the range of posting times,
// or one in the last microseconds before it ends, whose Unix seconds
// would read back as its end.
func CheckClock(t time.Time) error {
	sec := t.Unix()
	if sec < MinSeconds || sec >= MaxSeconds {
		return errs.Invalidf("the clock reads %v, outside the years 1 to 9999 a posting time can hold", t)
	}
	if sec == MaxSeconds-1 {
		if _, err := ParseUnixSeconds(UnixSeconds(t)); err != nil {
			return errs.Invalidf("the clock reads %v, too close to the year 10000 for a posting time: %v", t, err)
		}
	}
	return nil
}

// ParseUnixSeconds reads a posting time as the book and UnixSeconds write
// it: an optional '-', digits, and an optional '.' with more digits, from
// MinSeconds up to MaxSeconds. The Lua function seconds in the scripts' library
// is the same rule.
func ParseUnixSeconds(s string) (time.Time, error) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	point := false
	for i := 0; i < len(digits); i++ {
		switch c := digits[i]; {
		case c == '.' && !point && i > 0:
			point = true
		case c < '0' || c > '9':
			return time.Time{}, fmt.Errorf("%q is not Unix seconds", s)
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if len(digits) == 0 || err != nil {
		return time.Time{}, notSeconds(s)
	}
	return secondsTime(s, f)
}

// ParseScoreSeconds reads Unix seconds as Redis writes a sorted set's
// score, which may take an exponent.
func ParseScoreSeconds(s string) (time.Time, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}, notSeconds(s)
	}
	return secondsTime(s, f)
}

// secondsTime is the time f Unix seconds, read from s, to the microsecond.
func secondsTime(s string, f float64) (time.Time, error) {
	if !(f >= MinSeconds && f < MaxSeconds) {
		return time.Time{}, notSeconds(s)
	}
	sec := int64(f)
	if float64(sec) > f {
		sec--
	}
	us := int64((f-float64(sec))*1e6 + 0.5)
	return time.Unix(sec, us*1000).UTC(), nil
}

// notSeconds is the error of s, which is not a posting time.
func notSeconds(s string) error {
	return fmt.Errorf("%q is not Unix seconds of the years 1 to 9999 (from %d up to %d)", s, int64(MinSeconds), int64(MaxSeconds))
}

// ParseCount reads a counter field: "0" or a decimal integer of at most
// MaxCountDigits digits with no sign and no leading zero. A missing field
// (the book writes no downvotes) is zero. The Lua function count in the scripts' library
// is the same rule.
func ParseCount(v any) (int64, error) {
	if v == nil {
		return 0, nil
	}
	b, ok := v.([]byte)
	if !ok {
		return 0, fmt.Errorf("unexpected %T", v)
	}
	if len(b) == 0 || len(b) > MaxCountDigits || (b[0] == '0' && len(b) > 1) {
		return 0, fmt.Errorf("%q is not a count", b)
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a count", b)
		}
		n = 10*n + int64(c-'0')
	}
	return n, nil
}
