package main

// This file holds what every request goes through around its route: an id
// of its own, the headers every answer carries, the check of the host it
// names, its session, and a line in the log when it fails.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A request is what the site knows of a request beside its route: its id,
// which the log and an error's answer both give; the viewer its session
// names; and the error a 5xx answer keeps from the client, for the log.
type request struct {
	id     string
	viewer string
	err    error
}

type requestKey struct{}

// requestOf is r's request, as the site's handler made it.
func requestOf(r *http.Request) *request {
	if q, ok := r.Context().Value(requestKey{}).(*request); ok {
		return q
	}
	return &request{} // a handler called outside the site's: no viewer
}

// newRequestID is a short id for a request: enough to find its line in the
// log, not a secret.
func newRequestID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// securityHeaders are on every answer. No page of the site may be framed,
// by another site or by a page of the same site (a frame could get a
// viewer's click on a delete button); scripts, styles and requests go to
// the site alone, which is all its pages use; and no answer's type is
// sniffed.
var securityHeaders = [][2]string{
	{"Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
	{"X-Frame-Options", "DENY"},
	{"X-Content-Type-Options", "nosniff"},
}

// handle serves r through next: it gives r its id and the security
// headers, refuses a host the site does not serve, bounds the body, reads
// the session (but for a static file, which needs none), and logs the
// request if it failed.
func (s *server) handle(w http.ResponseWriter, r *http.Request, next http.Handler) {
	start := time.Now()
	q := &request{id: newRequestID()}
	r = r.WithContext(context.WithValue(r.Context(), requestKey{}, q))
	h := w.Header()
	for _, kv := range securityHeaders {
		h.Set(kv[0], kv[1])
	}
	h.Set("X-Request-Id", q.id)
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			q.err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			if sw.code == 0 {
				s.failAny(sw, r, q.err)
			}
		}
		s.logRequest(r, q, sw.code, time.Since(start))
	}()
	if !s.hosts.serves(r.Host) {
		// Before anything reads Redis: a page of another name that
		// resolves here (DNS rebinding) reads nothing of the site.
		refuseHost(sw, r)
		return
	}
	r.Body = http.MaxBytesReader(sw, r.Body, maxBody)
	if id := sessionID(r); id != "" && !strings.HasPrefix(r.URL.Path, "/static/") {
		user, err := s.sessions.user(r.Context(), id)
		if err != nil {
			s.failAny(sw, r, err)
			return
		}
		q.viewer = user
	}
	next.ServeHTTP(sw, r)
}

// logRequest logs a request answered with an error: a 5xx, or a panic
// (which may come after a 200 has gone), as an error with what went wrong,
// and any other as information. A request answered well is not logged.
func (s *server) logRequest(r *http.Request, q *request, code int, took time.Duration) {
	if code == 0 {
		code = http.StatusOK // nothing written: net/http answers 200
	}
	if code < 400 && q.err == nil {
		return
	}
	attrs := []any{"id", q.id, "method", r.Method, "path", r.URL.Path, "status", code,
		"took", took.Round(time.Microsecond)}
	if code == http.StatusMisdirectedRequest {
		attrs = append(attrs, "host", r.Host)
	}
	if code < 500 && q.err == nil {
		s.log.InfoContext(r.Context(), "request refused", attrs...)
		return
	}
	if q.err != nil {
		attrs = append(attrs, "error", q.err.Error())
	}
	s.log.ErrorContext(r.Context(), "request failed", attrs...)
}

// A statusWriter notes the status its request is answered with, for the
// log.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serverFault is what a 5xx answer says instead of its error, whose text
// (Redis's, an address) is for the log alone: what kind of failure it was
// and the id to find it by in the log.
func serverFault(r *http.Request, code int, err error) string {
	q := requestOf(r)
	q.err = err
	return fmt.Sprintf("%s: the failure is logged as request %s", strings.ToLower(http.StatusText(code)), q.id)
}

// refuseHost answers a request whose host the site does not serve with
// 421, the status for a request sent to a server that does not serve its
// name, with nothing of the site: no sidebar, no session.
func refuseHost(w http.ResponseWriter, r *http.Request) {
	msg := fmt.Sprintf("this server does not serve host %q", r.Host)
	if isAPI(r) {
		reply(w, http.StatusMisdirectedRequest, apiError{Error: msg, RequestID: requestOf(r).id})
		return
	}
	http.Error(w, msg, http.StatusMisdirectedRequest)
}

// A hostSet is the hosts the site serves, as a request's Host names them:
// name and port, the name in lower case and an IPv6 address without its
// brackets; a port "" serves the name on any port.
type hostSet map[[2]string]bool

// parseHosts reads -hosts: names, with or without a port, separated by
// commas ("localhost:8080, news.example.org").
func parseHosts(list string) (hostSet, error) {
	set := hostSet{}
	for entry := range strings.SplitSeq(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, port, err := splitHost(entry)
		if err != nil {
			return nil, fmt.Errorf("-hosts: %q is no host or host:port: %w", entry, err)
		}
		set[[2]string{name, port}] = true
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("-hosts names no host")
	}
	return set, nil
}

// splitHost splits a host, as -hosts or a Host header writes it, into its
// name, in lower case and without an IPv6 address's brackets, and its port
// ("" for none).
func splitHost(host string) (name, port string, err error) {
	name = host
	switch {
	case strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]"):
		name = host[1 : len(host)-1]
	case strings.HasPrefix(host, "["), strings.Count(host, ":") == 1:
		if name, port, err = net.SplitHostPort(host); err != nil {
			return "", "", err
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return "", "", fmt.Errorf("port %q is no port number", port)
		}
	}
	if name == "" || strings.ContainsAny(name, "[]/\\@ ") {
		return "", "", fmt.Errorf("%q is no host name", name)
	}
	return strings.ToLower(name), port, nil
}

// defaultHosts are the hosts of a site listening on addr (as net.Listener
// gives it, with its port): on a loopback address, or on every address,
// the loopback names (127.0.0.1, localhost and [::1]) with the port; on
// another address, that address with the port. A name of the machine's or
// a proxy's goes in -hosts.
func defaultHosts(addr string) (hostSet, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ip := net.ParseIP(host)
	if ip != nil && !ip.IsLoopback() && !ip.IsUnspecified() {
		return hostSet{{strings.ToLower(ip.String()), port}: true}, nil
	}
	set := hostSet{}
	for _, name := range []string{"127.0.0.1", "localhost", "::1"} {
		set[[2]string{name, port}] = true
	}
	return set, nil
}

// serves reports whether the site serves host, a request's Host: one of
// the set, or one of its names that the set takes on any port. A Host with
// no port is on port 80.
func (hs hostSet) serves(host string) bool {
	name, port, err := splitHost(host)
	if err != nil {
		return false
	}
	if port == "" {
		port = "80"
	}
	return hs[[2]string{name, port}] || hs[[2]string{name, ""}]
}

// String writes the set as -hosts takes it, sorted.
func (hs hostSet) String() string {
	var out []string
	for h := range hs {
		switch {
		case h[1] == "":
			out = append(out, h[0])
		default:
			out = append(out, net.JoinHostPort(h[0], h[1]))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// newLogger is the site's log: a line of text on w for each entry.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, nil))
}
