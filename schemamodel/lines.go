package schemamodel

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/acplint/acplint/internal/jsonv"
)

// lineIndex maps the JSON Pointer of every value in a document to the line
// where it starts (for members: the line of the member name), so reports
// can point at a line of the schema file.
type lineIndex struct {
	at map[string]int
}

func indexLines(src []byte) *lineIndex {
	idx := &lineIndex{at: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	lineAt := newLineCounter(src)
	var walk func(ptr string) error
	walk = func(ptr string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if _, seen := idx.at[ptr]; !seen {
			idx.at[ptr] = lineAt(dec.InputOffset())
		}
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		switch d {
		case '{':
			for dec.More() {
				key, err := dec.Token()
				if err != nil {
					return err
				}
				name, _ := key.(string)
				child := ptr + "/" + jsonv.EscapeToken(name)
				idx.at[child] = lineAt(dec.InputOffset())
				if err := walk(child); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := walk(ptr + "/" + strconv.Itoa(i)); err != nil {
					return err
				}
			}
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if err := walk(""); err != nil && err != io.EOF {
		return idx // keep what was indexed before the error
	}
	return idx
}

// line returns the line of ptr, or of its nearest indexed ancestor.
func (l *lineIndex) line(ptr string) int {
	for {
		if n, ok := l.at[ptr]; ok {
			return n
		}
		i := bytes.LastIndexByte([]byte(ptr), '/')
		if i < 0 {
			return 0
		}
		ptr = ptr[:i]
	}
}

// newLineCounter returns a function from byte offset to 1-based line.
// Offsets only grow while decoding, so it counts incrementally.
func newLineCounter(src []byte) func(int64) int {
	line, pos := 1, 0
	return func(off int64) int {
		end := int(off)
		if end > len(src) {
			end = len(src)
		}
		if end < pos {
			return line
		}
		line += bytes.Count(src[pos:end], []byte{'\n'})
		pos = end
		return line
	}
}
