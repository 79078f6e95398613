//go:build !race

package einocompact_test

// raceBuild is true when the tests are built with -race (race_on_test.go).
const raceBuild = false
