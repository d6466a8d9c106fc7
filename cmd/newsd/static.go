package main

import (
	"io"
	"io/fs"
	"net/http"
	"strings"
)

// static serves a file of the embedded static folder by its name: the
// folder's files alone, so no listing of a folder and nothing outside it
// (http.FileServerFS on the embedded files would serve both, the
// templates' text through /static/%2e%2e/templates/); 404 for anything
// else.
func (s *server) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name") // one segment of the path, unescaped
	missing := notFound("no file %s", r.URL.Path)
	if !fs.ValidPath(name) || strings.ContainsAny(name, `/\`) {
		s.fail(w, r, missing)
		return
	}
	f, err := assets.Open("static/" + name)
	if err != nil {
		s.fail(w, r, missing)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	content, seeks := f.(io.ReadSeeker)
	if err != nil || !info.Mode().IsRegular() || !seeks {
		s.fail(w, r, missing)
		return
	}
	http.ServeContent(w, r, name, info.ModTime(), content)
}
