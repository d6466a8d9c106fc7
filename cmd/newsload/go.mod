module github.com/articlevote/voting/cmd/newsload

go 1.25

require (
	github.com/articlevote/voting v0.0.0
	github.com/gomodule/redigo v1.9.3
)

replace github.com/articlevote/voting => ../..
