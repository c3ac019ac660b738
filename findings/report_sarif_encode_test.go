package findings

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// encoderResult is a result as json.Encoder writes it in the log, the
// reference appendSARIFResult must match byte for byte.
func encoderResult(t testing.TB, r *sarifResult) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(sarifResultsIndent, "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// trickyText are pieces of strings that JSON encoders treat differently:
// characters escaped by name or by number, HTML characters (not escaped
// here), invalid UTF-8, U+2028 and U+2029, DEL and other scripts.
var trickyText = []string{"", "plain", `"`, `\`, "\b\f\n\r\t", "\x00\x01\x1f", "<a href='x'>&amp;</a>", "\xff", "\xe2\x80",
	"\u2028\u2029", "\x7f", "é日本語🙂", "/params/x~1y", "12345"}

func randomText(rnd *rand.Rand) string {
	var b strings.Builder
	for range rnd.IntN(5) {
		b.WriteString(trickyText[rnd.IntN(len(trickyText))])
	}
	return b.String()
}

func randomLocation(rnd *rand.Rand) sarifLocation {
	var l sarifLocation
	if rnd.IntN(2) == 0 {
		id := rnd.IntN(5)
		l.ID = &id
	}
	if rnd.IntN(3) > 0 {
		l.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: randomText(rnd)}}
		if rnd.IntN(3) > 0 {
			l.PhysicalLocation.Region = &sarifRegion{StartLine: rnd.IntN(1 << 20), StartColumn: rnd.IntN(3) * rnd.IntN(500)}
		}
	}
	for range rnd.IntN(3) {
		kind := ""
		if rnd.IntN(2) == 0 {
			kind = randomText(rnd)
		}
		l.LogicalLocations = append(l.LogicalLocations, sarifLogicalLocation{FullyQualifiedName: randomText(rnd), Kind: kind})
	}
	if rnd.IntN(2) == 0 {
		l.Message = &sarifText{Text: randomText(rnd)}
	}
	return l
}

// TestSARIFResultEncodesAsTheEncoder: the hand-written encoder of a result
// writes what json.Encoder wrote before it, for results with and without
// each optional member and with every kind of string escape.
func TestSARIFResultEncodesAsTheEncoder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(16, 2))
	for i := range 3000 {
		r := sarifResult{RuleID: randomText(rnd), Level: randomText(rnd), Message: sarifText{Text: randomText(rnd)}}
		if rnd.IntN(2) == 0 {
			idx := rnd.IntN(300)
			r.RuleIndex = &idx
		}
		if rnd.IntN(10) > 0 {
			r.Locations = []sarifLocation{}
			for range rnd.IntN(3) {
				r.Locations = append(r.Locations, randomLocation(rnd))
			}
		}
		for range rnd.IntN(3) {
			r.RelatedLocations = append(r.RelatedLocations, randomLocation(rnd))
		}
		if rnd.IntN(10) > 0 {
			r.PartialFingerprints = map[string]string{}
			for range rnd.IntN(3) {
				r.PartialFingerprints[randomText(rnd)] = randomText(rnd)
			}
		}
		if rnd.IntN(3) > 0 {
			r.Properties = &sarifResultProps{Blame: randomText(rnd)}
		}
		if got, want := string(appendSARIFResult(nil, &r)), encoderResult(t, &r); got != want {
			t.Fatalf("result %d:\ngot  %s\nwant %s", i, got, want)
		}
	}
}

// FuzzSARIFString: any string, valid UTF-8 or not, is escaped as
// json.Encoder escapes it.
func FuzzSARIFString(f *testing.F) {
	for _, s := range trickyText {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := sarifResult{RuleID: s, Level: "note", Message: sarifText{Text: s}}
		if got, want := string(appendSARIFResult(nil, &r)), encoderResult(t, &r); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
