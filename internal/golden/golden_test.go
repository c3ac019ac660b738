package golden

import (
	"testing"
	"testing/fstest"
)

const passing = `covers: ACP-SES-002
A session/new with its mcpServers.
-- transcript.ndjson --
{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}
`

// The corpus is read from any fs.FS rooted at the area directories, so a
// case's name is its path there without the extension, and todo.txt files
// are the only other files read.
func TestLoadCasesNamesCasesByTheirPathInTheCorpus(t *testing.T) {
	corpus := fstest.MapFS{
		"ses/b.txtar":  {Data: []byte(passing)},
		"ses/todo.txt": {Data: []byte("# comment\nACP-SES-009 proved by lint/x_test.go TestX because\n")},
		"cap/a.txtar":  {Data: []byte(passing + "-- want --\n1 ACP-SES-002 `missing`\n")},
		"cap/notes.md": {Data: []byte("not a case")},
	}
	cases, err := LoadCases(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].Name != "cap/a" || cases[1].Name != "ses/b" {
		t.Fatalf("cases %v; want cap/a and ses/b, sorted", names(cases))
	}
	if c := cases[0]; c.Dir() != "cap" || len(c.Want) != 1 || c.Want[0].Line != 1 || c.Want[0].Rule != "ACP-SES-002" || c.TranscriptName != "transcript.ndjson" {
		t.Errorf("cap/a read as %+v", c)
	}
	unchecked, err := Unchecked(corpus)
	if err != nil {
		t.Fatal(err)
	}
	file, test, ok := ProvedBy(unchecked["ACP-SES-009"])
	if len(unchecked) != 1 || !ok || file != "lint/x_test.go" || test != "TestX" {
		t.Errorf("unchecked %q, proved by %q %q %v", unchecked, file, test, ok)
	}
}

func TestParseCaseRejectsMalformedCases(t *testing.T) {
	for name, data := range map[string]string{
		"no covers":        "-- transcript.ndjson --\n{}\n",
		"no transcript":    "covers: ACP-SES-002\n",
		"two transcripts":  passing + "-- transcript.jsonl --\n{}\n",
		"unknown section":  passing + "-- notes --\nx\n",
		"bad want rule":    passing + "-- want --\n1 SES-2 `x`\n",
		"unquoted want re": passing + "-- want --\n1 ACP-SES-002 x\n",
	} {
		if _, err := ParseCase(name, []byte(data)); err == nil {
			t.Errorf("%s: ParseCase accepted it", name)
		}
	}
}

func names(cases []*Case) []string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Name)
	}
	return out
}
