package protocol

import (
	"bytes"
	"testing"
)

// The one-pass word scan behind ctx.rawMentions agrees with a plain search
// for each word, wherever the words sit.
func TestWordsInMatchesContains(t *testing.T) {
	raws := []string{
		``, `"`, `{}`, `{"data":"x"}`, `{"x":"data"}`, `{"blob":1,"traceparent":"00"}`,
		`{"text":"say \"data\" and \"baggage"}`, `{"_meta":{"tracestate":"a=b"}}`,
		`"data`, `data"`, `{"dat":"a"}`, `{"trace":"parent","baggage"`,
	}
	for _, raw := range raws {
		found := wordsIn([]byte(raw), scannedWords)
		for i, w := range scannedWords {
			if got, want := found&(1<<i) != 0, bytes.Contains([]byte(raw), []byte(w)); got != want {
				t.Errorf("%s: %s found = %v, want %v", raw, w, got, want)
			}
		}
	}
}

// mentionsMeta agrees with a plain search for "_meta", quotes included.
func TestMentionsMetaMatchesContains(t *testing.T) {
	for _, raw := range []string{
		``, `"`, `_meta"`, `"_meta"`, `x_meta"`, `{"_meta":{}}`, `{"a":"b_meta","_meta":1}`,
		`{"a":"x_meta"}`, `{"a_meta":1}`, `"_meta`, `{"t":"\"_meta\""}`, `_meta"_meta"`,
	} {
		if got, want := mentionsMeta([]byte(raw)), bytes.Contains([]byte(raw), []byte(`"_meta"`)); got != want {
			t.Errorf("mentionsMeta(%s) = %v, want %v", raw, got, want)
		}
	}
}
