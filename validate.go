package voting

// This file holds the input rules in one place, so that the docs, the
// checks and the tests agree on them. Every check runs before any round trip:
// bad input writes nothing.

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/articlevote/voting/internal/errs"
)

// Limits on input.
const (
	// MaxUserLen is the longest user or poster id, in characters.
	MaxUserLen = 100
	// MaxTitleLen is the longest title, in characters.
	MaxTitleLen = 300
	// MaxLinkLen is the longest link, in bytes.
	MaxLinkLen = 2048
	// MaxGroupLen is the longest group name, in characters.
	MaxGroupLen = 64
	// MaxGroups is the most groups an article may be in. Sites give a post
	// one community (Reddit, Lemmy) or a few tags (Stack Overflow and
	// Medium five, dev.to four); every vote on an article writes to each of
	// its groups' live indexes, so the cap bounds what a poster can make
	// every vote on their article cost (docs/operations.md, Bounds).
	MaxGroups = 10
	// maxID is the largest int64, the largest id INCR gives.
	maxID = "9223372036854775807"
)

// checkText checks a user id, poster or title: valid UTF-8, 1..max
// characters, no control characters, no space at either end.
func checkText(what, s string, max int) error {
	switch {
	case s == "":
		return errs.Invalidf("%s is empty", what)
	case strings.TrimSpace(s) == "":
		return errs.Invalidf("%s is blank: it has only spaces", what)
	case !utf8.ValidString(s):
		return errs.Invalidf("%s is not valid UTF-8", what)
	case utf8.RuneCountInString(s) > max:
		return errs.Invalidf("%s is longer than %d characters", what, max)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return errs.Invalidf("%s %q holds a control character", what, s)
	case strings.TrimSpace(s) != s:
		return errs.Invalidf("%s %q starts or ends with a space", what, s)
	}
	return nil
}

func checkUser(user string) error { return checkText("user", user, MaxUserLen) }

func checkTitle(title string) error { return checkText("title", title, MaxTitleLen) }

// checkLink accepts an absolute http or https URL with a host.
func checkLink(link string) error {
	if len(link) > MaxLinkLen {
		return errs.Invalidf("link is longer than %d bytes", MaxLinkLen)
	}
	if !utf8.ValidString(link) || strings.IndexFunc(link, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r)
	}) >= 0 {
		return errs.Invalidf("link %q holds a space, a control character or invalid UTF-8", link)
	}
	u, err := url.Parse(link)
	// The scheme is followed at once by "//" and a host: "http:#://h" has its
	// "://" in the fragment, and no host.
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.Host == "" ||
		!strings.HasPrefix(link[len(u.Scheme):], "://") || !hostOK(link) {
		return errs.Invalidf("link %q is not an absolute http or https URL with a host", link)
	}
	return nil
}

// hostOK checks the host of an http or https link as written, before
// net/url decodes it (and takes, by some GODEBUG settings, a host of
// several colons or none but a port): a name of letters, digits,
// "._~!$&'()*+,;=-", non-ASCII characters or %-escapes of non-ASCII bytes;
// or an IPv6 address in brackets, with an optional %25 zone; then an
// optional ':' and port digits.
func hostOK(link string) bool {
	_, rest, _ := strings.Cut(link, "://")
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	host := authority[strings.LastIndexByte(authority, '@')+1:]
	port := ""
	if strings.HasPrefix(host, "[") {
		end := strings.IndexByte(host, ']')
		if end < 0 {
			return false
		}
		addr, zone, hasZone := strings.Cut(host[1:end], "%25")
		ip, err := netip.ParseAddr(addr)
		if err != nil || ip.Is4() || hasZone && !zoneOK(zone) {
			return false
		}
		host, port = "", host[end+1:]
	} else if i := strings.IndexByte(host, ':'); i >= 0 {
		host, port = host[:i], host[i:]
		if host == "" {
			return false
		}
	} else if host == "" {
		return false
	}
	if port != "" && (port[0] != ':' || strings.Trim(port[1:], "0123456789") != "") {
		return false
	}
	return hostChars(host, "._~!$&'()*+,;=-", "89ABCDEFabcdef", true)
}

// zoneOK checks an IPv6 zone: unreserved characters and %-escapes.
func zoneOK(zone string) bool {
	return zone != "" && hostChars(zone, "._~-", "0123456789ABCDEFabcdef", false)
}

// hostChars reports whether s holds only ASCII letters and digits, bytes of
// extra, %-escapes whose first digit is in escapes, and, if nonASCII,
// bytes past ASCII.
func hostChars(s, extra, escapes string, nonASCII bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80 && nonASCII, 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte(extra, c) >= 0:
		case c == '%' && i+2 < len(s) && strings.IndexByte(escapes, s[i+1]) >= 0 &&
			strings.IndexByte("0123456789ABCDEFabcdef", s[i+2]) >= 0:
			i += 2
		default:
			return false
		}
	}
	return true
}

// checkID accepts the ids INCR gives: decimal, positive, no leading zero,
// no sign, no spaces, no "article:" in front, at most the largest int64.
func checkID(id string) error {
	if id == "" {
		return errs.Invalidf("article id is empty")
	}
	if !idOK(id) {
		return errs.Invalidf("article id %q is not a positive decimal integer of at most %s", id, maxID)
	}
	return nil
}

// checkCommentID is checkID for a comment's id.
func checkCommentID(id string) error {
	switch {
	case id == "":
		return errs.Invalidf("comment id is empty")
	case !idOK(id):
		return errs.Invalidf("comment id %q is not a positive decimal integer of at most %s", id, maxID)
	}
	return nil
}

// checkIDBytes is checkID for an id read from an index member.
func checkIDBytes(id []byte) error {
	if !idOK(id) {
		return fmt.Errorf("article id %q is not a positive decimal integer of at most %s", id, maxID)
	}
	return nil
}

func idOK[T string | []byte](id T) bool {
	if len(id) == 0 || len(id) > len(maxID) || id[0] == '0' || len(id) == len(maxID) && string(id) > maxID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return false
		}
	}
	return true
}

// checkGroup accepts 1..MaxGroupLen letters, digits, '-', '_' and '.'. That
// keeps braces out of keys (a prefix's hash tag stays the first), and keeps
// ':', '*' and spaces out so group keys read and scan plainly.
func checkGroup(name string) error {
	if name == "" {
		return errs.Invalidf("group name is empty")
	}
	if !utf8.ValidString(name) {
		return errs.Invalidf("group name is not valid UTF-8")
	}
	if utf8.RuneCountInString(name) > MaxGroupLen {
		return errs.Invalidf("group name is longer than %d characters", MaxGroupLen)
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.' {
			return errs.Invalidf("group name %q holds %q: only letters, digits, '-', '_' and '.' are allowed", name, r)
		}
	}
	return nil
}

// distinctGroups checks the group names of a post or a group change: at
// most MaxGroups distinct names. It gives each name once, in the order
// first given.
func distinctGroups(groups []string) ([]string, error) {
	distinct := make([]string, 0, len(groups))
	for _, g := range groups {
		if err := checkGroup(g); err != nil {
			return nil, err
		}
		if !slices.Contains(distinct, g) {
			if len(distinct) == MaxGroups {
				return nil, errs.Invalidf("more than MaxGroups (%d) groups given", MaxGroups)
			}
			distinct = append(distinct, g)
		}
	}
	return distinct, nil
}

// decimalDigits reports whether s is one or more decimal digits.
func decimalDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// globEscape escapes the characters SCAN's MATCH gives a meaning to.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
