module github.com/caldera-scheduler/caldera/examples/eventhandlers/external-reserved/go

go 1.25

require github.com/caldera-scheduler/caldera/guest-sdk/go v0.0.0

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	github.com/tinylib/msgp v1.6.5 // indirect
)

replace github.com/caldera-scheduler/caldera/guest-sdk/go => ../../../../guest-sdk/go
