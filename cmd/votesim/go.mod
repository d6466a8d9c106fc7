module github.com/articlevote/voting/cmd/votesim

go 1.25

require (
	github.com/alicebob/miniredis/v2 v2.40.0
	github.com/articlevote/voting v0.0.0
	github.com/gomodule/redigo v1.9.3
)

require github.com/yuin/gopher-lua v1.1.1 // indirect

replace github.com/articlevote/voting => ../..
