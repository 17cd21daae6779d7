//go:build ignore

// gengrids writes grids.bin: the lookup grids of ggml's IQ1, IQ2 and IQ3
// types, read from ggml's ggml-common.h (its GGML_TABLE_BEGIN blocks),
// one table after another in the order of grids.go, each entry
// little-endian. The grids are data: the values every implementation of
// these types shares. Run it with the header's path:
//
//	go run gengrids.go /path/to/ggml/src/ggml-common.h
package main

import (
	"bytes"
	"encoding/binary"
	"log"
	"os"
	"regexp"
	"strconv"
)

var tables = []struct {
	c     string
	n     int // entries
	bytes int // per entry
}{
	{"iq2xxs_grid", 256, 8},
	{"iq2xs_grid", 512, 8},
	{"iq2s_grid", 1024, 8},
	{"iq3xxs_grid", 256, 4},
	{"iq3s_grid", 512, 4},
	{"iq1s_grid", 2048, 8},
}

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: go run gengrids.go ggml-common.h")
	}
	src, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	var out []byte
	num := regexp.MustCompile(`0x[0-9a-fA-F]+`)
	for _, t := range tables {
		begin := regexp.MustCompile(`GGML_TABLE_BEGIN\(\w+, ` + t.c + `, (\w+)\)`)
		loc := begin.FindIndex(src)
		if loc == nil {
			log.Fatalf("%s: not found", t.c)
		}
		rest := src[loc[1]:]
		end := bytes.Index(rest, []byte("GGML_TABLE_END()"))
		if end < 0 {
			log.Fatalf("%s: no end", t.c)
		}
		vals := num.FindAll(rest[:end], -1)
		if len(vals) != t.n {
			log.Fatalf("%s: %d entries, want %d", t.c, len(vals), t.n)
		}
		for _, v := range vals {
			x, err := strconv.ParseUint(string(v[2:]), 16, 8*t.bytes)
			if err != nil {
				log.Fatalf("%s: %v", t.c, err)
			}
			if t.bytes == 8 {
				out = binary.LittleEndian.AppendUint64(out, x)
			} else {
				out = binary.LittleEndian.AppendUint32(out, uint32(x))
			}
		}
	}
	if err := os.WriteFile("grids.bin", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
