package main

import (
	"fmt"
	"io"
)

func runSimulation(steps, window int, docs string, stdout io.Writer) error {
	return fmt.Errorf("simulation not built yet")
}
