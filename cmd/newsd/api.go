package main

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/articlevote/voting"
)

// reply writes v as JSON with the status code.
func reply(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

// An apiError is the API's answer to a request it refuses or fails:
// what went wrong (for a 5xx, what kind of failure alone), and the
// request's id, as the log gives it.
type apiError struct {
	Error     string `json:"error"`
	RequestID string `json:"requestId"`
}

// apiFail writes err as {"error": "...", "requestId": "..."} with its
// status.
func apiFail(w http.ResponseWriter, r *http.Request, err error) {
	code, msg := refusal(r, err)
	reply(w, code, apiError{Error: msg, RequestID: requestOf(r).id})
}

// answer writes v with 200, or err if it is not nil.
func answer(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		apiFail(w, r, err)
		return
	}
	reply(w, http.StatusOK, v)
}

// decode reads a request's JSON body into v: one object of known fields.
func decode(r *http.Request, v any) error {
	d := json.NewDecoder(r.Body)
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		if errors.Is(err, voting.ErrInvalid) {
			return err // a value the library refused, in its words
		}
		return invalid("the body is not the JSON object wanted: %v", err)
	}
	return nil
}

func (s *server) apiLogin(w http.ResponseWriter, r *http.Request) {
	var body struct {
		User string `json:"user"`
	}
	err := decode(r, &body)
	if err == nil {
		err = checkName(body.User)
	}
	if err == nil {
		err = s.login(w, r, body.User)
	}
	if err != nil {
		apiFail(w, r, err)
		return
	}
	reply(w, http.StatusOK, map[string]string{"user": body.User})
}

func (s *server) apiLogout(w http.ResponseWriter, r *http.Request) {
	if err := s.logout(w, r); err != nil {
		apiFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) apiList(w http.ResponseWriter, r *http.Request) {
	l, err := s.list(r.Context(), r.PathValue("group"), "", s.viewer(r), r.URL.Query())
	answer(w, r, l, err)
}

func (s *server) apiGroups(w http.ResponseWriter, r *http.Request) {
	g, err := s.groups(r.Context(), r.URL.Query())
	answer(w, r, g, err)
}

func (s *server) apiPosters(w http.ResponseWriter, r *http.Request) {
	p, err := s.posters(r.Context(), r.URL.Query())
	answer(w, r, p, err)
}

func (s *server) apiArticle(w http.ResponseWriter, r *http.Request) {
	v, err := s.view(r.Context(), r.PathValue("id"))
	if err != nil {
		apiFail(w, r, err)
		return
	}
	reply(w, http.StatusOK, v)
}

func (s *server) apiPost(w http.ResponseWriter, r *http.Request) {
	user := s.viewer(r)
	if user == "" {
		apiFail(w, r, errNoSession)
		return
	}
	var sub submission
	if err := decode(r, &sub); err != nil {
		apiFail(w, r, err)
		return
	}
	a, err := s.post(r.Context(), user, sub)
	if err != nil {
		apiFail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/articles/"+a.ID)
	reply(w, http.StatusCreated, a)
}

func (s *server) apiVote(w http.ResponseWriter, r *http.Request) {
	user := s.viewer(r)
	if user == "" {
		apiFail(w, r, errNoSession)
		return
	}
	var body struct {
		Direction voting.Direction `json:"direction"`
	}
	if err := decode(r, &body); err != nil {
		apiFail(w, r, err)
		return
	}
	a, err := s.vote(r.Context(), user, r.PathValue("id"), body.Direction)
	if err != nil {
		apiFail(w, r, err)
		return
	}
	reply(w, http.StatusOK, a)
}

func (s *server) apiDelete(w http.ResponseWriter, r *http.Request) {
	if err := s.remove(r.Context(), s.viewer(r), r.PathValue("id")); err != nil {
		apiFail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) apiUser(w http.ResponseWriter, r *http.Request) {
	p, err := s.profile(r.Context(), r.PathValue("user"), s.viewer(r))
	answer(w, r, p, err)
}

func (s *server) apiUserArticles(w http.ResponseWriter, r *http.Request) {
	l, err := s.list(r.Context(), "", r.PathValue("user"), s.viewer(r), r.URL.Query())
	answer(w, r, l, err)
}

func (s *server) apiUserVotes(w http.ResponseWriter, r *http.Request) {
	v, err := s.userVotes(r.Context(), r.PathValue("user"), s.viewer(r), r.URL.Query())
	answer(w, r, v, err)
}
