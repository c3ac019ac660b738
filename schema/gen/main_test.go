package main

import "testing"

// TestGenerated fails when schema.json differs from what the domain types
// generate.
func TestGenerated(t *testing.T) {
	upToDate, err := doMain(false)
	if err != nil {
		t.Fatal(err)
	}
	if !upToDate {
		t.Error("schema/schema.json is stale; run go generate ./schema")
	}
}
