// Package rulehomes has no code: its test sees the whole module and proves
// that every rule of the catalog has one home (homes_test.go).
package rulehomes
