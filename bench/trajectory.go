package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/cloudwego/eino/schema"
)

// Shape names a kind of synthetic agent trajectory.
type Shape string

// The trajectory shapes the simulation replays.
const (
	// ShapeManySmall is one long task: a few user messages and, at every
	// step, one to three tool results of a few hundred bytes to 2 KB.
	ShapeManySmall Shape = "many-small-results"
	// ShapeFewHuge is like ShapeManySmall with small results, except that
	// every 20th step or so one result is 15-25 % of the window.
	ShapeFewHuge Shape = "few-huge-results"
	// ShapeManyTurns is a chat: a new user message every two to four steps,
	// few tool calls, longer answers.
	ShapeManyTurns Shape = "many-user-turns"
)

// Shapes lists every shape, in report order.
var Shapes = []Shape{ShapeManySmall, ShapeFewHuge, ShapeManyTurns}

// Step is one model call of a scripted trajectory.
type Step struct {
	// Before is what arrives before the call: the results of the previous
	// reply's tool calls, then possibly a new user message.
	Before []*schema.Message
	// Reply is what the model answers, without usage (the simulation adds
	// the usage each strategy's prompt would have had).
	Reply *schema.Message
}

// Trajectory scripts steps model calls of shape for an agent whose window is
// window tokens. The script does not depend on what a strategy does to the
// conversation, so every strategy replays exactly the same work. Equal
// arguments give equal scripts. The first message is the system prompt.
func Trajectory(shape Shape, steps, window int, seed uint64) (*schema.Message, []Step) {
	r := rand.New(rand.NewPCG(seed, uint64(len(shape))))
	system := schema.SystemMessage("You are a coding agent. Use the tools to inspect the repository, run the tests and fix what fails. " + prose(r, 400))
	script := make([]Step, steps)
	var pending []schema.ToolCall
	call := 0
	for i := range script {
		var before []*schema.Message
		for _, c := range pending {
			before = append(before, schema.ToolMessage(toolOutput(r, trajectoryResultBytes(r, shape, window)), c.ID, schema.WithToolName(c.Function.Name)))
		}
		if i == 0 || userTurn(r, shape, i, len(pending) == 0) {
			before = append(before, schema.UserMessage(prose(r, 80+r.IntN(500))))
		}
		calls := trajectoryCalls(r, shape)
		pending = make([]schema.ToolCall, calls)
		for j := range pending {
			call++
			pending[j] = toolCall(r, fmt.Sprintf("call_%06d", call), toolNames[r.IntN(len(toolNames))])
		}
		text := ""
		if calls == 0 {
			text = prose(r, answerBytes(r, shape))
		} else if r.IntN(3) == 0 {
			text = prose(r, 40+r.IntN(200))
		}
		script[i] = Step{Before: before, Reply: schema.AssistantMessage(text, pending)}
		if calls == 0 {
			pending = nil
		}
	}
	return system, script
}

// userTurn reports whether a user message arrives before step i. answered
// says the previous reply called no tool: then the user speaks next.
func userTurn(r *rand.Rand, shape Shape, i int, answered bool) bool {
	if answered {
		return true
	}
	if shape == ShapeManyTurns {
		return false
	}
	return i%60 == 0
}

// trajectoryCalls is how many tools the reply calls; 0 is a final answer.
func trajectoryCalls(r *rand.Rand, shape Shape) int {
	if shape == ShapeManyTurns {
		if r.IntN(3) == 0 {
			return 0
		}
		return 1 + r.IntN(2)
	}
	if r.IntN(40) == 0 {
		return 0
	}
	return 1 + r.IntN(3)
}

func answerBytes(r *rand.Rand, shape Shape) int {
	if shape == ShapeManyTurns {
		return 500 + r.IntN(1500)
	}
	return 200 + r.IntN(600)
}

// trajectoryResultBytes sizes one tool result: a few hundred bytes to 2 KB,
// and for ShapeFewHuge one result in about 40 at 15-25 % of the window
// (four bytes a token).
func trajectoryResultBytes(r *rand.Rand, shape Shape, window int) int {
	if shape == ShapeFewHuge && r.IntN(40) == 0 {
		return window * 4 * (15 + r.IntN(11)) / 100
	}
	if shape == ShapeFewHuge {
		return 200 + r.IntN(600)
	}
	return 300 + r.IntN(1700)
}
