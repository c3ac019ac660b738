// Package procgroup starts an agent as the leader of a process group of
// its own and signals the whole group: what tap and check both need so that
// the program behind a wrapper (a shell script, npx, go run) gets the
// signals meant for the agent, and none of it outlives acplint.
package procgroup
