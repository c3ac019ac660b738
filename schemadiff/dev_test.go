package schemadiff

import (
	"fmt"
	"os"
	"testing"
)

func TestDev(t *testing.T) {
	a, err := LoadFile(os.Getenv("OLD"), Options{})
	if err != nil { t.Fatal(err) }
	b, err := LoadFile(os.Getenv("NEW"), Options{})
	if err != nil { t.Fatal(err) }
	r := Diff(a, b)
	for _, n := range r.Notes { fmt.Println("NOTE", n) }
	for _, c := range r.Changes {
		fmt.Printf("%s %s %s %s %s %s %s :: %s [%s | %s] also=%d\n", c.Surface, c.Severity, c.CheckID, c.Category, c.Method, c.Kind, c.Path, c.Message, c.Old.Pointer, c.New.Pointer, len(c.Also))
	}
}
