module github.com/caldera-scheduler/caldera/guest-sdk/go

go 1.25

require github.com/tinylib/msgp v1.6.5

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	golang.org/x/mod v0.18.0 // indirect
	golang.org/x/tools v0.22.0 // indirect
)

tool github.com/tinylib/msgp
