// Package sdkpeer records real ACP traffic between two peers built on the
// official TypeScript SDK (@agentclientprotocol/sdk, pinned to 2.4.0 in
// package.json) and checks that acplint finds no error in it.
//
// The directory holds a small Node.js project:
//
//   - agent.mjs is an ACP v1 agent over stdio. Each prompt streams message
//     chunks, publishes a plan, reads README.md (fs/read_text_file when the
//     client offers it, the local disk otherwise), proposes an edit with diff
//     content and asks for permission, writes the file, runs `ls -1` in a
//     client terminal (or locally), reports usage and ends the turn. It
//     honours session/cancel: no update after the cancel is acted on, and
//     the turn ends with stopReason "cancelled". Sessions are saved under
//     <cwd>/.sdkpeer/ and session/load replays them. One extension request,
//     _sdkpeer/stats, is announced under agentCapabilities._meta.
//   - record.mjs is an ACP client. It starts agent.mjs, answers fs, terminal
//     and permission requests for real in a scratch workspace, and writes
//     every line of both directions to a JSONL transcript
//     ({"ts":…,"dir":"client->agent"|"agent->client","msg":{…}}), taken from
//     the bytes on the pipes. Scenarios: full, reject, cancel-stream,
//     cancel-permission, no-client-caps, load (session/load in a second agent
//     process, with history replay).
//
// The Go tests run the recorder for every scenario, lint each transcript and
// fail on any error finding; warnings and infos are logged. They skip, and
// say why, when node is not on PATH or the SDK is not installed. Install it
// with
//
//	scripts/install-test-deps
//
// (npm ci in this directory; scripts/test runs it before go test). Run the
// tests with
//
//	go test ./conformance/sdkpeer -v
//
// A recording can also be made by hand:
//
//	node conformance/sdkpeer/record.mjs --scenario full --out /tmp/full.jsonl
//	go run ./cmd/acplint lint --clean-end /tmp/full.jsonl
//
// `go test ./conformance/sdkpeer -run TestSDKPeer -record` rewrites the
// corpus cases in conformance/testdata/sdk/ and examples/sdk-recording.jsonl
// from fresh recordings (in a fixed workspace, /tmp/acplint-sdkpeer/project,
// so paths stay stable). Check the diff: session ids and timestamps change
// on every run.
package sdkpeer
