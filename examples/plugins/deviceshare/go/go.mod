module github.com/caldera-scheduler/caldera/examples/plugins/deviceshare/go

go 1.25

require github.com/caldera-scheduler/caldera/guest-sdk/go v0.0.0

replace github.com/caldera-scheduler/caldera/guest-sdk/go => ../../../../guest-sdk/go
