package main

import (
	"encoding/binary"
	"os"
	"unsafe"
)

// misbehave (-X main.misbehave=MODE) makes every caldera_call attack the
// host's limits instead of answering:
//
//	log       calls the host's log, forever, with a 32 MiB line
//	stdout    writes 1 MiB to stdout, forever
//	nilkeys   answers 16 million nil keys (a 16 MB reply)
//	wrongkeys answers an empty list of keys, whatever it was asked
//	recurse   calls itself until something stops it
var misbehave = ""

//go:wasmimport caldera log
func hostLog(level, ptr, n uint32)

var bomb []byte

func attack(hook uint32) uint64 {
	switch misbehave {
	case "log":
		bomb = make([]byte, 32<<20)
		for {
			hostLog(1, uint32(uintptr(unsafe.Pointer(&bomb[0]))), uint32(len(bomb)))
		}
	case "stdout":
		bomb = make([]byte, 1<<20)
		for {
			os.Stdout.Write(bomb)
		}
	case "nilkeys":
		const n = 16_000_000
		b := make([]byte, 0, 8+n)
		b = append(b, 0x93, 0x00, 0xa0, 0xdd) // [0, "", [nil x n]]
		b = binary.BigEndian.AppendUint32(b, n)
		for range n {
			b = append(b, 0xc0)
		}
		return pack(b)
	case "wrongkeys":
		return reply(0, "", []any{})
	case "recurse":
		return uint64(deeper(int(hook)))
	}
	return reply(64, "unknown misbehaviour "+misbehave, nil)
}

// deeper recurses for as long as n does not wrap, which it never does
// before the host stops it.
//
//go:noinline
func deeper(n int) int {
	if n < 0 {
		return 0
	}
	return deeper(n+1) + 1
}
