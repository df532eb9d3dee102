// Package search finds the lines of cached run files that match a regular
// expression, and how often they occur in failed and in passed runs.
//
// It reads runs from package cache, never from a bucket, and counts the
// runs package db lists: per job and edge, the share of runs, of failed
// runs and of passed runs whose cached files have a matching line, with a
// one-sided Fisher exact test (package stats') of whether matching runs
// fail more often than the others. It runs over every core. It neither
// writes the database nor renders anything: package report does.
package search
