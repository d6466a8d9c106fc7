package schema

// This file holds when two links are the same, for the index of links
// (WithUniqueLinks): linkKey, which the scripts' library's linkKey mirrors.

import "strings"

// LinkKey is a link's field in the index of links: the link without its
// fragment (from the first '#'), and with the ASCII letters of its scheme
// and of its host (the authority after any user info) in lower case, so
// that links that differ only there are the same link. Its path, query and
// user info are kept as they are: servers may tell their case apart.
func LinkKey(link string) string {
	link, _, _ = strings.Cut(link, "#")
	scheme, rest, ok := strings.Cut(link, "://")
	if !ok || !schemeOK(scheme) {
		return link
	}
	authority, tail := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, tail = rest[:i], rest[i:]
	}
	at := strings.LastIndexByte(authority, '@') + 1
	return asciiLower(scheme) + "://" + authority[:at] + asciiLower(authority[at:]) + tail
}

// schemeOK reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '.' and '-'.
func schemeOK(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-')) {
			return false
		}
	}
	return s != ""
}

// asciiLower is s with its ASCII letters in lower case, and every other
// byte as it is, as Lua's string.lower gives it in Redis.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
