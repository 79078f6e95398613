//go:build race

package einocompact_test

// raceBuild is true when the tests are built with -race: the programs
// they build use it too, so they reuse the test binaries' compiled
// packages instead of compiling every dependency once more.
const raceBuild = true
