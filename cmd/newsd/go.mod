module github.com/articlevote/voting/cmd/newsd

go 1.25

require (
	github.com/alicebob/miniredis/v2 v2.40.0
	github.com/articlevote/voting v0.0.0
	github.com/chromedp/chromedp v0.23.0
	github.com/gomodule/redigo v1.9.3
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/yuin/gopher-lua v1.1.1 // indirect
)

replace github.com/articlevote/voting => ../..
