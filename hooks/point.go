package hooks

import "slices"

// Point names a moment in an agent run at which hooks are run.
type Point string

// The six hook points, in the order a run reaches them.
const (
	// BeforeRun runs once, after the initial state is built and before the first step.
	BeforeRun Point = "before_run"
	// BeforeLLM runs before every model call; the conversation ends with the user
	// input (first step) or the previous step's tool results. Compaction lives here.
	BeforeLLM Point = "before_llm"
	// BeforeTool runs after a model reply that asked for tools, before they run;
	// the conversation ends with that reply.
	BeforeTool Point = "before_tool"
	// AfterTool runs after the tools of a step ran; the conversation ends with their results.
	AfterTool Point = "after_tool"
	// OnExit runs when the model answered without calling a tool. A hook may set
	// State.ContinueRun (typically after appending a user message) to keep going.
	OnExit Point = "on_exit"
	// AfterRun runs once, after the loop, with the final state.
	AfterRun Point = "after_run"
)

// Points lists every valid Point in run order.
func Points() []Point {
	return []Point{BeforeRun, BeforeLLM, BeforeTool, AfterTool, OnExit, AfterRun}
}

// Valid reports whether p is one of the six hook points.
func (p Point) Valid() bool {
	return slices.Contains(Points(), p)
}
